import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { api } from '../../api/http';
import { teamChatKey } from '@office/sync-protocol';
import { useOnline, useSyncState } from '../../data/hooks';
import { httpHistory, loadHistory, markHistoryViewed, type HistoryLoad } from '../../sync/history';
import { useWorkspace } from '../../sync/sync-context';
import type { MessageHistory } from '../../components/messages/history-edge';
import { olderWindowStart, readChatWindow, type ChatWindow } from './chat-window';
import { TypingAnnouncer } from './typing-announcer';
import { addTypingEntry, expireTypingEntries, removeTypingEntry, typingCheckMs, type TypingEntry } from './typing';

/** The team chat window the screen shows, and how to widen it. */
export interface ChatWindowState {
  /** Undefined until the first read; while a new search is read, the previous search's window. */
  chatWindow: ChatWindow | undefined;
  /**
   * The window's edges. Its `loadOlder` adds the next `chatWindowSize` older (matching) messages: from the device,
   * or when it holds no older ones, a page from the server while online; repeated calls before they arrive add
   * them once.
   */
  history: MessageHistory | undefined;
  /** Widens the window without a search back to `start` at least (a message reached from search). */
  showFrom: (start: string) => void;
}

/**
 * The newest team chat messages (those matching `search` while one is typed), widened back in time
 * on request. The window's start is kept once read, so new messages join it instead of pushing the
 * oldest out under a reader; `following` says the reader is at the newest message.
 */
export function useChatWindow(search: string, following: boolean): ChatWindowState {
  const { db } = useWorkspace();
  const online = useOnline();
  const needle = search.trim();
  const [anchor, setAnchor] = useState<{ search: string; since: string } | null>(null);
  const since = anchor?.search === needle ? anchor.since : null;
  const chatWindow = useLiveQuery(() => readChatWindow(db, needle, since, following), [db, needle, since, following]);
  const [olderLoad, setOlderLoad] = useState<HistoryLoad>('idle');
  const [newerLoad, setNewerLoad] = useState<HistoryLoad>('idle');

  // Keep the start the current read chose (the newest window's, or a cut-back one) for the reads after it.
  // Not while a download runs under a reader at the newest message: a new device's first sync brings
  // the whole history, which must not join the window.
  const downloading = useSyncState().phase === 'syncing' && following;
  const isCurrent = chatWindow !== undefined && chatWindow.search === needle && chatWindow.requestedSince === since;
  if (isCurrent && !downloading && chatWindow.since !== since) setAnchor({ search: needle, since: chatWindow.since });

  const requestedFrom = useRef<string | null>(null);
  const loadOlder = useCallback(() => {
    if (!isCurrent || requestedFrom.current === chatWindow.since) return;
    const fromServer = !chatWindow.hasOlder && chatWindow.olderOnServer;
    if (!chatWindow.hasOlder && !(fromServer && online)) return;
    const { search: windowSearch, since: windowSince } = chatWindow;
    requestedFrom.current = windowSince;
    if (fromServer) setOlderLoad('loading');
    (fromServer
      ? loadHistory(db, httpHistory, { key: teamChatKey, direction: 'older', time: windowSince })
      : markHistoryViewed(db, teamChatKey)
    )
      .then(() => olderWindowStart(db, windowSearch, windowSince))
      .then((start) => {
        setOlderLoad('idle');
        // Nothing older after all (the server's beginning): the window stays, and says so.
        if (start === windowSince) requestedFrom.current = null;
        setAnchor({ search: windowSearch, since: start });
      })
      .catch((error: unknown) => {
        requestedFrom.current = null;
        if (fromServer) setOlderLoad('failed');
        console.error('Reading older chat messages failed', error);
      });
  }, [db, isCurrent, chatWindow, online]);

  const requestedAfter = useRef<string | null>(null);
  const loadNewer = useCallback(() => {
    const last = chatWindow?.messages.at(-1);
    if (!isCurrent || !chatWindow.endsBeforeNewest || !online || !last) return;
    if (requestedAfter.current === last.id) return;
    requestedAfter.current = last.id;
    setNewerLoad('loading');
    loadHistory(db, httpHistory, { key: teamChatKey, direction: 'newer', time: last.timestamp })
      .then(() => {
        requestedAfter.current = null;
        setNewerLoad('idle');
      })
      .catch((error: unknown) => {
        requestedAfter.current = null;
        setNewerLoad('failed');
        console.error('Reading newer chat messages failed', error);
      });
  }, [db, isCurrent, chatWindow, online]);

  const showNewest = useCallback(() => setAnchor(null), []);

  const showFrom = useCallback(
    (start: string) =>
      setAnchor((current) =>
        current?.search === '' && current.since <= start ? current : { search: '', since: start },
      ),
    [],
  );

  const history = useMemo<MessageHistory | undefined>(
    () =>
      chatWindow && {
        older: chatWindow.hasOlder ? 'device' : chatWindow.olderOnServer ? 'server' : 'none',
        endsBeforeNewest: chatWindow.endsBeforeNewest,
        olderLoad,
        newerLoad,
        loadOlder,
        loadNewer,
        showNewest,
      },
    [chatWindow, olderLoad, newerLoad, loadOlder, loadNewer, showNewest],
  );

  return { chatWindow, history, showFrom };
}

/**
 * Who is typing in the team chat (conversation null) or one conversation, from the socket's `user-typing`
 * and `stop-typing`. Entries expire 5 s after their last refresh, checked every second; the viewer's own never show.
 */
export function useTypingUsers(selfId: string, conversationId: string | null = null): readonly TypingEntry[] {
  const { socket } = useWorkspace();
  const [entries, setEntries] = useState<readonly TypingEntry[]>([]);

  useEffect(() => {
    const handleTyping = (event: { userId: string; userName: string; conversationId: string | null }) => {
      if (event.conversationId !== conversationId) return;
      setEntries((current) => addTypingEntry(current, event, Date.now(), selfId));
    };
    const handleStop = (event: { userId: string; conversationId: string | null }) => {
      if (event.conversationId !== conversationId) return;
      setEntries((current) => removeTypingEntry(current, event.userId));
    };
    socket.on('user-typing', handleTyping);
    socket.on('stop-typing', handleStop);
    const timer = window.setInterval(
      () => setEntries((current) => expireTypingEntries(current, Date.now())),
      typingCheckMs,
    );
    return () => {
      socket.off('user-typing', handleTyping);
      socket.off('stop-typing', handleStop);
      window.clearInterval(timer);
    };
  }, [socket, selfId, conversationId]);

  return entries;
}

/** Announces this user's typing to the team (fire-and-forget); announces the stop when the screen closes. */
export function useTypingAnnouncer(): TypingAnnouncer {
  const [announcer] = useState(
    () =>
      new TypingAnnouncer((isTyping) => {
        // Typing is a hint for people online right now: nothing to queue while offline.
        if (!navigator.onLine) return;
        api.post('/messages/typing', { isTyping }).catch(() => undefined);
      }),
  );
  useEffect(() => () => announcer.stop(), [announcer]);
  return announcer;
}
