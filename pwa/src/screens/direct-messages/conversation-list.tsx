import { MessagesSquare, SearchX, SquarePen } from 'lucide-react';
import type { LocalUser } from '../../data/db';
import type { ConversationSummary } from '../../data/direct-hooks';
import { EmptyState } from '../../components/empty-state';
import { SearchField } from '../../components/search-field';
import { UserAvatar } from '../../components/user-avatar';
import { conversationPreview, filterConversations, formatConversationTime, unreadLabel } from './direct-format';
import pageStyles from '../../components/messages/message-page.module.css';
import styles from './direct-messages.module.css';

/** The empty list's padding and sizes (direct-messages.module.css). */
const emptyClasses = { root: styles.sidebarEmpty, icon: styles.sidebarEmptyIcon, text: styles.sidebarEmptyText };

interface ConversationListProps {
  /** Undefined while the local database is read, or before the first sync of a new device. */
  conversations: readonly ConversationSummary[] | undefined;
  activeId: string | null;
  selfId: string;
  usersById: ReadonlyMap<string, LocalUser>;
  search: string;
  onSearchChange: (value: string) => void;
  onSelect: (conversationId: string) => void;
  onNewConversation: () => void;
  now: Date;
}

/** The conversations sidebar: search, a new-conversation button and one row per conversation. */
export function ConversationList({
  conversations,
  activeId,
  selfId,
  usersById,
  search,
  onSearchChange,
  onSelect,
  onNewConversation,
  now,
}: ConversationListProps) {
  // The directory's name is fresher than the one the conversation was stored with.
  const named = (conversations ?? []).map((summary) => {
    const user = usersById.get(summary.other.id);
    return user ? { ...summary, other: { ...summary.other, name: user.name, avatar: user.avatar } } : summary;
  });
  const shown = filterConversations(named, search);

  return (
    <aside className={`${pageStyles.sidePanel} ${styles.sidebar}`} aria-labelledby="conversations-title">
      <div className={`${pageStyles.sidePanelHeader} ${styles.sidebarHeader}`}>
        <h2 id="conversations-title" className={pageStyles.sidePanelTitle}>
          Conversations
        </h2>
        <button
          type="button"
          className={styles.newButton}
          aria-label="New conversation"
          title="New conversation"
          onClick={onNewConversation}
        >
          <SquarePen size={18} aria-hidden="true" />
        </button>
      </div>
      <div className={styles.sidebarSearch}>
        <SearchField placeholder="Search conversations..." value={search} onValueChange={onSearchChange} />
      </div>

      {conversations === undefined ? (
        <p className={styles.sidebarLoading} role="status">
          Loading conversations...
        </p>
      ) : conversations.length === 0 ? (
        <EmptyState
          variant="compact"
          icon={<MessagesSquare size={26} />}
          title="No conversations yet"
          titleAs="p"
          text="Start a new conversation from Team Members"
          classNames={emptyClasses}
        />
      ) : shown.length === 0 ? (
        <EmptyState
          variant="compact"
          icon={<SearchX size={26} />}
          title="No conversations found"
          titleAs="p"
          text={<>No one in your conversations matches &ldquo;{search.trim()}&rdquo;.</>}
          classNames={emptyClasses}
        />
      ) : (
        <ul className={styles.conversationList} aria-label="Conversations">
          {shown.map(({ conversation, other, unreadCount }) => {
            const active = conversation.id === activeId;
            // The open conversation is being read: its new messages never count as unread.
            const unread = active ? 0 : unreadCount;
            const activity = conversation.lastMessageAt ?? conversation.createdAt;
            return (
              <li key={conversation.id}>
                <button
                  type="button"
                  className={`${styles.conversationItem} ${active ? styles.activeItem : ''} ${
                    unread > 0 ? styles.unreadItem : ''
                  }`}
                  aria-current={active ? 'true' : undefined}
                  onClick={() => onSelect(conversation.id)}
                >
                  <UserAvatar src={other.avatar} name={other.name} size={44} />
                  <span className={styles.itemText}>
                    <span className={styles.itemTop}>
                      <span className={styles.itemName}>{other.name}</span>
                      <time className={styles.itemTime} dateTime={activity}>
                        {formatConversationTime(activity, now)}
                      </time>
                    </span>
                    <span className={styles.itemBottom}>
                      <span className={styles.itemPreview}>
                        {conversationPreview(conversation.lastMessage, selfId)}
                      </span>
                      {unread > 0 && (
                        <span className={styles.unreadBadge} role="img" aria-label={unreadLabel(unread)}>
                          {unread > 99 ? '99+' : unread}
                        </span>
                      )}
                    </span>
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </aside>
  );
}
