import { useState, type ReactNode } from 'react';
import { AlertTriangle, CloudOff, RefreshCw, UploadCloud } from 'lucide-react';
import { clientErrorMessages } from '@office/sync-protocol';
import { refusalMessage } from '../app/failure-messages';
import { useOnline, useOutbox, useSyncState } from '../data/hooks';
import { useOptionalWorkspace, useWorkspace } from './sync-context';
import { discardFailed, mutationLabels, retryFailed } from './outbox-actions';
import styles from './sync-status.module.css';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Text kept for screen readers where a phone's top bar has no room to show it. */
const Unshown = ({ text }: { text: string }) => <span className={styles.unshown}>{text}</span>;

/**
 * The header indicator: Offline, Syncing, "N unsynced changes", and failed changes with Retry and Discard.
 * `compact` (the phone's top bar) shows fewer words ("Offline · 2 unsynced", "1 failed"); the rest stays in the
 * text for screen readers, so what it says is the same everywhere.
 */
export function SyncStatus({ compact = false }: { compact?: boolean }) {
  return useOptionalWorkspace() ? <SignedInSyncStatus compact={compact} /> : null;
}

function SignedInSyncStatus({ compact }: { compact: boolean }) {
  const { db, ctx, engine } = useWorkspace();
  const online = useOnline();
  const { phase } = useSyncState();
  const outbox = useOutbox() ?? [];
  const [open, setOpen] = useState(false);
  const pending = outbox.filter((entry) => entry.status === 'pending');
  const failed = outbox.filter((entry) => entry.status === 'failed');
  const offline = !online || phase === 'offline';
  // The disk is full even without the cache of older messages: nothing is lost, nothing new is stored (issue 46).
  const storageFull = !offline && phase === 'storage-full';
  // "2 unsynced changes"; on a phone "2 unsynced", the noun for screen readers only.
  const unsynced = compact ? (
    <>
      {pending.length} unsynced
      <Unshown text={pending.length === 1 ? ' change' : ' changes'} />
    </>
  ) : (
    plural(pending.length, 'unsynced change', 'unsynced changes')
  );

  let label: ReactNode = null;
  let icon = <UploadCloud size={16} aria-hidden="true" />;
  if (offline) {
    label = pending.length ? <>Offline · {unsynced}</> : 'Offline';
    icon = <CloudOff size={16} aria-hidden="true" />;
  } else if (storageFull) {
    label = 'Storage full';
    icon = <AlertTriangle size={16} aria-hidden="true" />;
  } else if (pending.length && phase === 'syncing') {
    label = 'Syncing...';
    icon = <RefreshCw size={16} aria-hidden="true" className={styles.spin} />;
  } else if (pending.length) {
    label = unsynced;
  }

  return (
    <div
      className={`${styles.root} ${compact ? styles.compact : ''}`}
      role="status"
      aria-live="polite"
      aria-label="Sync status"
    >
      {label ? (
        <span
          className={`${styles.pill} ${offline ? styles.offline : storageFull ? styles.full : styles.pending}`}
          title={storageFull ? clientErrorMessages.storage_full : undefined}
        >
          {icon}
          <span className={styles.label}>{label}</span>
          {storageFull ? <span className={styles.srOnly}>{clientErrorMessages.storage_full}</span> : null}
        </span>
      ) : null}
      {failed.length ? (
        <div className={styles.failedWrap}>
          <button
            type="button"
            className={`${styles.pill} ${styles.failed}`}
            aria-expanded={open}
            onClick={() => setOpen((value) => !value)}
          >
            <AlertTriangle size={16} aria-hidden="true" />
            {compact ? (
              <>
                {failed.length}
                <Unshown text={failed.length === 1 ? ' change' : ' changes'} /> failed
              </>
            ) : (
              plural(failed.length, 'change failed', 'changes failed')
            )}
          </button>
          {open ? (
            <div className={styles.popover} role="dialog" aria-label="Failed changes">
              <p className={styles.popoverTitle}>The server refused these changes. They were undone on this device.</p>
              <ul className={styles.failedList}>
                {failed.map((entry) => (
                  <li key={entry.id} className={styles.failedItem}>
                    <div>
                      <strong>{mutationLabels[entry.name]}</strong>
                      <p className={styles.reason}>{refusalMessage(entry.name, entry.error?.message)}</p>
                    </div>
                    <div className={styles.actions}>
                      <button type="button" onClick={() => void retryFailed(db, ctx, entry.id).then(engine.kick)}>
                        Retry
                      </button>
                      <button type="button" onClick={() => void discardFailed(db, entry.id)}>
                        Discard
                      </button>
                    </div>
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
