import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { chatLimits } from '@office/sync-protocol';
import styles from './message-item.module.css';

interface MessageEditBoxProps {
  /** The message's text as it is saved. */
  text: string;
  /** Saves an edit; resolves with an error message, or null when saved. */
  onSave: (text: string) => Promise<string | null>;
  /** Leaves edit mode (after a save, on Cancel or Escape). */
  onClose: () => void;
}

/** A message in edit mode: its text in a growing box, Enter or Save to save, Escape or Cancel to leave. */
export function MessageEditBox({ text, onSave, onClose }: MessageEditBoxProps) {
  const [draft, setDraft] = useState(text);
  const [error, setError] = useState<string | null>(null);
  const fieldRef = useRef<HTMLTextAreaElement>(null);

  // Edit mode starts with the caret at the end of the text.
  useEffect(() => {
    const field = fieldRef.current;
    if (!field) return;
    field.focus();
    field.setSelectionRange(field.value.length, field.value.length);
  }, []);

  // The edit box grows with its text up to its CSS max height.
  useLayoutEffect(() => {
    const field = fieldRef.current;
    if (!field) return;
    field.style.height = 'auto';
    field.style.height = `${field.scrollHeight + 2}px`;
    // Save and Cancel stay in view while the box grows near the bottom of the list.
    field.parentElement?.scrollIntoView({ block: 'nearest' });
  }, [draft]);

  const save = async () => {
    const trimmed = draft.trim();
    // Spec section 4: an edit is saved only if non-empty after trimming.
    if (trimmed === '') return;
    if (trimmed === text) {
      onClose();
      return;
    }
    const failure = await onSave(trimmed);
    if (failure === null) onClose();
    else setError(failure);
  };
  const handleKey = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void save();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      onClose();
    }
  };

  return (
    <div className={styles.editBox}>
      <textarea
        ref={fieldRef}
        className={styles.editInput}
        aria-label="Edit message"
        value={draft}
        maxLength={chatLimits.textMax}
        rows={2}
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={handleKey}
      />
      {error && (
        <p className={styles.editError} role="alert">
          {error}
        </p>
      )}
      <div className={styles.editActions}>
        <span className={styles.editHint}>Enter to save · Esc to cancel</span>
        <button type="button" className={styles.editCancel} onClick={onClose}>
          Cancel
        </button>
        <button type="button" className={styles.editSave} disabled={draft.trim() === ''} onClick={() => void save()}>
          Save
        </button>
      </div>
    </div>
  );
}
