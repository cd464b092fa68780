import {
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type ComponentProps,
  type ReactNode,
  type RefObject,
} from 'react';
import { ArrowDown } from 'lucide-react';
import { EmptyState } from '../empty-state';
import { useOnline } from '../../data/hooks';
import { contentTop, messageElement, showFoundMessage } from './found-message';
import { HistoryEdge, type MessageHistory } from './history-edge';
import type { DateGroup } from './message-format';
import styles from './message-list.module.css';

/** Within this distance of the bottom the list follows new messages. */
const followThresholdPx = 120;

/** Whether a message list follows its newest messages, shared by the list and the screen that reads its window. */
export interface ListFollowing {
  /** Whether the reader is at the newest messages (within a few lines), so new ones scroll into view. */
  atBottom: boolean;
  /** Stops following the newest messages: an older message is about to be shown (a search result). */
  stopFollowing: () => void;
  listRef: RefObject<HTMLDivElement | null>;
  atBottomRef: RefObject<boolean>;
  /** Whether the list has been brought to its newest messages once (on open). */
  scrolledOnceRef: RefObject<boolean>;
  setAtBottom: (atBottom: boolean) => void;
}

/** The state of a `MessageList`'s scrolling, held by the screen so that its reads can follow it too. */
export function useListFollowing(): ListFollowing {
  const listRef = useRef<HTMLDivElement>(null);
  const atBottomRef = useRef(true);
  const scrolledOnceRef = useRef(false);
  const [atBottom, setAtBottomState] = useState(true);
  const setAtBottom = useCallback((bottom: boolean) => {
    atBottomRef.current = bottom;
    setAtBottomState(bottom);
  }, []);
  const stopFollowing = useCallback(() => {
    scrolledOnceRef.current = true;
    setAtBottom(false);
  }, [setAtBottom]);
  return { atBottom, stopFollowing, listRef, atBottomRef, scrolledOnceRef, setAtBottom };
}

interface MessageListProps<T extends { id: string }> {
  following: ListFollowing;
  /** The list's accessible name. */
  label: string;
  /** The messages shown, oldest first, in days. */
  groups: readonly DateGroup<T>[];
  /** Renders one message as a list item (`MessageItem`). */
  children: (message: T) => ReactNode;
  /** Whether the newest message is the reader's own: it scrolls into view even while reading older ones. */
  lastIsOwn: boolean;
  /** Changes when the list shows another set of messages (a new search): the list goes to the newest. */
  showing?: string;
  /** A message to scroll to and highlight once it is in the list (a search result); null for none. */
  foundId: string | null;
  /** The message `foundId` has been shown. */
  onFoundShown: () => void;
  loading: boolean;
  /** Shown when there are no messages and no history to load (a `MessageListEmpty`). */
  empty: ReactNode;
  /** Older and newer messages beyond those shown (issue 46): the list's edges load them. */
  history?: MessageHistory | undefined;
}

/**
 * A scrolling list of messages by day. It opens at the newest message and follows new ones while the reader is
 * at the bottom or when they are the reader's own; someone reading older messages gets a "New messages" button
 * instead, and keeps their place when older messages are added above. A found message is scrolled to and
 * highlighted. Where the messages shown end before the first or the newest ones, an edge loads more (`HistoryEdge`).
 */
