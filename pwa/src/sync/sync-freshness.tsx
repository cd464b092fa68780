import { useCallback, useSyncExternalStore } from 'react';
import { format } from 'date-fns';
import { useNow } from '../components/use-now';
import { useOnline, useOutbox, useSyncState } from '../data/hooks';
import { useOptionalWorkspace, type Workspace } from './sync-context';
import styles from './sync-status.module.css';

const lastSyncedKey = (userId: string): string => `lastSyncedAt:${userId}`;

/** When this device last finished a sync with the server (epoch ms), kept across app starts. */
function useLastSynced(workspace: Workspace): number | null {
  const { engine, ctx } = workspace;
  const key = lastSyncedKey(ctx.userId);
  const subscribe = useCallback(
    (notify: () => void) => {
      let previous = engine.getState().phase;
      return engine.subscribe(() => {
        const { phase } = engine.getState();
        // A sync that ran to its end: pushed the outbox and pulled to the server's newest change.
        if (previous === 'syncing' && phase === 'idle') localStorage.setItem(key, String(Date.now()));
        previous = phase;
        notify();
      });
    },
    [engine, key],
  );
  const stored = useSyncExternalStore(subscribe, () => localStorage.getItem(key));
  return Number(stored) || null;
}

/** Whether the live connection to the server is up (live changes keep the device current meanwhile). */
function useSocketConnected(workspace: Workspace): boolean {
  const { socket } = workspace;
  return useSyncExternalStore(
    (notify) => {
      socket.on('connect', notify);
      socket.on('disconnect', notify);
      return () => {
        socket.off('connect', notify);
        socket.off('disconnect', notify);
      };
    },
    () => socket.connected,
  );
}

/** "5 min ago", "2 h ago", or the date for older syncs. */
function agoText(then: number, now: number): string {
  const minutes = Math.max(1, Math.round((now - then) / 60_000));
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  return `on ${format(then, 'MMM d')}`;
}

/**
 * How fresh the device's data is: "Up to date", "Synced 5 min ago", "Offline · last synced 10:42". `compact` (the
 * phone's top bar) leaves the offline case to the sync indicator's "Offline": there is room for one of them.
 */
export function SyncFreshness({ compact = false }: { compact?: boolean }) {
  const workspace = useOptionalWorkspace();
  return workspace ? <Freshness workspace={workspace} compact={compact} /> : null;
}

function Freshness({ workspace, compact }: { workspace: Workspace; compact: boolean }) {
  const online = useOnline();
  const { phase } = useSyncState();
  const outbox = useOutbox();
  const connected = useSocketConnected(workspace);
  const last = useLastSynced(workspace);
  const now = useNow().getTime();
  const offline = !online || phase === 'offline';
  // While changes wait or a sync runs, the sync indicator beside this says what is going on.
  if (outbox === undefined || outbox.length > 0 || (phase === 'syncing' && !offline) || (compact && offline)) {
    return null;
  }

  let text: string;
  if (offline) text = last === null ? 'Not synced yet' : `Last synced ${format(last, 'HH:mm')}`;
  else if (connected && last !== null && phase === 'idle') text = 'Up to date';
  else text = last === null ? 'Not synced yet' : `Synced ${agoText(last, now)}`;

  return (
    <span className={styles.freshness} role="status" aria-label="Data freshness">
      {text}
    </span>
  );
}
