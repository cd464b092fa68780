import { roles, type User } from '@office/sync-protocol';
import { sessionKeys } from './session-keys';

/** A session read back from storage. */
export interface StoredSession {
  user: User;
  token: string;
}

export const getStoredToken = (): string | null => localStorage.getItem(sessionKeys.token);

export const removeStoredToken = (): void => localStorage.removeItem(sessionKeys.token);

/** A user as it may arrive from the server, possibly with a password field that must never be stored. */
type UserWithPassword = User & { password?: unknown };

/** Removes a password field, if any, before the user is kept on this device (spec section 3). */
export function withoutPassword(user: UserWithPassword): User {
  const copy: UserWithPassword = { ...user };
  delete copy.password;
  return copy;
}

// Lenient on purpose: a stored user from an older app version must still restore offline,
// so only what routing needs is checked, not the whole wire schema.
function looksLikeUser(value: unknown): value is User {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const candidate = value as { id?: unknown; name?: unknown; role?: unknown };
  return (
    typeof candidate.id === 'string' &&
    typeof candidate.name === 'string' &&
    (roles as readonly unknown[]).includes(candidate.role)
  );
}

/**
 * The stored session, restored only when the flag, the user and the token are all present
 * (spec section 4). A stored user that does not parse clears all three.
 */
export function readStoredSession(): StoredSession | null {
  const flag = sessionStorage.getItem(sessionKeys.hasActiveSession);
  const rawUser = localStorage.getItem(sessionKeys.user);
  const token = localStorage.getItem(sessionKeys.token);
  if (flag !== 'true' || rawUser === null || token === null) {
    return null;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawUser);
  } catch {
    clearStoredSession();
    return null;
  }
  if (!looksLikeUser(parsed)) {
    clearStoredSession();
    return null;
  }
  return { user: withoutPassword(parsed), token };
}

/** Keeps a fresh session after sign-in. */
export function writeStoredSession(session: StoredSession): void {
  localStorage.setItem(sessionKeys.user, JSON.stringify(withoutPassword(session.user)));
  localStorage.setItem(sessionKeys.token, session.token);
  sessionStorage.setItem(sessionKeys.hasActiveSession, 'true');
}

/** Replaces the stored user (after a profile change or a refresh) without touching the token. */
export function writeStoredUser(user: User): void {
  localStorage.setItem(sessionKeys.user, JSON.stringify(withoutPassword(user)));
}

/** Removes the user, the token and the session flag. */
export function clearStoredSession(): void {
  localStorage.removeItem(sessionKeys.user);
  localStorage.removeItem(sessionKeys.token);
  sessionStorage.removeItem(sessionKeys.hasActiveSession);
}
