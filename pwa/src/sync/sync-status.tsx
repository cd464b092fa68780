import { useState } from 'react';
import { AlertTriangle, CloudOff, RefreshCw, UploadCloud } from 'lucide-react';
import { clientErrorMessages } from '@office/sync-protocol';
import { refusalMessage } from '../app/failure-messages';
import { useOnline, useOutbox, useSyncState } from '../data/hooks';
import { useOptionalWorkspace, useWorkspace } from './sync-context';
import { discardFailed, mutationLabels, retryFailed } from './outbox-actions';
import styles from './sync-status.module.css';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The header indicator: Offline, Syncing, "N unsynced changes", and failed changes with Retry and Discard. */
export function SyncStatus() {
  return useOptionalWorkspace() ? <SignedInSyncStatus /> : null;
}

function SignedInSyncStatus() {
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

  let label: string | null = null;
  /** What fits a phone's top bar. */
  let shortLabel: string | null = null;
  let icon = <UploadCloud size={16} aria-hidden="true" />;
  if (offline) {
    label = pending.length ? `Offline · ${plural(pending.length, 'unsynced change', 'unsynced changes')}` : 'Offline';
    shortLabel = pending.length ? `Offline · ${pending.length}` : 'Offline';
    icon = <CloudOff size={16} aria-hidden="true" />;
  } else if (storageFull) {
    label = 'Storage full';
    icon = <AlertTriangle size={16} aria-hidden="true" />;
  } else if (pending.length && phase === 'syncing') {
    label = 'Syncing...';
    icon = <RefreshCw size={16} aria-hidden="true" className={styles.spin} />;
  } else if (pending.length) {
    label = plural(pending.length, 'unsynced change', 'unsynced changes');
    shortLabel = `${pending.length} unsynced`;
  }

  return (
    <div className={styles.root} role="status" aria-live="polite" aria-label="Sync status">
      {label ? (
        <span
          className={`${styles.pill} ${offline ? styles.offline : storageFull ? styles.full : styles.pending}`}
          title={storageFull ? clientErrorMessages.storage_full : undefined}
        >
          {icon}
          <span className={styles.label} data-short={shortLabel ?? label}>
            {label}
          </span>
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
            {plural(failed.length, 'change failed', 'changes failed')}
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
