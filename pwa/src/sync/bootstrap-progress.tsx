import { useLayoutEffect, useRef, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { useLocation } from 'react-router-dom';
import { CloudCheck, CloudDownload, X } from 'lucide-react';
import { useWorkspace } from './sync-context';
import styles from './bootstrap-progress.module.css';

const count = new Intl.NumberFormat('en-US');

interface Downloaded {
  total: number;
  /** Where the person was when it ended: the card goes with the next page. */
  pathname: string;
}

/**
 * While this device downloads the workspace (a first sign-in, or once more after an update), how far it is.
 * The bootstrap comes in pages; each page is on screen as it arrives, and a broken link goes on from the last.
 *
 * When it ends, the card stays where it was, the same size, saying so, until the person dismisses it or moves to
 * another page: a card that vanished would move the page up under a pointer about to click.
 */
export function BootstrapProgress() {
  const { db } = useWorkspace();
  const { pathname } = useLocation();
  const state = useLiveQuery(async () => {
    const [cursor, bootstrap] = await Promise.all([db.meta.get('cursor'), db.meta.get('bootstrap')]);
    if (bootstrap?.key === 'bootstrap') return bootstrap.value;
    // Before the first page: nothing pulled yet.
    return cursor === undefined ? { next: null, done: 0, total: 0 } : null;
  }, [db]);
  const [downloading, setDownloading] = useState<{ total: number } | null>(null);
  const [downloaded, setDownloaded] = useState<Downloaded | null>(null);
  // Adjusted while rendering (React's way to follow a changing value): the card never shows a stale state.
  if (state && downloading?.total !== state.total) setDownloading({ total: state.total });
  if (state === null && downloading) {
    setDownloading(null);
    setDownloaded({ total: downloading.total, pathname });
  }
  if (downloaded && downloaded.pathname !== pathname) setDownloaded(null);

  if (state) {
    const known = state.total > 0;
    return (
      <Card
        title="Getting your workspace ready for offline use"
        status={
          known
            ? `${count.format(state.done)} of ${count.format(state.total)} items downloaded`
            : 'Downloading your workspace...'
        }
        progress={known ? { value: state.done, max: state.total } : null}
      />
    );
  }
  if (!downloaded) return null;
  return (
    <Card
      done
      title="Your workspace is ready for offline use"
      status={
        downloaded.total > 0
          ? `All ${count.format(downloaded.total)} items are on this device.`
          : 'Everything is on this device.'
      }
      progress={{ value: 1, max: 1 }}
      onDismiss={(main) => {
        setDownloaded(null);
        // The button goes with the card: the page keeps the focus, not the document's start.
        main?.focus();
      }}
    />
  );
}

function Card({
  title,
  status,
  progress,
  done = false,
  onDismiss,
}: {
  title: string;
  status: string;
  progress: { value: number; max: number } | null;
  done?: boolean;
  onDismiss?: (main: HTMLElement | null) => void;
}) {
  const Icon = done ? CloudCheck : CloudDownload;
  const titleId = done ? 'bootstrap-done-title' : 'bootstrap-progress-title';
  const ref = useRef<HTMLElement>(null);
  const downloadingHeight = useRef(0);
  useLayoutEffect(() => {
    const section = ref.current;
    if (!section) return;
    if (!done) downloadingHeight.current = section.offsetHeight;
    // Finished (the same element), it keeps at least the height it had, before it is painted: nothing below moves.
    else section.style.minHeight = `${downloadingHeight.current}px`;
  }, [done, status]);
  useLayoutEffect(() => {
    const section = ref.current;
    const main = section?.closest('main');
    if (!section || !main) return;
    // Screens one viewport high (Team Chat, Direct Messages) leave the card its room, so their composer stays on
    // screen: they subtract this.
    const leaveRoom = () => {
      const space = section.offsetHeight + parseFloat(getComputedStyle(section).marginBottom);
      main.style.setProperty('--bootstrap-card-space', `${space}px`);
    };
    leaveRoom();
    const observer = new ResizeObserver(leaveRoom);
    observer.observe(section);
    return () => {
      observer.disconnect();
      main.style.removeProperty('--bootstrap-card-space');
    };
  }, []);
  return (
    <section ref={ref} className={styles.root} aria-labelledby={titleId}>
      <Icon className={styles.icon} size={20} aria-hidden="true" />
      <div className={styles.body}>
        <p id={titleId} className={styles.title}>
          {title}
        </p>
        <p className={styles.text} role="status">
          {status}
        </p>
        <progress className={styles.bar} aria-labelledby={titleId} {...(progress ?? {})} />
      </div>
      {onDismiss && (
        <button
          type="button"
          className={styles.dismiss}
          aria-label="Dismiss"
          onClick={(event) => onDismiss(event.currentTarget.closest('main'))}
        >
          <X size={16} aria-hidden="true" />
        </button>
      )}
    </section>
  );
}
