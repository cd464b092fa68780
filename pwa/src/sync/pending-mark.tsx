import { Clock } from 'lucide-react';
import styles from './sync-status.module.css';

/** The clock mark on anything written on this device and not yet confirmed by the server. */
export function PendingMark() {
  return (
    <span
      className={styles.pendingMark}
      role="img"
      aria-label="Pending sync"
      title="Saved on this device, waiting to sync"
    >
      <Clock size={14} aria-hidden="true" />
    </span>
  );
}
