import { memo, useCallback, useMemo, useRef, useState } from 'react';
import { Check, CheckCheck, Pencil, Trash2 } from 'lucide-react';
import type { Attachment, MentionMatch, MessageReaction, ReactionEmoji } from '@office/sync-protocol';
import type { People } from '../../data/people';
import { PendingMark } from '../../sync/pending-mark';
import { UserAvatar } from '../user-avatar';
import { AttachmentList } from './attachment-list';
import { Highlight } from './highlight';
import { useLongPress } from './long-press';
import { MessageActions, type MessageAction } from './message-actions';
import { MessageEditBox } from './message-edit-box';
import { formatChatTime } from './message-format';
import { MessageText } from './message-text';
import { ReactionButton, ReactionList } from './reactions';
import styles from './message-item.module.css';

/** What a message list shows of a message, in Team Chat or in a direct conversation. */
export interface ShownMessage {
  id: string;
  text: string;
  attachments: readonly Attachment[];
  reactions: readonly MessageReaction[];
  edited?: boolean;
  /** Written on this device and not yet confirmed by the server. */
  pending?: 1;
}

/**
 * How a list draws its messages. `thread` (Team Chat, many authors): every message with its author's avatar, and
 * the name and time above the bubble. `conversation` (two people): the other's avatar only, the time below.
 */
export type MessageLayout = 'thread' | 'conversation';

/** What the messages of one list share: the viewer, the clock, who can be mentioned, and reacting. */
export interface MessageContext {
  layout: MessageLayout;
  now: Date;
  selfId: string;
  token: string | null;
  /** Words the message search marks. */
  search?: string;
  /** Reads the @mentions of the people who can be mentioned here in a text. */
  findMentions: (text: string) => MentionMatch[];
  /** The directory, to name who reacted. */
  people: People;
  onReact: (id: string, emoji: ReactionEmoji, on: boolean) => void;
}

interface MessageItemProps {
  message: ShownMessage;
  /** When it was sent (ISO). */
  sentAt: string;
  /** The author as the directory knows them now (fresher name and avatar), if known. */
  authorName: string;
  authorAvatar: string | null;
  isOwn: boolean;
  /** The list's shared props (one object, so a list passes the same to each message). */
  context: MessageContext;
  /** Saves an edit (resolves with an error message, or null when saved); absent where the viewer may not edit. */
  onEdit?: ((id: string, text: string) => Promise<string | null>) | undefined;
  /** Deletes the message (after asking); absent where the viewer may not delete it. */
  onDelete?: ((id: string) => void) | undefined;
  /** Own messages of a conversation: whether the other participant has read it. */
  readByOther?: boolean;
  /** Emojis of this message whose change from this device is still queued. */
  queuedReactions: ReadonlySet<string> | undefined;
}

/** One message: its author, time, text, files and reactions, what the viewer may do to it, and its edit mode. */
export const MessageItem = memo(function MessageItem({
  message,
  sentAt,
  authorName,
  authorAvatar,
  isOwn,
  context,
  onEdit,
  onDelete,
  readByOther = false,
  queuedReactions,
}: MessageItemProps) {
  const { layout, now, selfId, token, search = '', findMentions, people, onReact } = context;
  const { id } = message;
  const [editing, setEditing] = useState(false);
  const [pickerOpen, setPickerOpen] = useState(false);
  const reactionButtonRef = useRef<HTMLButtonElement>(null);
  const closePicker = useCallback(() => setPickerOpen(false), []);
  const closeEdit = useCallback(() => setEditing(false), []);
  const longPress = useLongPress(useCallback(() => setPickerOpen(true), []));
  const react = useCallback((emoji: ReactionEmoji, on: boolean) => onReact(id, emoji, on), [onReact, id]);
  const save = useCallback((text: string) => onEdit?.(id, text) ?? Promise.resolve(null), [onEdit, id]);

  const actions = useMemo(() => {
    const list: MessageAction[] = [];
    if (onEdit) {
      list.push({ label: 'Edit', icon: <Pencil size={15} aria-hidden="true" />, onSelect: () => setEditing(true) });
    }
    if (onDelete) {
      list.push({
        label: 'Delete',
        icon: <Trash2 size={15} aria-hidden="true" />,
        danger: true,
        onSelect: () => onDelete(id),
      });
    }
    return list;
  }, [onEdit, onDelete, id]);
  // Spec section 4: double-clicking one's own bubble also enters edit mode.
  const editOnDoubleClick = isOwn && onEdit !== undefined;

  const thread = layout === 'thread';
  const time = (
    <time className={styles.messageTime} dateTime={sentAt}>
      {formatChatTime(sentAt, now)}
    </time>
  );
  const hasText = message.text.trim() !== '';

  return (
    <li className={`${styles.message} ${isOwn ? styles.own : ''}`} data-message-id={id}>
      {(thread || !isOwn) && (
        <span className={styles.messageAvatar}>
          <UserAvatar src={authorAvatar} name={authorName} size={thread ? 36 : 32} />
        </span>
      )}
      <div className={`${styles.messageBody} ${thread ? '' : styles.metaBelow}`}>
        {thread && (
          <div className={styles.messageMeta}>
            <span className={styles.messageAuthor}>
              <Highlight text={authorName} search={search} />
            </span>
            {time}
            {message.edited && <span className={styles.edited}>(edited)</span>}
            {message.pending ? <PendingMark /> : null}
          </div>
        )}

        {editing ? (
          <MessageEditBox text={message.text} onSave={save} onClose={closeEdit} />
        ) : (
          <>
            <div className={styles.bubbleRow}>
              <div
                className={styles.bubble}
                {...longPress}
                onDoubleClick={editOnDoubleClick ? () => setEditing(true) : undefined}
                title={editOnDoubleClick ? 'Double-click to edit' : undefined}
              >
                {hasText && (
                  <p className={styles.messageText}>
                    <MessageText text={message.text} findMentions={findMentions} selfId={selfId} search={search} />
                  </p>
                )}
                {message.attachments.length > 0 && <AttachmentList attachments={message.attachments} token={token} />}
              </div>
              <ReactionButton
                open={pickerOpen}
                buttonRef={reactionButtonRef}
                onToggle={() => setPickerOpen((open) => !open)}
              />
              <MessageActions actions={actions} />
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
          </>
        )}

        {!thread && (
          <div className={styles.messageMeta}>
            {time}
            {message.edited && <span className={styles.edited}>(edited)</span>}
            {message.pending ? <PendingMark /> : isOwn ? <ReadReceipt read={readByOther} /> : null}
          </div>
        )}
      </div>
    </li>
  );
});

/** Under one's own message in a conversation: sent (one tick) or read by the other participant (two). */
function ReadReceipt({ read }: { read: boolean }) {
  const label = read ? 'Read' : 'Sent';
  return (
    <span className={`${styles.receipt} ${read ? styles.receiptRead : ''}`} role="img" aria-label={label} title={label}>
      {read ? <CheckCheck size={14} aria-hidden="true" /> : <Check size={14} aria-hidden="true" />}
    </span>
  );
}
