import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { ArrowLeft, CircleAlert, MessageCircle } from 'lucide-react';
import { isUnreadBy, mentionFinder, readByOf, type ReactionEmoji } from '@office/sync-protocol';
import type { LocalUser, OutboxEntry } from '../../data/db';
import { useConversationWindow, useMarkConversationRead, type ConversationSummary } from '../../data/direct-hooks';
import { useMutate, useOnline, useOutbox } from '../../data/hooks';
import { useWorkspace } from '../../sync/sync-context';
import { httpHistory, loadHistory, markHistoryViewed, type HistoryLoad, type HistoryRequest } from '../../sync/history';
import type { MessageHistory } from '../../components/messages/history-edge';
import { useDialogs } from '../../components/dialogs';
import { deleteMessageConfirmation } from '../../app/confirmations';
import { whoIsWho } from '../../data/people';
import { useQueuedReactions } from '../../data/reaction-hooks';
import { usePresence } from '../../data/use-people';
import { UserAvatar } from '../../components/user-avatar';
import composerStyles from '../../components/messages/composer.module.css';
import { groupByDate } from '../../components/messages/message-format';
import { MessageItem, type MessageContext } from '../../components/messages/message-item';
import { MessageList, MessageListEmpty, TypingLine, useListFollowing } from '../../components/messages/message-list';
import { MessageComposer } from '../../components/messages/message-composer';
import { typingText } from '../chat/typing';
import { useTypingUsers } from '../chat/use-chat-data';
import { PresenceText } from '../employees/presence-text';
import { useConversationRoom, useConversationTypingAnnouncer } from './use-conversation-realtime';
import styles from './direct-messages.module.css';
import { failureTexts } from '../../app/failure-messages';

/** Spec section 8. */
const deleteFailed = failureTexts.deleteMessageFailed;
/** Whether the outbox entry is the still-unsent start of the conversation with `otherId`. */
const isStartOf = (entry: OutboxEntry, otherId: string): boolean =>
  entry.name === 'dm.start' &&
  entry.status === 'pending' &&
  String((entry.args as { recipientId?: unknown }).recipientId).trim() === otherId;

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

  const following = useListFollowing();
  const lastIsOwn = messages?.at(-1)?.sender.id === selfId;
  // A message reached from search is shown once for each navigation that asked for it.
  const [shownFoundKey, setShownFoundKey] = useState<string | null>(null);
  const foundId = found && found.key !== shownFoundKey ? found.messageId : null;
  const foundKey = found?.key ?? null;
  const handleFoundShown = useCallback(() => setShownFoundKey(foundKey), [foundKey]);

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
  const history = useMemo<MessageHistory | undefined>(
    () =>
      conversationWindow && {
        older: conversationWindow.olderOnServer ? 'server' : 'none',
        endsBeforeNewest: conversationWindow.endsBeforeNewest,
        olderLoad,
        newerLoad,
        loadOlder: () => loadPage('older'),
        loadNewer: () => loadPage('newer'),
        showNewest: () => setLeftFound(foundKey),
      },
    [conversationWindow, olderLoad, newerLoad, loadPage, foundKey],
  );

  // A found message the device does not hold comes (online) with the page around it from the server.
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

  const queuedReactions = useQueuedReactions('dm.react');
  const handleReact = useCallback(
    (id: string, emoji: ReactionEmoji, on: boolean) => {
      mutate('dm.react', { conversationId, id, emoji, on }).catch((error: unknown) => {
        console.error('Reacting to the message failed', error);
      });
    },
    [mutate, conversationId],
  );
  const handleDelete = useCallback(
    (id: string) => {
      // As the team chat asks (spec section 5).
      void confirm(deleteMessageConfirmation).then(async (confirmed) => {
        if (!confirmed) return;
        setDeleteError(null);
        await mutate('dm.delete', { conversationId, id }).catch((error: unknown) => {
          console.error('Deleting the message failed', error);
          setDeleteError(deleteFailed);
        });
      });
    },
    [confirm, mutate, conversationId],
  );

  const messageContext = useMemo<MessageContext>(
    () => ({ layout: 'conversation', now, selfId, token, findMentions, people: usersById, onReact: handleReact }),
    [now, selfId, token, findMentions, usersById, handleReact],
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

      <MessageList
        following={following}
        label={`Messages with ${otherName}`}
        groups={groups}
        lastIsOwn={lastIsOwn}
        foundId={foundId}
        onFoundShown={handleFoundShown}
        loading={messages === undefined}
        history={history}
        empty={
          <MessageListEmpty
            icon={<MessageCircle size={30} />}
            title="No messages yet"
            titleAs="h3"
            text={`Say hello to ${otherName}.`}
          />
        }
      >
        {(message) => {
          const isOwn = message.sender.id === selfId;
          const sender = usersById.get(message.sender.id);
          return (
            <MessageItem
              key={message.id}
              message={message}
              sentAt={message.createdAt}
              authorName={sender?.name ?? message.sender.name}
              authorAvatar={sender ? sender.avatar : message.sender.avatar}
              isOwn={isOwn}
              context={messageContext}
              // Spec section 6: a user can delete only their own direct messages.
              onDelete={isOwn ? handleDelete : undefined}
              readByOther={isOwn && readByOf(message, conversation).length > 0}
              queuedReactions={queuedReactions.get(message.id)}
            />
          );
        }}
      </MessageList>

      <TypingLine text={typingLine} />

      {deleteError && (
        <p className={`${composerStyles.composerError} ${styles.deleteError}`} role="alert">
          <CircleAlert size={16} aria-hidden="true" />
          {deleteError}
        </p>
      )}

      <MessageComposer conversationId={conversationId} announcer={announcer} mentionables={mentionables} />
    </section>
  );
}
