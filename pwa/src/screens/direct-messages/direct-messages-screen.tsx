import { useCallback, useState } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { MessagesSquare } from 'lucide-react';
import { useAuth } from '../../app/auth/use-auth';
import { useIsMobile } from '../../app/shell/use-is-mobile';
import { PageHeader } from '../../components/page-header';
import { useNow } from '../../components/use-now';
import { useConversations } from '../../data/direct-hooks';
import { useHasSynced, useOnline, useUsers } from '../../data/hooks';
import { usePeople } from '../../data/use-people';
import { useWorkspace } from '../../sync/sync-context';
import { ConversationList } from './conversation-list';
import { ConversationView } from './conversation-view';
import { NewConversationModal } from './new-conversation-modal';
import { MessageListEmpty } from '../../components/messages/message-list';
import pageStyles from '../../components/messages/message-page.module.css';
import styles from './direct-messages.module.css';

/** The navigation state this screen accepts (spec section 2), e.g. from Team Members' "Message". */
interface DirectMessagesState {
  activeConversationId?: string;
  recipientName?: string;
}

/** The conversation to open: from the navigation state, or `?conversation=<id>` (a notification's link). */
const conversationIdIn = (state: unknown, search: string): string | null => {
  const id = (state as DirectMessagesState | null)?.activeConversationId;
  if (typeof id === 'string' && id !== '') return id;
  return new URLSearchParams(search).get('conversation') || null;
};

/**
 * Direct Messages (/direct-messages): conversations beside the open one (one at a time on phones).
 * Everything reads the local database, so the screen works offline; sends and deletes queue until online.
 */
export function DirectMessagesScreen() {
  const { token } = useAuth();
  const { ctx } = useWorkspace();
  const selfId = ctx.userId;
  const location = useLocation();
  const navigate = useNavigate();
  const isMobile = useIsMobile();
  const conversations = useConversations();
  const users = useUsers();
  const hasSynced = useHasSynced();
  const online = useOnline();
  const now = useNow();

  const [selectedId, setSelectedId] = useState<string | null>(() => conversationIdIn(location.state, location.search));
  const [search, setSearch] = useState('');
  const [starting, setStarting] = useState(false);

  // A navigation that carries a conversation (also while this screen is open) opens it.
  const [stateKey, setStateKey] = useState(location.key);
  if (stateKey !== location.key) {
    setStateKey(location.key);
    const id = conversationIdIn(location.state, location.search);
    if (id !== null) setSelectedId(id);
  }

  const usersById = usePeople();
  // Opens the conversation only once it is in the list (spec section 2).
  const active = conversations?.find((summary) => summary.conversation.id === selectedId) ?? null;
  // A new device shows its first download as loading, not as "No conversations yet".
  const listLoading = conversations === undefined || (conversations.length === 0 && hasSynced !== true && online);

  // The open conversation is kept in the history entry, so a reload (online or not) reopens it.
  const select = useCallback(
    (id: string | null) => {
      setSelectedId(id);
      const recipientName = conversations?.find((summary) => summary.conversation.id === id)?.other.name;
      const state: DirectMessagesState | null =
        id === null ? null : { activeConversationId: id, ...(recipientName ? { recipientName } : {}) };
      void navigate(location.pathname, { replace: true, state });
    },
    [conversations, navigate, location.pathname],
  );

  const unreadTotal = (conversations ?? []).reduce(
    (total, summary) => total + (summary.conversation.id === active?.conversation.id ? 0 : summary.unreadCount),
    0,
  );
  // `?message=<id>` (a search result): the open conversation shows that message.
  const foundMessageId = new URLSearchParams(location.search).get('message');
  const found = foundMessageId ? { messageId: foundMessageId, key: location.key } : null;

  const showList = !isMobile || active === null;
  const showConversation = !isMobile || active !== null;

  return (
    <div className={pageStyles.page}>
      <PageHeader
        title="Direct Messages"
        subtitle={unreadTotal > 0 ? `${unreadTotal} unread` : 'Private conversations with your team'}
      />

      <div className={`${pageStyles.card} ${styles.card}`}>
        {showList && (
          <ConversationList
            conversations={listLoading ? undefined : conversations}
            activeId={active?.conversation.id ?? null}
            selfId={selfId}
            usersById={usersById}
            search={search}
            onSearchChange={setSearch}
            onSelect={select}
            onNewConversation={() => setStarting(true)}
            now={now}
          />
        )}
        {showConversation &&
          (active ? (
            <ConversationView
              key={active.conversation.id}
              summary={active}
              selfId={selfId}
              usersById={usersById}
              token={token}
              now={now}
              found={found}
              onBack={isMobile ? () => select(null) : null}
            />
          ) : (
            <MessageListEmpty
              className={styles.placeholder}
              icon={<MessagesSquare size={30} />}
              title="Select a conversation"
              text="Choose someone on the left, or start a new conversation."
            />
          ))}
      </div>

      {starting && (
        <NewConversationModal
          users={users}
          selfId={selfId}
          onClose={() => setStarting(false)}
          onStarted={(id) => {
            setStarting(false);
            select(id);
          }}
        />
      )}
    </div>
  );
}
