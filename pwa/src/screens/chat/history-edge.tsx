import { ArrowDown, ArrowUp, CloudOff, RotateCw } from 'lucide-react';
import { useWhenVisible } from '../../components/use-when-visible';
import type { HistoryLoad } from '../../sync/history';
import styles from './chat.module.css';

/** Issue 46: what a list says where the device's history ends and the server's begins. */
export const historyEdgeTexts = {
  offlineOlder: 'Older messages are not saved on this device. Connect to the internet to load them.',
  loadingOlder: 'Loading older messages...',
  loadingNewer: 'Loading newer messages...',
  failedOlder: 'Older messages could not be loaded.',
  failedNewer: 'Newer messages could not be loaded.',
} as const;

interface HistoryEdgeProps {
  /** Above the oldest message shown, or below the newest one of a stretch that ends before now. */
  side: 'older' | 'newer';
  online: boolean;
  load: HistoryLoad;
  /** Asks the server for the next page; called when the edge scrolls into view too. */
  onLoad: () => void;
  /** Newer side: back to the newest messages, which the device holds offline too. */
  onShowNewest?: () => void;
}

/**
 * The edge of a message list where the device holds no more: online, the next page loads as it scrolls into view
 * (or with the button); offline, a line says older messages need a connection, never a fake beginning.
 */
export function HistoryEdge({ side, online, load, onLoad, onShowNewest }: HistoryEdgeProps) {
  const older = side === 'older';
  const loadWhenVisible = useWhenVisible(online && load === 'idle' ? onLoad : noop);
  if (older && !online)
    return (
      <p className={styles.historyEdge} role="status">
        <CloudOff size={14} aria-hidden="true" />
        {historyEdgeTexts.offlineOlder}
      </p>
    );
  return (
    <div ref={loadWhenVisible} className={styles.older}>
      {load === 'loading' ? (
        <p className={styles.historyEdge} role="status">
          {older ? historyEdgeTexts.loadingOlder : historyEdgeTexts.loadingNewer}
        </p>
      ) : load === 'failed' ? (
        <p className={styles.historyEdge} role="alert">
          {older ? historyEdgeTexts.failedOlder : historyEdgeTexts.failedNewer}
          <button type="button" className={styles.loadOlder} onClick={onLoad}>
            <RotateCw size={14} aria-hidden="true" />
            Try again
          </button>
        </p>
      ) : online ? (
        <button type="button" className={styles.loadOlder} onClick={onLoad}>
          {older ? <ArrowUp size={14} aria-hidden="true" /> : <ArrowDown size={14} aria-hidden="true" />}
          {older ? 'Load older messages' : 'Load newer messages'}
        </button>
      ) : null}
      {!older && onShowNewest && (
        <button type="button" className={styles.loadOlder} onClick={onShowNewest}>
          <ArrowDown size={14} aria-hidden="true" />
          Show newest messages
        </button>
      )}
    </div>
  );
}

function noop(): void {}
