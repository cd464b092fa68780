import { useRef, useState } from 'react';
import { useRegisterSW } from 'virtual:pwa-register/react';
import { RefreshCw } from 'lucide-react';
import { useClientOutdated } from './client-outdated';
import styles from './update-prompt.module.css';

/**
 * Registers the service worker and offers Reload when a new version is waiting, or when the server has said
 * this version no longer speaks its protocol. Reload activates the waiting worker (asking for one first if
 * none has arrived yet); the outbox lives in IndexedDB, so queued writes survive it and sync afterwards.
 */
export function UpdatePrompt() {
  const registration = useRef<ServiceWorkerRegistration | undefined>(undefined);
  const {
    needRefresh: [needRefresh, setNeedRefresh],
    updateServiceWorker,
  } = useRegisterSW({
    onRegisteredSW: (_url, registered) => {
      registration.current = registered;
    },
  });
  const outdated = useClientOutdated();
  const [dismissed, setDismissed] = useState(false);
  if (!needRefresh && !(outdated && !dismissed)) return null;

  const handleReload = async () => {
    if (needRefresh) {
      await updateServiceWorker(true);
      return;
    }
    // The server moved on before this page heard of the new worker: look for it, then take it or simply reload.
    const current = registration.current;
    await current?.update().catch(() => undefined);
    if (current?.waiting) await updateServiceWorker(true);
    else window.location.reload();
  };
  const handleLater = () => {
    setNeedRefresh(false);
    setDismissed(true);
  };

  return (
    <div className={styles.toast} role="alert">
      <RefreshCw size={18} aria-hidden="true" />
      <span className={styles.message}>A new version is available</span>
      <button type="button" className={styles.primary} onClick={() => void handleReload()}>
        Reload
      </button>
      <button type="button" className={styles.secondary} onClick={handleLater}>
        Later
      </button>
    </div>
  );
}
