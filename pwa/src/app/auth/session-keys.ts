/** Storage keys of spec sections 3 and 9: user and token persist, the flag lives per tab session. */
export const sessionKeys = {
  user: 'user',
  token: 'token',
  hasActiveSession: 'hasActiveSession',
} as const;

/**
 * Whether the tab holds a session to restore (the flag, a user and a token), without reading it: enough
 * for the page's first script to guess the first screen (session-storage.ts restores and checks it).
 */
export function hasStoredSession(): boolean {
  return (
    sessionStorage.getItem(sessionKeys.hasActiveSession) === 'true' &&
    localStorage.getItem(sessionKeys.user) !== null &&
    localStorage.getItem(sessionKeys.token) !== null
  );
}
