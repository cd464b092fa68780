import { Link } from 'react-router-dom';
import { ArrowRight, MessagesSquare } from 'lucide-react';
import { UserAvatar } from '../../components/user-avatar';
import { avatarOf, nameOf, type People } from '../../data/people';
import { PendingMark } from '../../sync/pending-mark';
import { formatDashboardMessageTime } from './message-time';
import styles from './dashboard.module.css';

/** A group chat message as the dashboard preview shows it. */
export interface ChatPreviewMessage {
  id: string;
  /** The author, as the message carries them. */
  userId: { id: string; name: string };
  userAvatar: string | null;
  userName: string;
  text: string;
  /** ISO time the message was sent. */
  timestamp: string;
  pending?: 1;
}

/** Spec section 9: the dashboard shows the last 5 messages. */
export const dashboardMessageCount = 5;

/** The last messages of Team Chat, newest first, in any order given. */
export const latestMessages = (messages: readonly ChatPreviewMessage[]): ChatPreviewMessage[] =>
  [...messages].sort((a, b) => Date.parse(b.timestamp) - Date.parse(a.timestamp)).slice(0, dashboardMessageCount);

/** The dashboard's Team Chat card: the latest messages (authors as the directory knows them) and a way into the chat. */
export function TeamChatPreview({
  messages,
  people,
  now,
}: {
  messages: readonly ChatPreviewMessage[];
  people: People;
  now: Date;
}) {
  const shown = latestMessages(messages);
  return (
    <section className={styles.panel} aria-labelledby="dashboard-team-chat">
      <div className={styles.panelHeader}>
        <h2 id="dashboard-team-chat" className={styles.panelTitle}>
          <MessagesSquare size={18} aria-hidden="true" />
          Team Chat
        </h2>
        <Link to="/chat" className={styles.panelLink}>
          Join Chat
          <ArrowRight size={16} aria-hidden="true" />
        </Link>
      </div>
      {shown.length === 0 ? (
        <div className={styles.empty}>
          <MessagesSquare size={28} aria-hidden="true" />
          <p>No recent messages</p>
        </div>
      ) : (
        <ul className={styles.messageList}>
          {shown.map((message) => {
            const author = nameOf(people, { id: message.userId.id, name: message.userName });
            return (
              <li key={message.id} className={styles.message}>
                <UserAvatar src={avatarOf(people, message.userId.id, message.userAvatar)} name={author} size={32} />
                <div className={styles.messageBody}>
                  <div className={styles.messageMeta}>
                    <span className={styles.messageAuthor}>
                      {author}
                      {message.pending ? <PendingMark /> : null}
                    </span>
                    <time className={styles.messageTime} dateTime={message.timestamp}>
                      {formatDashboardMessageTime(message.timestamp, now)}
                    </time>
                  </div>
                  <p className={styles.messageText}>{message.text || 'Sent an attachment'}</p>
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
