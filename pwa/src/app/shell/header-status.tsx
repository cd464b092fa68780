import { SyncFreshness } from '../../sync/sync-freshness';
import { SyncStatus } from '../../sync/sync-status';
import styles from './header-status.module.css';

/**
 * The status widgets of the desktop content header and the mobile top bar: offline, syncing, unsynced
 * changes, and how fresh the device's data is.
 */
export function HeaderStatus() {
  return (
    <div className={styles.status} data-testid="header-status">
      <SyncStatus />
      <SyncFreshness />
    </div>
  );
}
