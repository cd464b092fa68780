import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { ArrowLeft, CircleAlert, MessageCircle } from 'lucide-react';
import {
  directFileAccept,
  isUnreadBy,
  mentionFinder,
  readByOf,
  uuidv7,
  type ReactionEmoji,
} from '@office/sync-protocol';
import type { LocalDirectMessage, LocalUser, OutboxEntry } from '../../data/db';
import { useConversationWindow, useMarkConversationRead, type ConversationSummary } from '../../data/direct-hooks';
import { useMutate, useOnline, useOutbox } from '../../data/hooks';
import { useWorkspace } from '../../sync/sync-context';
import { httpHistory, loadHistory, markHistoryViewed, type HistoryLoad, type HistoryRequest } from '../../sync/history';
import { HistoryEdge } from '../chat/history-edge';
import { useDialogs } from '../../components/dialogs';
import { deleteMessageConfirmation } from '../../app/confirmations';
import { draftKeys } from '../../data/drafts';
import { whoIsWho } from '../../data/people';
import { useQueuedReactions } from '../../data/reaction-hooks';
import { usePresence } from '../../data/use-people';
import { EmptyState } from '../../components/empty-state';
import { UserAvatar } from '../../components/user-avatar';
import { groupByDate } from '../chat/chat-format';
import { MessageDays, TypingLine } from '../chat/message-days';
import { Composer } from '../chat/composer';
import { chatEmojis } from '../chat/emojis';
import { toQueuedFiles } from '../chat/selected-files';
import { typingText } from '../chat/typing';
import { useTypingUsers } from '../chat/use-chat-data';
import { contentTop, messageElement, showFoundMessage } from '../chat/found-message';
import { PresenceText } from '../employees/presence-text';
import { isDirectFile } from './direct-format';
import { DirectMessageItem } from './direct-message-item';
import { useConversationRoom, useConversationTypingAnnouncer } from './use-conversation-realtime';
import chatStyles from '../chat/chat.module.css';
import styles from './direct-messages.module.css';
import { failureTexts } from '../../app/failure-messages';

/** Spec section 2: the direct-message picker has 50 emojis. */
const directEmojis = chatEmojis.slice(0, 50);
/** Spec section 8. */
const sendFailed = failureTexts.sendMessageError;
const deleteFailed = failureTexts.deleteMessageFailed;
/** Whether the outbox entry is the still-unsent start of the conversation with `otherId`. */
const isStartOf = (entry: OutboxEntry, otherId: string): boolean =>
  entry.name === 'dm.start' &&
  entry.status === 'pending' &&
  String((entry.args as { recipientId?: unknown }).recipientId).trim() === otherId;
/** Within this distance of the bottom the list follows new messages. */
const followThresholdPx = 120;

interface ConversationViewProps {
  summary: ConversationSummary;
  selfId: string;
  /** The directory, for fresher names and avatars than the conversation carries. */
  usersById: ReadonlyMap<string, LocalUser>;
  token: string | null;
  now: Date;
  /** A message to show (a search result), with the navigation that asked for it: each asks once. */
  found: { messageId: string; key: string } | null;
  /** On phones: back to the conversation list. */
  onBack: (() => void) | null;
}

/**
 * One open conversation: its header, messages, who is typing and the composer. Keyed by the conversation
 * by its parent, so typing entries and the scroll position start afresh for each one; the draft is the
 * conversation's own, kept in IndexedDB.
 */
