import { useRegisterSW } from 'virtual:pwa-register/react';
import { RefreshCw } from 'lucide-react';
import styles from './update-prompt.module.css';

/** Registers the service worker and offers Reload when a new version is waiting. */
export function UpdatePrompt() {
  const {
    needRefresh: [needRefresh, setNeedRefresh],
    updateServiceWorker,
  } = useRegisterSW();
  if (!needRefresh) return null;
  return (
    <div className={styles.toast} role="alert">
      <RefreshCw size={18} aria-hidden="true" />
      <span>A new version is available</span>
      <button type="button" className={styles.primary} onClick={() => void updateServiceWorker(true)}>
        Reload
      </button>
      <button type="button" className={styles.secondary} onClick={() => setNeedRefresh(false)}>
        Later
      </button>
    </div>
  );
}
