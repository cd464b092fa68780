import { useState } from 'react';
import { AlertTriangle, X } from 'lucide-react';
import { useOutbox } from '../../data/hooks';
import { discardFailed, retryFailed } from '../../sync/outbox-actions';
import { useWorkspace } from '../../sync/sync-context';
import { refusalMessage } from '../failure-messages';
import styles from './refused-write-alerts.module.css';

/** How many refusals show at once; the header's "N changes failed" list holds them all. */
const visibleAlerts = 3;

/**
 * Wherever the person is in the app: an alert for each queued write the server refused, in the spec's
 * words, with Retry and Discard. Closing an alert keeps the write in the failed list of the header.
 */
export function RefusedWriteAlerts() {
  const { db, ctx, engine } = useWorkspace();
  const outbox = useOutbox() ?? [];
  const [closed, setClosed] = useState<ReadonlySet<number>>(new Set());
  const shown = outbox.filter((entry) => entry.status === 'failed' && !closed.has(entry.id)).slice(-visibleAlerts);
  if (shown.length === 0) return null;

  const close = (id: number): void => setClosed((current) => new Set(current).add(id));

  return (
    <section className={styles.stack} aria-label="Refused changes">
      {shown.map((entry) => (
        <div key={entry.id} className={styles.alert} role="alert">
          <AlertTriangle size={18} aria-hidden="true" className={styles.icon} />
          <p className={styles.text}>{refusalMessage(entry.name, entry.error?.message)}</p>
          <div className={styles.actions}>
            <button
              type="button"
              className={styles.action}
              onClick={() => void retryFailed(db, ctx, entry.id).then(engine.kick)}
            >
              Retry
            </button>
            <button type="button" className={styles.action} onClick={() => void discardFailed(db, entry.id)}>
              Discard
            </button>
          </div>
          <button type="button" className={styles.close} aria-label="Close alert" onClick={() => close(entry.id)}>
            <X size={16} aria-hidden="true" />
          </button>
        </div>
      ))}
    </section>
  );
}
