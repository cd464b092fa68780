import { limits, type PresenceStatus } from '@office/sync-protocol';
import type { WorkspaceDb } from '../data/db';
import type { RealtimeSocket } from './socket';

const activityEvents = ['pointerdown', 'keydown', 'wheel', 'touchstart'] as const;

/**
 * Tells the server this user's presence: online while the app is visible and in use, away while it
 * is hidden or idle. Reports on every (re)connect and whenever the state changes. Returns a stop function.
 */
export function reportPresence(socket: RealtimeSocket, idleMs: number = limits.presenceIdleMs): () => void {
  let reported: 'online' | 'away' | null = null;
  let lastActivity = Date.now();
  const current = () =>
    document.visibilityState === 'visible' && Date.now() - lastActivity < idleMs ? 'online' : 'away';
  const report = (force = false) => {
    const status = current();
    if (!socket.connected || (!force && status === reported)) return;
    socket.emit('update-presence', { status });
    reported = status;
  };
  const handleActivity = () => {
    lastActivity = Date.now();
    if (reported === 'away') report();
  };
  const handleVisibility = () => report();
  const handleConnect = () => report(true);

  socket.on('connect', handleConnect);
  document.addEventListener('visibilitychange', handleVisibility);
  for (const event of activityEvents) window.addEventListener(event, handleActivity, { passive: true });
  const idleCheck = window.setInterval(() => report(), 30_000);
  return () => {
    socket.off('connect', handleConnect);
    document.removeEventListener('visibilitychange', handleVisibility);
    for (const event of activityEvents) window.removeEventListener(event, handleActivity);
    window.clearInterval(idleCheck);
  };
}

/**
 * Makes the device's presence equal to the server's snapshot: presence events missed while the socket
 * was down (a reload, a network drop) would otherwise leave people online here who left meanwhile.
 */
export async function applyPresenceSnapshot(
  db: WorkspaceDb,
  present: readonly { userId: string; status: PresenceStatus }[],
): Promise<void> {
  const statusById = new Map(present.map((entry) => [entry.userId, entry.status]));
  await db.users.toCollection().modify((user) => {
    user.status = statusById.get(user.id) ?? 'offline';
  });
}
