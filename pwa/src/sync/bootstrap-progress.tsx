import { useLiveQuery } from 'dexie-react-hooks';
import { CloudDownload } from 'lucide-react';
import { useWorkspace } from './sync-context';
import styles from './bootstrap-progress.module.css';

const count = new Intl.NumberFormat('en-US');

/**
 * While this device downloads the workspace (a first sign-in, or once more after an update), how far it is.
 * The bootstrap comes in pages; each page is on screen as it arrives, and a broken link goes on from the last.
 */
export function BootstrapProgress() {
  const { db } = useWorkspace();
  const state = useLiveQuery(async () => {
    const [cursor, bootstrap] = await Promise.all([db.meta.get('cursor'), db.meta.get('bootstrap')]);
    if (bootstrap?.key === 'bootstrap') return bootstrap.value;
    // Before the first page: nothing pulled yet.
    return cursor === undefined ? { next: null, done: 0, total: 0 } : null;
  }, [db]);
  if (!state) return null;
  const known = state.total > 0;
  return (
    <section className={styles.root} aria-labelledby="bootstrap-progress-title">
      <CloudDownload className={styles.icon} size={20} aria-hidden="true" />
      <div className={styles.body}>
        <p id="bootstrap-progress-title" className={styles.title}>
          Getting your workspace ready for offline use
        </p>
        <p className={styles.text} role="status">
          {known
            ? `${count.format(state.done)} of ${count.format(state.total)} items downloaded`
            : 'Downloading your workspace...'}
        </p>
        <progress
          className={styles.bar}
          aria-labelledby="bootstrap-progress-title"
          {...(known ? { value: state.done, max: state.total } : {})}
        />
      </div>
    </section>
  );
}