export function MessageList<T extends { id: string }>({
  following,
  label,
  groups,
  children,
  lastIsOwn,
  showing = '',
  foundId,
  onFoundShown,
  loading,
  empty,
  history,
}: MessageListProps<T>) {
  const { listRef, atBottomRef, scrolledOnceRef, atBottom, setAtBottom } = following;
  const innerRef = useRef<HTMLDivElement>(null);
  const firstId = groups[0]?.messages[0]?.id ?? null;
  const lastId = groups.at(-1)?.messages.at(-1)?.id ?? null;
  const [seenLastId, setSeenLastId] = useState<string | null>(null);

  // Older messages added above keep the reader's place: the message that was first stays where it was.
  const firstPlace = useRef<{ id: string; top: number } | null>(null);
  useLayoutEffect(() => {
    const list = listRef.current;
    if (!list) return;
    const previous = firstPlace.current;
    const previousElement = previous ? messageElement(list, previous.id) : null;
    if (previous && previousElement && previous.id !== firstId && !atBottomRef.current) {
      list.scrollTop += contentTop(list, previousElement) - previous.top;
    }
    const firstElement = firstId === null ? null : messageElement(list, firstId);
    firstPlace.current = firstId !== null && firstElement ? { id: firstId, top: contentTop(list, firstElement) } : null;
  }, [firstId, listRef, atBottomRef]);

  // Newest message in view on open, on another set of messages, on one's own message and on new messages
  // while the reader is at the bottom.
  const previousShowing = useRef(showing);
  useLayoutEffect(() => {
    const list = listRef.current;
    if (!list || lastId === null) return;
    const showingChanged = previousShowing.current !== showing;
    previousShowing.current = showing;
    if (!scrolledOnceRef.current || showingChanged || lastIsOwn || atBottomRef.current) {
      scrolledOnceRef.current = true;
      list.scrollTop = list.scrollHeight;
    }
  }, [lastId, lastIsOwn, showing, listRef, atBottomRef, scrolledOnceRef]);

  // Content that grows later (an image, a long edit, a slow font) keeps a reader who was at the bottom there.
  useEffect(() => {
    const list = listRef.current;
    const inner = innerRef.current;
    if (!list || !inner || typeof ResizeObserver === 'undefined') return undefined;
    const observer = new ResizeObserver(() => {
      if (atBottomRef.current) list.scrollTop = list.scrollHeight;
    });
    observer.observe(inner);
    return () => observer.disconnect();
  }, [listRef, atBottomRef]);

  // A found message is scrolled into view (after the scroll to the newest above) and highlighted, once it is here.
  const stopFollowing = following.stopFollowing;
  useLayoutEffect(() => {
    const list = listRef.current;
    if (foundId === null || !list || !showFoundMessage(list, foundId)) return;
    stopFollowing();
    onFoundShown();
  }, [foundId, groups, listRef, stopFollowing, onFoundShown]);

  const handleScroll = () => {
    const list = listRef.current;
    if (!list) return;
    const bottom = list.scrollHeight - list.scrollTop - list.clientHeight <= followThresholdPx;
    setAtBottom(bottom);
    if (bottom) setSeenLastId(lastId);
  };
  const scrollToNewest = () => {
    listRef.current?.scrollTo({ top: listRef.current.scrollHeight, behavior: 'smooth' });
  };
  const showJump = !atBottom && lastId !== null && lastId !== seenLastId;

  const online = useOnline();
  const older = history?.older ?? 'none';
  const endsBeforeNewest = history?.endsBeforeNewest ?? false;
  // The newest messages stay in view once they are back.
  const showNewest = () => {
    setAtBottom(true);
    history?.showNewest();
  };

  return (
    <div className={styles.listWrap}>
      <div ref={listRef} className={styles.list} role="log" aria-label={label} tabIndex={0} onScroll={handleScroll}>
        <div ref={innerRef} className={styles.listInner}>
          {loading ? (
            <p className={styles.loading} role="status">
              Loading messages...
            </p>
          ) : groups.length === 0 && older === 'none' && !endsBeforeNewest ? (
            empty
          ) : (
            <>
              {history && older !== 'none' && (
                <HistoryEdge
                  side="older"
                  canLoad={online || older === 'device'}
                  load={history.olderLoad}
                  onLoad={history.loadOlder}
                />
              )}
              {groups.map((group) => (
                <section key={group.key} className={styles.day} aria-label={group.label}>
                  <div className={styles.separator}>
                    <span>{group.label}</span>
                  </div>
                  <ul className={styles.messages}>{group.messages.map(children)}</ul>
                </section>
              ))}
              {history && endsBeforeNewest && (
                <HistoryEdge
                  side="newer"
                  canLoad={online}
                  load={history.newerLoad}
                  onLoad={history.loadNewer}
                  onShowNewest={showNewest}
                />
              )}
            </>
          )}
        </div>
      </div>
      {showJump && (
        <button type="button" className={styles.jump} onClick={scrollToNewest}>
          <ArrowDown size={16} aria-hidden="true" />
          New messages
        </button>
      )}
    </div>
  );
}

/** An empty message list's state (no messages yet, none found, none open), filling its place, centred. */
export function MessageListEmpty({
  className,
  ...props
}: Omit<ComponentProps<typeof EmptyState>, 'classNames' | 'variant'> & { className?: string | undefined }) {
  const classNames = useMemo(
    () => ({
      root: `${styles.empty} ${className ?? ''}`,
      icon: styles.emptyIcon,
      title: styles.emptyTitle,
      text: styles.emptyText,
    }),
    [className],
  );
  return <EmptyState {...props} classNames={classNames} />;
}

/** "Alice Johnson is typing..." under a message list, with animated dots; announced politely. */
export function TypingLine({ text }: { text: string | null }) {
  return (
    <div className={styles.typing} aria-live="polite">
      {text && (
        <>
          <span className={styles.typingDots} aria-hidden="true">
            <span />
            <span />
            <span />
          </span>
          {text}
        </>
      )}
    </div>
  );
}