export function ConversationView({ summary, selfId, usersById, token, now, found, onBack }: ConversationViewProps) {
  const { conversation, other } = summary;
  const conversationId = conversation.id;
  const mutate = useMutate();
  const { confirm } = useDialogs();
  const markRead = useMarkConversationRead();
  const { db } = useWorkspace();
  const online = useOnline();
  // A message reached from search is shown with the stretch the device holds around it (it may lie far back),
  // until the reader asks for the newest messages again.
  const foundMessage = useLiveQuery(
    async () => (found ? ((await db.directMessages.get(found.messageId)) ?? null) : null),
    [db, found?.messageId],
  );
  const [leftFound, setLeftFound] = useState<string | null>(null);
  const focus = found && foundMessage && leftFound !== found.key ? foundMessage.createdAt : null;
  const conversationWindow = useConversationWindow(conversationId, focus);
  const messages = conversationWindow?.messages;
  const atNewest = conversationWindow !== undefined && !conversationWindow.endsBeforeNewest;
  const [olderLoad, setOlderLoad] = useState<HistoryLoad>('idle');
  const [newerLoad, setNewerLoad] = useState<HistoryLoad>('idle');
  // Until its dm.start reaches the server, the conversation has no room there.
  const outbox = useOutbox();
  const live = outbox !== undefined && !outbox.some((entry) => isStartOf(entry, other.id));
  useConversationRoom(conversationId, live);
  const announcer = useConversationTypingAnnouncer(conversationId, live);
  const typing = useTypingUsers(selfId, conversationId);
  const [deleteError, setDeleteError] = useState<string | null>(null);

  const otherUser = usersById.get(other.id);
  // The other participant's real presence, as the members panel, Team Members and Employees show it; someone
  // the directory no longer holds is offline.
  const presence = usePresence();
  const otherPresence = otherUser ? presence(otherUser) : 'offline';
  const otherName = otherUser?.name ?? other.name;
  const otherAvatar = otherUser ? otherUser.avatar : other.avatar;
  // Only the participants can be mentioned in a conversation; the composer offers the other one.
  const selfName = usersById.get(selfId)?.name ?? '';
  const otherWho = otherUser ? whoIsWho(otherUser) : '';
  const mentionables = useMemo(
    () => [
      {
        id: other.id,
        name: otherName,
        avatar: otherAvatar,
        email: otherUser?.email,
        department: otherUser?.department,
      },
    ],
    [other.id, otherName, otherAvatar, otherUser?.email, otherUser?.department],
  );
  const findMentions = useMemo(
    () => mentionFinder([...mentionables, { id: selfId, name: selfName }]),
    [mentionables, selfId, selfName],
  );
  const typingLine = typingText(typing.map((entry) => usersById.get(entry.userId)?.name ?? entry.userName));

  // An open conversation stays read: what arrives while it is open is marked read at once.
  const newestUnread = messages?.findLast((message) => isUnreadBy(message, conversation, selfId))?.id ?? null;
  const markedUnread = useRef<string | null>(null);
  useEffect(() => {
    if (!messages || !atNewest || newestUnread === null || newestUnread === markedUnread.current) return;
    markedUnread.current = newestUnread;
    markRead(conversation, messages).catch((error: unknown) => {
      markedUnread.current = null;
      console.error('Marking the conversation read failed', error);
    });
  }, [conversation, messages, atNewest, newestUnread, markRead]);

  const groups = useMemo(() => groupByDate(messages ?? [], (message) => message.createdAt, now), [messages, now]);

  // The newest message is in view on open, on one's own message, and on new ones while at the bottom.
  const listRef = useRef<HTMLDivElement>(null);
  const innerRef = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const last = messages?.at(-1);
  const lastId = last?.id ?? null;
  const lastIsOwn = last?.sender.id === selfId;
  useLayoutEffect(() => {
    const list = listRef.current;
    if (list && lastId !== null && (atBottom.current || lastIsOwn)) list.scrollTop = list.scrollHeight;
  }, [lastId, lastIsOwn]);
  // Content that grows later (an image, a slow font) keeps a reader who was at the bottom there.
  useEffect(() => {
    const list = listRef.current;
    const inner = innerRef.current;
    if (!list || !inner || typeof ResizeObserver === 'undefined') return undefined;
    const observer = new ResizeObserver(() => {
      if (atBottom.current) list.scrollTop = list.scrollHeight;
    });
    observer.observe(inner);
    return () => observer.disconnect();
  }, []);
  // Older messages added above keep the reader's place: the message that was first stays where it was.
  const firstId = messages?.[0]?.id ?? null;
  const firstPlace = useRef<{ id: string; top: number } | null>(null);
  useLayoutEffect(() => {
    const list = listRef.current;
    if (!list) return;
    const previous = firstPlace.current;
    const previousElement = previous ? messageElement(list, previous.id) : null;
    if (previous && previousElement && previous.id !== firstId && !atBottom.current)
      list.scrollTop += contentTop(list, previousElement) - previous.top;
    const firstElement = firstId === null ? null : messageElement(list, firstId);
    firstPlace.current = firstId !== null && firstElement ? { id: firstId, top: contentTop(list, firstElement) } : null;
  }, [firstId]);

  // Older history on demand (issue 46): a page before (or after) the stretch shown, from the server.
  const loading = useRef(false);
  const loadPage = useCallback(
    (direction: 'older' | 'newer') => {
      const edge = direction === 'older' ? messages?.find((message) => message.pending !== 1) : messages?.at(-1);
      if (!edge || loading.current || !online) return;
      loading.current = true;
      const setLoad = direction === 'older' ? setOlderLoad : setNewerLoad;
      setLoad('loading');
      loadHistory(db, httpHistory, { key: conversationId, direction, time: edge.createdAt })
        .then(() => setLoad('idle'))
        .catch((error: unknown) => {
          setLoad('failed');
          console.error('Reading more messages failed', error);
        })
        .finally(() => {
          loading.current = false;
        });
    },
    [db, conversationId, messages, online],
  );
  const loadOlder = useCallback(() => loadPage('older'), [loadPage]);
  const loadNewer = useCallback(() => loadPage('newer'), [loadPage]);
  const showNewest = useCallback(() => {
    atBottom.current = true;
    setLeftFound(found?.key ?? null);
  }, [found?.key]);

  // A found message the device does not hold comes (online) with the page around it from the server. Then it is
  // scrolled into view (after the scroll to the newest above) and highlighted.
  const askedAround = useRef<string | null>(null);
  useEffect(() => {
    if (!found || foundMessage === undefined) return;
    if (foundMessage) {
      markHistoryViewed(db, conversationId).catch((error: unknown) => console.error('Keeping history failed', error));
      return;
    }
    if (!online || askedAround.current === found.key) return;
    askedAround.current = found.key;
    const request: HistoryRequest = { key: conversationId, direction: 'around', messageId: found.messageId };
    loadHistory(db, httpHistory, request).catch((error: unknown) => console.error('Loading the message failed', error));
  }, [db, conversationId, found, foundMessage, online]);
  const shownFound = useRef<string | null>(null);
  useLayoutEffect(() => {
    const list = listRef.current;
    if (!list || !messages || !found || shownFound.current === found.key) return;
    if (!showFoundMessage(list, found.messageId)) return;
    shownFound.current = found.key;
    atBottom.current = false;
  }, [messages, found]);

  const handleScroll = () => {
    const list = listRef.current;
    if (list) atBottom.current = list.scrollHeight - list.scrollTop - list.clientHeight <= followThresholdPx;
  };

  const handleSend = useCallback(
    async ({ text, files }: { text: string; files: File[] }) => {
      if (files.length === 0) {
        await mutate('dm.send', { id: uuidv7(), conversationId, text });
        return;
      }
      await mutate('dm.sendFiles', { id: uuidv7(), conversationId, text, files: toQueuedFiles(files) });
    },
    [mutate, conversationId],
  );
  const isRefusedUpload = useCallback(
    (entry: OutboxEntry) =>
      entry.name === 'dm.sendFiles' && (entry.args as { conversationId?: string }).conversationId === conversationId,
    [conversationId],
  );

  const queuedReactions = useQueuedReactions('dm.react');
  const handleReact = useCallback(
    (message: LocalDirectMessage, emoji: ReactionEmoji, on: boolean) => {
      mutate('dm.react', { conversationId: message.conversationId, id: message.id, emoji, on }).catch(
        (error: unknown) => {
          console.error('Reacting to the message failed', error);
        },
      );
    },
    [mutate],
  );
  const handleDelete = useCallback(
    (message: LocalDirectMessage) => {
      // As the team chat asks (spec section 5).
      void confirm(deleteMessageConfirmation).then(async (confirmed) => {
        if (!confirmed) return;
        setDeleteError(null);
        await mutate('dm.delete', { conversationId: message.conversationId, id: message.id }).catch(
          (error: unknown) => {
            console.error('Deleting the message failed', error);
            setDeleteError(deleteFailed);
          },
        );
      });
    },
    [confirm, mutate],
  );

  const headingId = `conversation-${conversationId}-title`;

  return (
    <section className={styles.conversation} aria-labelledby={headingId}>
      <header className={styles.conversationHeader}>
        {onBack && (
          <button
            type="button"
            className={styles.iconButton}
            aria-label="Back to conversations"
            title="Back to conversations"
            onClick={onBack}
          >
            <ArrowLeft size={20} aria-hidden="true" />
          </button>
        )}
        <UserAvatar src={otherAvatar} name={otherName} size={40} />
        <div className={styles.conversationTitle}>
          <h2 id={headingId} className={styles.conversationName}>
            {otherName}
          </h2>
          {otherWho && <p className={styles.conversationWho}>{otherWho}</p>}
          <PresenceText presence={otherPresence} lastSeen={otherUser?.lastSeen ?? null} now={now.getTime()} />
        </div>
      </header>

      <div className={chatStyles.listWrap}>
        <div
          ref={listRef}
          className={chatStyles.list}
          role="log"
          aria-label={`Messages with ${otherName}`}
          tabIndex={0}
          onScroll={handleScroll}
        >
          <div ref={innerRef} className={chatStyles.listInner}>
            {messages === undefined ? (
              <p className={chatStyles.loading} role="status">
                Loading messages...
              </p>
            ) : messages.length === 0 && !conversationWindow?.olderOnServer ? (
              <EmptyState
                icon={<MessageCircle size={30} />}
                title="No messages yet"
                titleAs="h3"
                text={`Say hello to ${otherName}.`}
                classNames={{
                  root: chatStyles.empty,
                  icon: chatStyles.emptyIcon,
                  title: chatStyles.emptyTitle,
                  text: chatStyles.emptyText,
                }}
              />
            ) : (
              <>
                {conversationWindow?.olderOnServer && (
                  <HistoryEdge side="older" online={online} load={olderLoad} onLoad={loadOlder} />
                )}
                <MessageDays groups={groups}>
                  {(message) => {
                    const isOwn = message.sender.id === selfId;
                    const sender = usersById.get(message.sender.id);
                    return (
                      <DirectMessageItem
                        key={message.id}
                        message={message}
                        isOwn={isOwn}
                        senderName={sender?.name ?? message.sender.name}
                        senderAvatar={sender ? sender.avatar : message.sender.avatar}
                        read={isOwn && readByOf(message, conversation).length > 0}
                        now={now}
                        findMentions={findMentions}
                        selfId={selfId}
                        token={token}
                        onDelete={handleDelete}
                        people={usersById}
                        queuedReactions={queuedReactions.get(message.id)}
                        onReact={handleReact}
                      />
                    );
                  }}
                </MessageDays>
                {conversationWindow?.endsBeforeNewest && (
                  <HistoryEdge
                    side="newer"
                    online={online}
                    load={newerLoad}
                    onLoad={loadNewer}
                    onShowNewest={showNewest}
                  />
                )}
              </>
            )}
          </div>
        </div>
      </div>

      <TypingLine text={typingLine} />

      {deleteError && (
        <p className={`${chatStyles.composerError} ${styles.deleteError}`} role="alert">
          <CircleAlert size={16} aria-hidden="true" />
          {deleteError}
        </p>
      )}

      <Composer
        draftKey={draftKeys.conversation(conversationId)}
        announcer={announcer}
        placeholder="Type a message..."
        accept={directFileAccept}
        acceptsFile={isDirectFile}
        emojis={directEmojis}
        mentionables={mentionables}
        onSend={handleSend}
        failureText={() => sendFailed}
        isRefusedUpload={isRefusedUpload}
        refusedUploadText={sendFailed}
      />
    </section>
  );
}
