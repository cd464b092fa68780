import { ArrowDown, ArrowUp, CloudOff, RotateCw } from 'lucide-react';
import { useWhenVisible } from '../use-when-visible';
import type { HistoryLoad } from '../../sync/history';
import styles from './history-edge.module.css';

/** Issue 46: what a list says where the device's history ends and the server's begins. */
export const historyEdgeTexts = {
  offlineOlder: 'Older messages are not saved on this device. Connect to the internet to load them.',
  loadingOlder: 'Loading older messages...',
  loadingNewer: 'Loading newer messages...',
  failedOlder: 'Older messages could not be loaded.',
  failedNewer: 'Newer messages could not be loaded.',
} as const;

/**
 * What a message list shows of its history and how it reaches for more (issue 46): Team Chat's window and a
 * conversation's stretch each answer it, and `MessageList` draws its edges from it.
 */
export interface MessageHistory {
  /** Older messages than those shown: none, on the device (they load offline too), or only on the server. */
  older: 'none' | 'device' | 'server';
  /** The stretch shown ends before the newest messages (a message reached from search, far back). */
  endsBeforeNewest: boolean;
  /** How the last load of older, and of newer, messages from the server went. */
  olderLoad: HistoryLoad;
  newerLoad: HistoryLoad;
  loadOlder: () => void;
  /** The page after a stretch that ends before the newest messages, from the server. */
  loadNewer: () => void;
  /** Back to the newest messages, which the device holds offline too. */
  showNewest: () => void;
}

/** What the older side of an edge says; a message list's by default, a task list gives its own. */
export interface OlderEdgeTexts {
  offline: string;
  loading: string;
  failed: string;
  load: string;
}

const olderMessagesTexts: OlderEdgeTexts = {
  offline: historyEdgeTexts.offlineOlder,
  loading: historyEdgeTexts.loadingOlder,
  failed: historyEdgeTexts.failedOlder,
  load: 'Load older messages',
};

interface HistoryEdgeProps {
  /** Above the oldest message shown, or below the newest one of a stretch that ends before now. */
  side: 'older' | 'newer';
  /** Whether the next page can be read now: online, or older messages the device holds. */
  canLoad: boolean;
  load: HistoryLoad;
  /** Reads the next page; called when the edge scrolls into view too. */
  onLoad: () => void;
  /** Newer side: back to the newest messages. */
  onShowNewest?: () => void;
  /** What the older side says (a message list's texts without it). */
  olderTexts?: OlderEdgeTexts;
  /** Older items lie below the list (a task list, newest first), not above it as in a conversation. */
  olderBelow?: boolean;
}

/**
 * The edge of a message list where the device holds no more: the next page loads as it scrolls into view (or
 * with the button); offline, a line says older messages need a connection, never a fake beginning.
 */
export function HistoryEdge({
  side,
  canLoad,
  load,
  onLoad,
  onShowNewest,
  olderTexts = olderMessagesTexts,
  olderBelow = false,
}: HistoryEdgeProps) {
  const older = side === 'older';
  const OlderArrow = olderBelow ? ArrowDown : ArrowUp;
  const loadWhenVisible = useWhenVisible(canLoad && load === 'idle' ? onLoad : noop);
  if (older && !canLoad)
    return (
      <p className={styles.line} role="status">
        <CloudOff size={14} aria-hidden="true" />
        {olderTexts.offline}
      </p>
    );
  return (
    <div ref={loadWhenVisible} className={styles.edge}>
      {load === 'loading' ? (
        <p className={styles.line} role="status">
          {older ? olderTexts.loading : historyEdgeTexts.loadingNewer}
        </p>
      ) : load === 'failed' ? (
        <p className={styles.line} role="alert">
          {older ? olderTexts.failed : historyEdgeTexts.failedNewer}
          <button type="button" className={styles.button} onClick={onLoad}>
            <RotateCw size={14} aria-hidden="true" />
            Try again
          </button>
        </p>
      ) : canLoad ? (
        <button type="button" className={styles.button} onClick={onLoad}>
          {older ? <OlderArrow size={14} aria-hidden="true" /> : <ArrowDown size={14} aria-hidden="true" />}
          {older ? olderTexts.load : 'Load newer messages'}
        </button>
      ) : null}
      {!older && onShowNewest && (
        <button type="button" className={styles.button} onClick={onShowNewest}>
          <ArrowDown size={14} aria-hidden="true" />
          Show newest messages
        </button>
      )}
    </div>
  );
}

function noop(): void {}
