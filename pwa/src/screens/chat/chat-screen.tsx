import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useLiveQuery } from 'dexie-react-hooks';
import { ArrowDown, ArrowUp, MessagesSquare, SearchX, Users, X } from 'lucide-react';
import { SearchField } from '../../components/search-field';
import {
  canModerateChatMessage,
  chatFileAccept,
  mentionFinder,
  teamChatKey,
  uuidv7,
  type Actor,
  type ReactionEmoji,
} from '@office/sync-protocol';
import { useAuth } from '../../app/auth/use-auth';
import { mobileMediaQuery } from '../../app/shell/use-is-mobile';
import { useDialogs } from '../../components/dialogs';
import { EmptyState } from '../../components/empty-state';
import { deleteMessageConfirmation } from '../../app/confirmations';
import { PageHeader } from '../../components/page-header';
import { useNow } from '../../components/use-now';
import { useWhenVisible } from '../../components/use-when-visible';
import { useHasSynced, useMutate, useOnline, useUsers } from '../../data/hooks';
import { avatarOf, countOnline, nameOf } from '../../data/people';
import { usePeople, usePresence } from '../../data/use-people';
import { useQueuedReactions } from '../../data/reaction-hooks';
import { httpHistory, loadHistory } from '../../sync/history';
import { LocalWriteError } from '../../sync/mutate';
import { useWorkspace } from '../../sync/sync-context';
import type { OutboxEntry } from '../../data/db';
import { draftKeys } from '../../data/drafts';
import { groupMessagesByDate } from './chat-format';
import { olderWindowStart } from './chat-window';
import { HistoryEdge } from './history-edge';
import { contentTop, messageElement, showFoundMessage } from './found-message';
import { Composer } from './composer';
import { chatEmojis } from './emojis';
import { toQueuedFiles } from './selected-files';
import { MembersPanel } from './members-panel';
import { MessageDays, TypingLine } from './message-days';
import { MessageItem } from './message-item';
import { typingText } from './typing';
import { useChatWindow, useTypingAnnouncer, useTypingUsers } from './use-chat-data';
import styles from './chat.module.css';
import { failureTexts } from '../../app/failure-messages';

const membersPanelId = 'chat-members';
/** Spec section 8: above the composer, when the server gives no text of its own. */
const uploadFailed = failureTexts.chatUploadFailed;
const sendFailed = (withFiles: boolean): string =>
  withFiles ? uploadFailed : 'Your message could not be saved. Please try again.';
const isChatUpload = (entry: OutboxEntry): boolean => entry.name === 'chat.sendFiles';
/** Within this distance of the bottom the list follows new messages. */
const followThresholdPx = 120;

/** The empty list's sizes (chat.module.css). */
const emptyClasses = {
  root: styles.empty,
  icon: styles.emptyIcon,
  title: styles.emptyTitle,
  text: styles.emptyText,
};

