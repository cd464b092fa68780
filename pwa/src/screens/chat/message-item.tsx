import { memo, useCallback, useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { EllipsisVertical, Pencil, Trash2 } from 'lucide-react';
import { chatLimits, type MentionMatch, type ReactionEmoji } from '@office/sync-protocol';
import type { LocalChatMessage } from '../../data/db';
import type { People } from '../../data/people';
import { UserAvatar } from '../../components/user-avatar';
import { PendingMark } from '../../sync/pending-mark';
import { AttachmentList } from './attachment-list';
import { formatChatTime } from './chat-format';
import { Highlight } from './highlight';
import { useLongPress } from './long-press';
import { MessageText } from './message-text';
import { ReactionButton, ReactionList } from './reactions';
import styles from './chat.module.css';

/** Room the Edit/Delete menu needs below its button. */
const menuHeightPx = 100;

interface MessageItemProps {
  message: LocalChatMessage;
  /** The author as the directory knows them now (fresher name and avatar), if known. */
  authorName: string;
  authorAvatar: string | null;
  isOwn: boolean;
  /** The author, a manager or an admin: may edit and delete. */
  canModerate: boolean;
  now: Date;
  search: string;
  /** Reads the @mentions of the team's members in a text. */
  findMentions: (text: string) => MentionMatch[];
  selfId: string;
  token: string | null;
  /** Saves an edit; resolves with an error message, or null when saved. */
  onEdit: (id: string, text: string) => Promise<string | null>;
  onDelete: (id: string) => void;
  /** The directory, to name who reacted. */
  people: People;
  /** Emojis of this message whose change from this device is still queued. */
  queuedReactions: ReadonlySet<string> | undefined;
  onReact: (id: string, emoji: ReactionEmoji, on: boolean) => void;
}

/** One chat message: author, time, text, files, its menu and its edit mode. */
export const MessageItem = memo(function MessageItem({
  message,
  authorName,
  authorAvatar,
  isOwn,
  canModerate,
  now,
  search,
  findMentions,
  selfId,
  token,
  onEdit,
  onDelete,
  people,
  queuedReactions,
  onReact,
}: MessageItemProps) {
  const [draft, setDraft] = useState<string | null>(null);
  const [editError, setEditError] = useState<string | null>(null);
  const [menuOpen, setMenuOpen] = useState(false);
  const [menuUp, setMenuUp] = useState(false);
  const menuRef = useRef<HTMLDivElement>(null);
  const editRef = useRef<HTMLTextAreaElement>(null);
  const editing = draft !== null;
  const [pickerOpen, setPickerOpen] = useState(false);
  const reactionButtonRef = useRef<HTMLButtonElement>(null);
  const closePicker = useCallback(() => setPickerOpen(false), []);
  const longPress = useLongPress(useCallback(() => setPickerOpen(true), []));
  const react = useCallback(
    (emoji: ReactionEmoji, on: boolean) => onReact(message.id, emoji, on),
    [onReact, message.id],
  );

  // The menu closes on a click elsewhere or Escape.
  useEffect(() => {
    if (!menuOpen) return undefined;
    const handlePointer = (event: PointerEvent) => {
      if (!menuRef.current?.contains(event.target as Node)) setMenuOpen(false);
    };
    const handleKey = (event: globalThis.KeyboardEvent) => {
      if (event.key === 'Escape') setMenuOpen(false);
    };
    document.addEventListener('pointerdown', handlePointer);
    document.addEventListener('keydown', handleKey);
    return () => {
      document.removeEventListener('pointerdown', handlePointer);
      document.removeEventListener('keydown', handleKey);
    };
  }, [menuOpen]);

  // Edit mode starts with the caret at the end of the text.
  useEffect(() => {
    if (!editing) return;
    const field = editRef.current;
    if (!field) return;
    field.focus();
    field.setSelectionRange(field.value.length, field.value.length);
  }, [editing]);

  // The edit box grows with its text up to its CSS max height.
  useLayoutEffect(() => {
    const field = editRef.current;
    if (!field) return;
    field.style.height = 'auto';
    field.style.height = `${field.scrollHeight + 2}px`;
    // Save and Cancel stay in view while the box grows near the bottom of the list.
    field.parentElement?.scrollIntoView({ block: 'nearest' });
  }, [draft]);

  const startEdit = () => {
    setMenuOpen(false);
    setEditError(null);
    setDraft(message.text);
  };
  const cancelEdit = () => {
    setDraft(null);
    setEditError(null);
  };
  const commitEdit = async () => {
    if (draft === null) return;
    const text = draft.trim();
    // Spec section 4: an edit is saved only if non-empty after trimming.
    if (text === '') return;
    if (text === message.text) {
      cancelEdit();
      return;
    }
    const error = await onEdit(message.id, text);
    if (error === null) cancelEdit();
    else setEditError(error);
  };
  const handleEditKey = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void commitEdit();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      cancelEdit();
    }
  };

  const time = formatChatTime(message.timestamp, now);
  const hasText = message.text.trim() !== '';

  return (
    <li className={`${styles.message} ${isOwn ? styles.own : ''}`} data-message-id={message.id}>
      <span className={styles.messageAvatar}>
        <UserAvatar src={authorAvatar} name={authorName} size={36} />
      </span>
      <div className={styles.messageBody}>
        <div className={styles.messageMeta}>
          <span className={styles.messageAuthor}>
            <Highlight text={authorName} search={search} />
          </span>
          <time className={styles.messageTime} dateTime={message.timestamp}>
            {time}
          </time>
          {message.edited && <span className={styles.edited}>(edited)</span>}
          {message.pending ? <PendingMark /> : null}
        </div>

        {editing ? (
          <div className={styles.editBox}>
            <textarea
              ref={editRef}
              className={styles.editInput}
              aria-label="Edit message"
              value={draft}
              maxLength={chatLimits.textMax}
              rows={2}
              onChange={(event) => setDraft(event.target.value)}
              onKeyDown={handleEditKey}
            />
            {editError && (
              <p className={styles.editError} role="alert">
                {editError}
              </p>
            )}
            <div className={styles.editActions}>
              <span className={styles.editHint}>Enter to save · Esc to cancel</span>
              <button type="button" className={styles.editCancel} onClick={cancelEdit}>
                Cancel
              </button>
              <button
                type="button"
                className={styles.editSave}
                disabled={draft.trim() === ''}
                onClick={() => void commitEdit()}
              >
                Save
              </button>
            </div>
          </div>
        ) : (
          <div className={styles.bubbleRow}>
            <div
              className={styles.bubble}
              {...longPress}
              onDoubleClick={isOwn ? startEdit : undefined}
              title={isOwn ? 'Double-click to edit' : undefined}
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
            {canModerate && (
              <div className={styles.menuWrap} ref={menuRef}>
                <button
                  type="button"
                  className={styles.menuButton}
                  aria-label="Message actions"
                  aria-haspopup="menu"
                  aria-expanded={menuOpen}
                  onClick={(event) => {
                    // Opens upwards when the list has too little room below the button.
                    const button = event.currentTarget.getBoundingClientRect();
                    const list = event.currentTarget.closest('[role="log"]')?.getBoundingClientRect();
                    setMenuUp(list !== undefined && list.bottom - button.bottom < menuHeightPx);
                    setMenuOpen((open) => !open);
                  }}
                >
                  <EllipsisVertical size={16} aria-hidden="true" />
                </button>
                {menuOpen && (
                  <div
                    className={`${styles.menu} ${menuUp ? styles.menuUp : ''}`}
                    role="menu"
                    aria-label="Message actions"
                  >
                    <button type="button" role="menuitem" className={styles.menuItem} onClick={startEdit}>
                      <Pencil size={15} aria-hidden="true" />
                      Edit
                    </button>
                    <button
                      type="button"
                      role="menuitem"
                      className={`${styles.menuItem} ${styles.menuDanger}`}
                      onClick={() => {
                        setMenuOpen(false);
                        onDelete(message.id);
                      }}
                    >
                      <Trash2 size={15} aria-hidden="true" />
                      Delete
                    </button>
                  </div>
                )}
              </div>
            )}
          </div>
        )}
        {!editing && (
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
        )}
      </div>
    </li>
  );
});
