import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useLiveQuery } from 'dexie-react-hooks';
import { MessagesSquare, SearchX, Users, X } from 'lucide-react';
import { SearchField } from '../../components/search-field';
import {
  canModerateChatMessage,
  mentionFinder,
  teamChatKey,
  type Actor,
  type ReactionEmoji,
} from '@office/sync-protocol';
import { useAuth } from '../../app/auth/use-auth';
import { mobileMediaQuery } from '../../app/shell/use-is-mobile';
import { useDialogs } from '../../components/dialogs';
import { deleteMessageConfirmation } from '../../app/confirmations';
import { PageHeader } from '../../components/page-header';
import { useNow } from '../../components/use-now';
import { useHasSynced, useMutate, useOnline, useUsers } from '../../data/hooks';
import { avatarOf, countOnline, nameOf } from '../../data/people';
import { usePeople, usePresence } from '../../data/use-people';
import { useQueuedReactions } from '../../data/reaction-hooks';
import { httpHistory, loadHistory } from '../../sync/history';
import { LocalWriteError } from '../../sync/mutate';
import { useWorkspace } from '../../sync/sync-context';
import { groupMessagesByDate } from './chat-format';
import { olderWindowStart } from './chat-window';
import { MessageComposer } from '../../components/messages/message-composer';
import { MessageItem, type MessageContext } from '../../components/messages/message-item';
import { MessageList, MessageListEmpty, TypingLine, useListFollowing } from '../../components/messages/message-list';
import pageStyles from '../../components/messages/message-page.module.css';
import { MembersPanel } from './members-panel';
import { typingText } from './typing';
import { useChatWindow, useTypingAnnouncer, useTypingUsers } from './use-chat-data';
import styles from './chat.module.css';

const membersPanelId = 'chat-members';

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
  const following = useListFollowing();
  const { atBottom, stopFollowing } = following;
  const { chatWindow, history, showFrom } = useChatWindow(search, atBottom);

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
  const lastIsOwn = shown.at(-1)?.userId.id === selfId;

  // Typing names come from the directory when known, so a rename shows at once.
  const typingNames = typing.map((entry) => usersById.get(entry.userId)?.name ?? entry.userName);
  const typingIds = useMemo(() => new Set(typing.map((entry) => entry.userId)), [typing]);
  const typingLine = typingText(typingNames);

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
        stopFollowing();
        setSearch('');
        showFrom(start);
      })
      .catch((error: unknown) => console.error('Showing the message failed', error));
    return () => {
      current = false;
    };
  }, [db, found, foundId, showFrom, stopFollowing]);
  const handleFoundShown = useCallback(() => {
    setFoundId(null);
    setSearchParams(
      (params) => {
        const next = new URLSearchParams(params);
        next.delete('message');
        return next;
      },
      { replace: true },
    );
  }, [setSearchParams]);

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

  const messageContext = useMemo<MessageContext>(
    () => ({
      layout: 'thread',
      now,
      selfId,
      token,
      search: shownSearch,
      findMentions,
      people: usersById,
      onReact: handleReact,
    }),
    [now, selfId, token, shownSearch, findMentions, usersById, handleReact],
  );

  // A new device shows its first download as loading, not as an empty chat.
  const loading = chatWindow === undefined || (chatWindow.chatIsEmpty && hasSynced !== true && online);

  const closeMembers = useCallback(() => setMembersOpen(false), []);

  return (
    <div className={pageStyles.page}>
      <PageHeader
        title="Team Chat"
        subtitle={
          <span className={styles.onlineCount}>
            <span className={styles.onlineDot} aria-hidden="true" />
            {onlineCount} online
          </span>
        }
      />

      <div className={pageStyles.card}>
        <div className={pageStyles.main}>
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

          <MessageList
            following={following}
            label="Team chat messages"
            groups={groups}
            lastIsOwn={lastIsOwn}
            showing={shownSearch}
            foundId={shownSearch === '' ? foundId : null}
            onFoundShown={handleFoundShown}
            loading={loading}
            empty={
              chatWindow?.chatIsEmpty ? (
                <MessageListEmpty
                  icon={<MessagesSquare size={30} />}
                  title="Welcome to Team Chat!"
                  text="Start a conversation with your team members."
                />
              ) : (
                <MessageListEmpty
                  icon={<SearchX size={30} />}
                  title="No messages found"
                  text={<>No messages match &ldquo;{shownSearch}&rdquo;.</>}
                >
                  <button type="button" className={styles.clearSearch} onClick={() => setSearch('')}>
                    <X size={14} aria-hidden="true" />
                    Clear search
                  </button>
                </MessageListEmpty>
              )
            }
            history={history}
          >
            {(message) => {
              const isOwn = message.userId.id === selfId;
              const canModerate = canModerateChatMessage(actor, message);
              return (
                <MessageItem
                  key={message.id}
                  message={message}
                  sentAt={message.timestamp}
                  authorName={nameOf(usersById, { id: message.userId.id, name: message.userName })}
                  authorAvatar={avatarOf(usersById, message.userId.id, message.userAvatar)}
                  isOwn={isOwn}
                  context={messageContext}
                  onEdit={canModerate ? handleEdit : undefined}
                  onDelete={canModerate ? handleDelete : undefined}
                  queuedReactions={queuedReactions.get(message.id)}
                />
              );
            }}
          </MessageList>

          <TypingLine text={typingLine} />

          <MessageComposer conversationId={null} announcer={announcer} mentionables={mentionables} />
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