/** Team Chat (/chat): reads only the local database; text sends, edits and deletes work offline. */
export function ChatScreen() {
  const { user, token } = useAuth();
  const { ctx, db } = useWorkspace();
  const mutate = useMutate();
  const { confirm } = useDialogs();
  const hasSynced = useHasSynced();
  const online = useOnline();
  const users = useUsers();
  const now = useNow();
  const selfId = ctx.userId;
  const typing = useTypingUsers(selfId);
  const announcer = useTypingAnnouncer();

  const [search, setSearch] = useState('');
  // The panel starts open where there is room beside the messages, closed on phones where it overlays.
  const [membersOpen, setMembersOpen] = useState(() => !window.matchMedia(mobileMediaQuery).matches);
  const listRef = useRef<HTMLDivElement>(null);
  const atBottomRef = useRef(true);
  const [atBottom, setAtBottom] = useState(true);
  const { chatWindow, loadOlder, loadNewer, showNewest, olderLoad, newerLoad, showFrom } = useChatWindow(
    search,
    atBottom,
  );
  const loadOlderWhenVisible = useWhenVisible(loadOlder);
  const [seenLastId, setSeenLastId] = useState<string | null>(null);

  const usersById = usePeople();
  const queuedReactions = useQueuedReactions('chat.react');
  const presence = usePresence();
  const self = usersById.get(selfId);
  const actor: Actor = { id: selfId, role: self?.role ?? user?.role ?? 'employee' };
  const onlineCount = users ? countOnline(users, presence) : 0;
  // Anyone on the team can be mentioned; the composer offers everyone but the writer.
  const findMentions = useMemo(() => mentionFinder(users ?? []), [users]);
  const mentionables = useMemo(() => (users ?? []).filter((person) => person.id !== selfId), [users, selfId]);

  // The window answers the search it was read for, which lags the search box by one read.
  const shown = useMemo(() => chatWindow?.messages ?? [], [chatWindow]);
  const shownSearch = chatWindow?.search ?? '';
  const groups = useMemo(() => groupMessagesByDate(shown, now), [shown, now]);
  const lastMessage = shown.at(-1);
  const lastId = lastMessage?.id ?? null;
  const lastIsOwn = lastMessage?.userId.id === selfId;

  // Typing names come from the directory when known, so a rename shows at once.
  const typingNames = typing.map((entry) => usersById.get(entry.userId)?.name ?? entry.userName);
  const typingIds = useMemo(() => new Set(typing.map((entry) => entry.userId)), [typing]);
  const typingLine = typingText(typingNames);

  // Older messages added above keep the reader's place: the message that was first stays where it was.
  const firstId = shown[0]?.id ?? null;
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
  }, [firstId]);

  // Newest message in view on open, on a new search, on one's own message and on new messages
  // while the reader is at the bottom. Someone reading older messages gets a "New messages" button instead.
  const previousSearch = useRef(shownSearch);
  const scrolledOnce = useRef(false);
  useLayoutEffect(() => {
    const list = listRef.current;
    if (!list || lastId === null) return;
    const searchChanged = previousSearch.current !== shownSearch;
    previousSearch.current = shownSearch;
    if (!scrolledOnce.current || searchChanged || lastIsOwn || atBottomRef.current) {
      scrolledOnce.current = true;
      list.scrollTop = list.scrollHeight;
    }
  }, [lastId, lastIsOwn, shownSearch]);

  // Content that grows later (a long edit, a slow font) keeps a reader who was at the bottom there.
  const innerRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const list = listRef.current;
    const inner = innerRef.current;
    if (!list || !inner || typeof ResizeObserver === 'undefined') return undefined;
    const observer = new ResizeObserver(() => {
      if (atBottomRef.current) list.scrollTop = list.scrollHeight;
    });
    observer.observe(inner);
    return () => observer.disconnect();
  }, []);

  // `?message=<id>` (a search result) shows that message: the window reaches back to it (with the messages
  // before it for context), the list scrolls it into view and it is highlighted for a moment.
  const [searchParams, setSearchParams] = useSearchParams();
  const messageParam = searchParams.get('message');
  const [foundId, setFoundId] = useState<string | null>(messageParam);
  const [seenMessageParam, setSeenMessageParam] = useState(messageParam);
  if (messageParam !== seenMessageParam) {
    setSeenMessageParam(messageParam);
    if (messageParam !== null) setFoundId(messageParam);
  }
  // Watched, not read once: a link opened while the device's first download runs names a message that may come
  // in a later page, or live. Until it comes, the chat shows its newest messages.
  const found = useLiveQuery(
    async () => (foundId === null ? null : { id: foundId, message: await db.chatMessages.get(foundId) }),
    [db, foundId],
  );
  // A message the device does not hold (older than its window) comes from the server with the page around it.
  const askedAround = useRef<string | null>(null);
  useEffect(() => {
    if (foundId === null || found?.id !== foundId || found.message || !online) return;
    if (askedAround.current === foundId) return;
    askedAround.current = foundId;
    loadHistory(db, httpHistory, { key: teamChatKey, direction: 'around', messageId: foundId }).catch(
      (error: unknown) => console.error('Loading the message failed', error),
    );
  }, [db, found, foundId, online]);
  useEffect(() => {
    const message = found?.id === foundId ? found.message : undefined;
    if (!message) return undefined;
    let current = true;
    olderWindowStart(db, '', message.timestamp)
      .then((start) => {
        if (!current) return;
        // Not following the newest messages, or the window would be cut back to them.
        atBottomRef.current = false;
        setAtBottom(false);
        scrolledOnce.current = true;
        setSearch('');
        showFrom(start);
      })
      .catch((error: unknown) => console.error('Showing the message failed', error));
    return () => {
      current = false;
    };
  }, [db, found, foundId, showFrom]);
  useLayoutEffect(() => {
    const list = listRef.current;
    if (foundId === null || !list || shownSearch !== '' || !showFoundMessage(list, foundId)) return;
    setFoundId(null);
    setSearchParams(
      (params) => {
        const next = new URLSearchParams(params);
        next.delete('message');
        return next;
      },
      { replace: true },
    );
  }, [foundId, shown, shownSearch, setSearchParams]);

  const handleScroll = () => {
    const list = listRef.current;
    if (!list) return;
    const bottom = list.scrollHeight - list.scrollTop - list.clientHeight <= followThresholdPx;
    atBottomRef.current = bottom;
    setAtBottom(bottom);
    if (bottom) setSeenLastId(lastId);
  };
  const scrollToNewest = () => {
    const list = listRef.current;
    if (list) list.scrollTo({ top: list.scrollHeight, behavior: 'smooth' });
  };
  // From a stretch far back (a message reached from search) to the newest messages, which then stay in view.
  const showNewestMessages = () => {
    atBottomRef.current = true;
    setAtBottom(true);
    showNewest();
  };
  const showJump = !atBottom && lastId !== null && lastId !== seenLastId;

  const handleEdit = useCallback(
    async (id: string, text: string): Promise<string | null> => {
      try {
        await mutate('chat.edit', { id, text });
        return null;
      } catch (error) {
        if (error instanceof LocalWriteError) return error.message;
        console.error('Editing the message failed', error);
        return 'Your change could not be saved. Please try again.';
      }
    },
    [mutate],
  );
  const handleSend = useCallback(
    async ({ text, files }: { text: string; files: File[] }) => {
      if (files.length === 0) {
        await mutate('chat.send', { id: uuidv7(), text });
        return;
      }
      await mutate('chat.sendFiles', { id: uuidv7(), text, files: toQueuedFiles(files) });
    },
    [mutate],
  );
  const handleDelete = useCallback(
    (id: string) => {
      void confirm(deleteMessageConfirmation).then(async (confirmed) => {
        if (!confirmed) return;
        await mutate('chat.delete', { id }).catch((error: unknown) => {
          // Spec section 8: failures other than those listed are only logged.
          console.error('Deleting the message failed', error);
        });
      });
    },
    [confirm, mutate],
  );

  const handleReact = useCallback(
    (id: string, emoji: ReactionEmoji, on: boolean) => {
      mutate('chat.react', { id, emoji, on }).catch((error: unknown) => {
        console.error('Reacting to the message failed', error);
      });
    },
    [mutate],
  );

  // A new device shows its first download as loading, not as an empty chat.
  const loading = chatWindow === undefined || (chatWindow.chatIsEmpty && hasSynced !== true && online);

  const closeMembers = useCallback(() => setMembersOpen(false), []);

  return (
    <div className={styles.page}>
      <PageHeader
        title="Team Chat"
        subtitle={
          <span className={styles.onlineCount}>
            <span className={styles.onlineDot} aria-hidden="true" />
            {onlineCount} online
          </span>
        }
      />

      <div className={`${styles.card} ${membersOpen ? styles.withMembers : ''}`}>
        <div className={styles.main}>
          <div className={styles.toolbar}>
            <SearchField placeholder="Search messages..." value={search} onValueChange={setSearch} />
            <button
              type="button"
              className={styles.membersToggle}
              aria-label={membersOpen ? 'Hide team members' : 'Show team members'}
              title={membersOpen ? 'Hide team members' : 'Show team members'}
              aria-expanded={membersOpen}
              aria-controls={membersPanelId}
              onClick={() => setMembersOpen((open) => !open)}
            >
              <Users size={20} aria-hidden="true" />
              {users && <span className={styles.membersToggleCount}>{users.length}</span>}
            </button>
          </div>

          <div className={styles.listWrap}>
            <div
              ref={listRef}
              className={styles.list}
              role="log"
              aria-label="Team chat messages"
              tabIndex={0}
              onScroll={handleScroll}
            >
              <div ref={innerRef} className={styles.listInner}>
                {loading ? (
                  <p className={styles.loading} role="status">
                    Loading messages...
                  </p>
                ) : chatWindow.chatIsEmpty ? (
                  <EmptyState
                    icon={<MessagesSquare size={30} />}
                    title="Welcome to Team Chat!"
                    text="Start a conversation with your team members."
                    classNames={emptyClasses}
                  />
                ) : shown.length === 0 ? (
                  <EmptyState
                    icon={<SearchX size={30} />}
                    title="No messages found"
                    text={<>No messages match &ldquo;{shownSearch}&rdquo;.</>}
                    classNames={emptyClasses}
                  >
                    <button type="button" className={styles.clearSearch} onClick={() => setSearch('')}>
                      <X size={14} aria-hidden="true" />
                      Clear search
                    </button>
                  </EmptyState>
                ) : (
                  <>
                    {chatWindow.hasOlder ? (
                      <div ref={loadOlderWhenVisible} className={styles.older}>
                        <button type="button" className={styles.loadOlder} onClick={loadOlder}>
                          <ArrowUp size={14} aria-hidden="true" />
                          Load older messages
                        </button>
                      </div>
                    ) : (
                      chatWindow.olderOnServer && (
                        <HistoryEdge side="older" online={online} load={olderLoad} onLoad={loadOlder} />
                      )
                    )}
                    <MessageDays groups={groups}>
                      {(message) => {
                        return (
                          <MessageItem
                            key={message.id}
                            message={message}
                            authorName={nameOf(usersById, { id: message.userId.id, name: message.userName })}
                            authorAvatar={avatarOf(usersById, message.userId.id, message.userAvatar)}
                            isOwn={message.userId.id === selfId}
                            canModerate={canModerateChatMessage(actor, message)}
                            now={now}
                            search={shownSearch}
                            findMentions={findMentions}
                            selfId={selfId}
                            token={token}
                            onEdit={handleEdit}
                            onDelete={handleDelete}
                            people={usersById}
                            queuedReactions={queuedReactions.get(message.id)}
                            onReact={handleReact}
                          />
                        );
                      }}
                    </MessageDays>
                    {chatWindow.endsBeforeNewest && (
                      <HistoryEdge
                        side="newer"
                        online={online}
                        load={newerLoad}
                        onLoad={loadNewer}
                        onShowNewest={showNewestMessages}
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

          <TypingLine text={typingLine} />

          <Composer
            draftKey={draftKeys.teamChat}
            announcer={announcer}
            placeholder="Type your message..."
            accept={chatFileAccept}
            emojis={chatEmojis}
            mentionables={mentionables}
            onSend={handleSend}
            failureText={sendFailed}
            isRefusedUpload={isChatUpload}
            refusedUploadText={uploadFailed}
          />
        </div>

        {membersOpen && (
          <>
            {/* On phones the panel overlays the chat; a tap beside it closes it (the panel has its own close button). */}
            <div className={styles.membersBackdrop} aria-hidden="true" onClick={closeMembers} />
            <MembersPanel
              id={membersPanelId}
              users={users ?? []}
              presence={presence}
              selfId={selfId}
              typingIds={typingIds}
              onClose={closeMembers}
            />
          </>
        )}
      </div>
    </div>
  );
}
