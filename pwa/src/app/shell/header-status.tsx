import { SyncFreshness } from '../../sync/sync-freshness';
import { SyncStatus } from '../../sync/sync-status';
import styles from './header-status.module.css';

/**
 * The status widgets of the desktop content header and the mobile top bar: offline, syncing, unsynced
 * changes, and how fresh the device's data is. `compact`: the line under the phone's brand, in fewer words.
 */
export function HeaderStatus({ compact = false }: { compact?: boolean }) {
  return (
    <div className={`${styles.status} ${compact ? styles.compact : ''}`} data-testid="header-status">
      <SyncStatus compact={compact} />
      <SyncFreshness compact={compact} />
    </div>
  );
}
