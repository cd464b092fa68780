import { memo, useCallback, useRef, useState } from 'react';
import { Check, CheckCheck, Trash2 } from 'lucide-react';
import type { MentionMatch, ReactionEmoji } from '@office/sync-protocol';
import type { LocalDirectMessage } from '../../data/db';
import type { People } from '../../data/people';
import { UserAvatar } from '../../components/user-avatar';
import { PendingMark } from '../../sync/pending-mark';
import { AttachmentList } from '../chat/attachment-list';
import { formatChatTime } from '../chat/chat-format';
import { useLongPress } from '../chat/long-press';
import { MessageText } from '../chat/message-text';
import { ReactionButton, ReactionList } from '../chat/reactions';
import chatStyles from '../chat/chat.module.css';
import styles from './direct-messages.module.css';

interface DirectMessageItemProps {
  message: LocalDirectMessage;
  isOwn: boolean;
  /** The sender as the directory knows them now. */
  senderName: string;
  senderAvatar: string | null;
  /** Whether the other participant has read this (own) message. */
  read: boolean;
  now: Date;
  /** Reads the @mentions of the conversation's participants in a text. */
  findMentions: (text: string) => MentionMatch[];
  selfId: string;
  token: string | null;
  onDelete: (message: LocalDirectMessage) => void;
  /** The directory, to name who reacted. */
  people: People;
  /** Emojis of this message whose change from this device is still queued. */
  queuedReactions: ReadonlySet<string> | undefined;
  onReact: (message: LocalDirectMessage, emoji: ReactionEmoji, on: boolean) => void;
}

/** One direct message: a bubble like the team chat's, its time, its files, and Delete on one's own. */
export const DirectMessageItem = memo(function DirectMessageItem({
  message,
  isOwn,
  senderName,
  senderAvatar,
  read,
  now,
  findMentions,
  selfId,
  token,
  onDelete,
  people,
  queuedReactions,
  onReact,
}: DirectMessageItemProps) {
  const hasText = message.text.trim() !== '';
  const [pickerOpen, setPickerOpen] = useState(false);
  const reactionButtonRef = useRef<HTMLButtonElement>(null);
  const closePicker = useCallback(() => setPickerOpen(false), []);
  const longPress = useLongPress(useCallback(() => setPickerOpen(true), []));
  const react = useCallback((emoji: ReactionEmoji, on: boolean) => onReact(message, emoji, on), [onReact, message]);
  return (
    <li className={`${chatStyles.message} ${isOwn ? chatStyles.own : ''}`} data-message-id={message.id}>
      {!isOwn && (
        <span className={chatStyles.messageAvatar}>
          <UserAvatar src={senderAvatar} name={senderName} size={32} />
        </span>
      )}
      <div className={`${chatStyles.messageBody} ${styles.messageBody}`}>
        <div className={chatStyles.bubbleRow}>
          <div className={chatStyles.bubble} {...longPress}>
            {hasText && (
              <p className={chatStyles.messageText}>
                <MessageText text={message.text} findMentions={findMentions} selfId={selfId} />
              </p>
            )}
            {message.attachments.length > 0 && <AttachmentList attachments={message.attachments} token={token} />}
          </div>
          <ReactionButton
            open={pickerOpen}
            buttonRef={reactionButtonRef}
            onToggle={() => setPickerOpen((open) => !open)}
          />
          {isOwn && (
            <button
              type="button"
              className={`${chatStyles.menuButton} ${styles.deleteButton}`}
              aria-label="Delete message"
              title="Delete message"
              onClick={() => onDelete(message)}
            >
              <Trash2 size={15} aria-hidden="true" />
            </button>
          )}
        </div>
        <ReactionList
          reactions={message.reactions}
          selfId={selfId}
          people={people}
          queued={queuedReactions}
          pickerOpen={pickerOpen}
          buttonRef={reactionButtonRef}
          onClosePicker={closePicker}
          onReact={react}
        />
        <div className={chatStyles.messageMeta}>
          <time className={chatStyles.messageTime} dateTime={message.createdAt}>
            {formatChatTime(message.createdAt, now)}
          </time>
          {message.pending ? (
            <PendingMark />
          ) : isOwn ? (
            <span
              className={`${styles.receipt} ${read ? styles.receiptRead : ''}`}
              role="img"
              aria-label={read ? 'Read' : 'Sent'}
              title={read ? 'Read' : 'Sent'}
            >
              {read ? <CheckCheck size={14} aria-hidden="true" /> : <Check size={14} aria-hidden="true" />}
            </span>
          ) : null}
        </div>
      </div>
    </li>
  );
});
