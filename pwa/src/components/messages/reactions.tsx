import { useEffect, useRef, type KeyboardEvent, type RefObject } from 'react';
import { SmilePlus } from 'lucide-react';
import { reactionEmojis, type MessageReaction, type ReactionEmoji } from '@office/sync-protocol';
import type { People } from '../../data/people';
import itemStyles from './message-item.module.css';
import styles from './reactions.module.css';

/** Who gave a reaction, as people read it: "You" for the signed-in person, others by their directory name. */
export function reactorNames(userIds: readonly string[], selfId: string, people: People): string {
  return userIds.map((id) => (id === selfId ? 'You' : (people.get(id)?.name ?? 'Former member'))).join(', ');
}

/** The accessible name of a reaction: emoji, count, who, and what pressing it does. */
export function reactionLabel(reaction: MessageReaction, selfId: string, people: People, queued: boolean): string {
  const mine = reaction.userIds.includes(selfId);
  const action = mine ? 'Remove your reaction' : 'Add your reaction';
  const names = reactorNames(reaction.userIds, selfId, people);
  return `${reaction.emoji} ${reaction.userIds.length}: ${names}. ${action}${queued ? ' (waiting to sync)' : ''}`;
}

interface ReactionButtonProps {
  open: boolean;
  buttonRef: RefObject<HTMLButtonElement | null>;
  onToggle: () => void;
}

/** "Add reaction" beside a message: opens the picker (shown with the message's reactions, below it). */
export function ReactionButton({ open, buttonRef, onToggle }: ReactionButtonProps) {
  return (
    <button
      ref={buttonRef}
      type="button"
      className={itemStyles.menuButton}
      aria-label="Add reaction"
      title="Add reaction"
      aria-expanded={open}
      onClick={onToggle}
    >
      <SmilePlus size={16} aria-hidden="true" />
    </button>
  );
}

interface ReactionListProps {
  reactions: readonly MessageReaction[];
  selfId: string;
  people: People;
  /** Emojis whose change from this device is still queued. */
  queued: ReadonlySet<string> | undefined;
  pickerOpen: boolean;
  /** The "Add reaction" button: focus goes back to it when the picker closes from the keyboard. */
  buttonRef: RefObject<HTMLButtonElement | null>;
  onClosePicker: () => void;
  onReact: (emoji: ReactionEmoji, on: boolean) => void;
}

/** A message's reactions (each toggles the signed-in person's own) and, when open, the picker of the set. */
export function ReactionList({
  reactions,
  selfId,
  people,
  queued,
  pickerOpen,
  buttonRef,
  onClosePicker,
  onReact,
}: ReactionListProps) {
  const pickerRef = useRef<HTMLDivElement>(null);

  // The picker takes the focus when it opens, and closes on a press anywhere else.
  useEffect(() => {
    if (!pickerOpen) return undefined;
    pickerRef.current?.querySelector('button')?.focus();
    const handlePointer = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!pickerRef.current?.contains(target) && !buttonRef.current?.contains(target)) onClosePicker();
    };
    document.addEventListener('pointerdown', handlePointer);
    return () => document.removeEventListener('pointerdown', handlePointer);
  }, [pickerOpen, buttonRef, onClosePicker]);

  if (reactions.length === 0 && !pickerOpen) return null;

  const closeToButton = () => {
    onClosePicker();
    buttonRef.current?.focus();
  };
  // Arrow keys, Home and End move along the set; Escape closes it.
  const handlePickerKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const options = [...(pickerRef.current?.querySelectorAll('button') ?? [])];
    const at = options.indexOf(document.activeElement as HTMLButtonElement);
    const next: Record<string, number> = {
      ArrowRight: (at + 1) % options.length,
      ArrowDown: (at + 1) % options.length,
      ArrowLeft: (at - 1 + options.length) % options.length,
      ArrowUp: (at - 1 + options.length) % options.length,
      Home: 0,
      End: options.length - 1,
    };
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      closeToButton();
    } else if (event.key in next) {
      event.preventDefault();
      options[next[event.key] ?? 0]?.focus();
    }
  };
  const mineOf = (emoji: ReactionEmoji) =>
    reactions.find((reaction) => reaction.emoji === emoji)?.userIds.includes(selfId) ?? false;

  return (
    <div className={styles.row}>
      {reactions.length > 0 && (
        <ul className={`${styles.row} ${styles.list}`} aria-label="Reactions">
          {reactions.map((reaction) => {
            const mine = reaction.userIds.includes(selfId);
            const isQueued = queued?.has(reaction.emoji) ?? false;
            return (
              <li key={reaction.emoji}>
                <button
                  type="button"
                  className={`${styles.chip} ${isQueued ? styles.queued : ''}`}
                  aria-pressed={mine}
                  aria-label={reactionLabel(reaction, selfId, people, isQueued)}
                  title={reactorNames(reaction.userIds, selfId, people)}
                  onClick={() => onReact(reaction.emoji, !mine)}
                >
                  <span className={styles.emoji} aria-hidden="true">
                    {reaction.emoji}
                  </span>
                  <span className={styles.count} aria-hidden="true">
                    {reaction.userIds.length}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {pickerOpen && (
        <div
          ref={pickerRef}
          className={styles.picker}
          role="group"
          aria-label="Choose a reaction"
          onKeyDown={handlePickerKey}
        >
          {reactionEmojis.map((emoji) => {
            const mine = mineOf(emoji);
            return (
              <button
                key={emoji}
                type="button"
                className={styles.option}
                aria-pressed={mine}
                aria-label={`${mine ? 'Remove reaction' : 'Add reaction'} ${emoji}`}
                title={`${mine ? 'Remove reaction' : 'Add reaction'} ${emoji}`}
                onClick={() => {
                  onReact(emoji, !mine);
                  closeToButton();
                }}
              >
                {emoji}
              </button>
            );
          })}
        </div>
      )}
    </div>
  );
}
