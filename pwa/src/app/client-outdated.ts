import { useSyncExternalStore } from 'react';

/**
 * Whether the server has said this build no longer speaks its protocol (409 `client_outdated` on a call, or
 * on the socket handshake). Once set it stays set until the page reloads into the new version.
 */
let outdated = false;
const listeners = new Set<() => void>();

export function markClientOutdated(): void {
  if (outdated) return;
  outdated = true;
  for (const listener of listeners) listener();
}

const subscribe = (listener: () => void): (() => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

/** True once the server has refused this build's protocol version. */
export const useClientOutdated = (): boolean => useSyncExternalStore(subscribe, () => outdated);
