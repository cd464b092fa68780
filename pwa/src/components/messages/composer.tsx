import { useEffect, useId, useLayoutEffect, useRef, useState, type ChangeEvent, type KeyboardEvent } from 'react';
import { CircleAlert, Paperclip, SendHorizontal, Smile, X } from 'lucide-react';
import { chatLimits, formatFileSize, mentionQueryAt } from '@office/sync-protocol';
import { UserAvatar } from '../user-avatar';
import type { OutboxEntry } from '../../data/db';
import { useOutbox } from '../../data/hooks';
import { useDraft } from '../../data/use-draft';
import { useWriteQueue } from '../../data/use-write-queue';
import { LocalWriteError } from '../../sync/mutate';
import { whoIsWho } from '../../data/people';
import { suggestMentions, type MentionCandidate } from './mention-suggestions';
import { addFiles, fileKey } from './selected-files';
import styles from './composer.module.css';

/** What the screen around the composer decides: its texts, files, emojis and how a message is queued. */
export interface ComposerProps {
  /** Where the unsent text is kept (`draftKeys`): one draft per conversation. */
  draftKey: string;
  /** Tells the others when this user types (a screen's TypingAnnouncer): a keystroke, or a stop. */
  announcer: { input: (hasText: boolean) => void; stop: () => void };
  /** The text box's placeholder, which also names it. */
  placeholder: string;
  /** The file picker's accept list. */
  accept: string;
  /** Whether a picked file is of a type this screen takes (the picker's filter can be switched off). */
  acceptsFile?: (file: File) => boolean;
  emojis: readonly string[];
  /** Whom typing `@` offers (the team, or a conversation's other participant), from the local directory. */
  mentionables: readonly MentionCandidate[];
  /**
   * Queues the message (text trimmed; files possibly none); rejects when it cannot be saved. Sends run
   * one after another in the order they were made.
   */
  onSend: (message: { text: string; files: File[] }) => Promise<void>;
  /** The error shown when sending fails for a reason other than invalid input or a full disk. */
  failureText: (withFiles: boolean) => string;
  /** Which refused write is this composer's upload: its reason shows above the composer. */
  isRefusedUpload: (entry: OutboxEntry) => boolean;
  /** Shown for a refused upload whose refusal carries no text. */
  refusedUploadText: string;
}

/**
 * The message box: files, text, emojis and send. Everything is a local write that syncs when it can:
 * files wait in IndexedDB and upload once online, in the order they were sent. A send takes the text
 * and files at once, so the next message can be typed (and sent) while this one is stored; a send
 * that cannot be stored puts them back.
 */
export function Composer({
  draftKey,
  announcer,
  placeholder,
  accept,
  acceptsFile,
  emojis,
  mentionables,
  onSend,
  failureText,
  isRefusedUpload,
  refusedUploadText,
}: ComposerProps) {
  const outbox = useOutbox() ?? [];
  const refusedUpload = outbox.findLast((entry) => entry.status === 'failed' && isRefusedUpload(entry));
  const pickerId = useId();
  const textRef = useRef<HTMLTextAreaElement>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const emojiRef = useRef<HTMLDivElement>(null);
  const draft = useDraft(draftKey);
  const text = draft.text;
  const writes = useWriteQueue();
  const sending = writes.busy;
  const [files, setFiles] = useState<File[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [emojiOpen, setEmojiOpen] = useState(false);
  // Where the caret is, so the `@` being typed before it can be read; and the `@` whose list Escape closed.
  const [caret, setCaret] = useState<number | null>(null);
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  const [activeIndex, setActiveIndex] = useState(0);
  const listId = useId();

  const mentionQuery = caret === null ? null : mentionQueryAt(text, Math.min(caret, text.length));
  const suggestions = mentionQuery ? suggestMentions(mentionables, mentionQuery.query) : [];
  const mentionOpen = mentionQuery !== null && mentionQuery.at !== dismissedAt && suggestions.length > 0;
  const active = mentionOpen ? Math.min(activeIndex, suggestions.length - 1) : -1;
  const optionId = (index: number) => `${listId}-option-${index}`;

  const trimmed = text.trim();
  const hasFiles = files.length > 0;
  const hasMessage = trimmed !== '' || hasFiles;

  /**
   * Where the caret goes once a text this component wrote (a mention, an emoji) is on screen. It is placed as
   * React commits that text, before the next key is handled: placed a frame later, it moved the caret back
   * over whatever a fast typist had typed in between.
   */
  const caretAfterWrite = useRef<number | null>(null);

  // The text box grows with its content up to its CSS max height.
  useLayoutEffect(() => {
    const field = textRef.current;
    if (!field) return;
    field.style.height = 'auto';
    field.style.height = `${field.scrollHeight}px`;
    const position = caretAfterWrite.current;
    if (position === null) return;
    caretAfterWrite.current = null;
    field.focus();
    field.setSelectionRange(position, position);
  }, [text]);

  // The emoji grid closes on a click elsewhere or Escape.
  useEffect(() => {
    if (!emojiOpen) return undefined;
    const handlePointer = (event: PointerEvent) => {
      if (!emojiRef.current?.contains(event.target as Node)) setEmojiOpen(false);
    };
    const handleKey = (event: globalThis.KeyboardEvent) => {
      if (event.key === 'Escape') {
        setEmojiOpen(false);
        textRef.current?.focus();
      }
    };
    document.addEventListener('pointerdown', handlePointer);
    document.addEventListener('keydown', handleKey);
    return () => {
      document.removeEventListener('pointerdown', handlePointer);
      document.removeEventListener('keydown', handleKey);
    };
  }, [emojiOpen]);

  const updateText = (value: string) => {
    draft.change(value);
    announcer.input(value.trim() !== '');
  };

  const followCaret = (field: HTMLTextAreaElement) => {
    const at = field.selectionStart === field.selectionEnd ? field.selectionStart : null;
    setCaret(at);
    const query = at === null ? null : mentionQueryAt(field.value, at);
    if (query?.at !== mentionQuery?.at || query?.query !== mentionQuery?.query) setActiveIndex(0);
    if (query?.at !== dismissedAt) setDismissedAt(null);
  };

  /** Puts "@Full Name " in place of the `@` and what was typed after it, and the caret after it. */
  const insertMention = (person: MentionCandidate) => {
    if (!mentionQuery || caret === null) return;
    const inserted = `@${person.name} `;
    const end = Math.min(caret, text.length);
    const next = text.slice(0, mentionQuery.at) + inserted + text.slice(end);
    if (next.length > chatLimits.textMax) return;
    updateText(next);
    const position = mentionQuery.at + inserted.length;
    caretAfterWrite.current = position;
    setCaret(position);
    setActiveIndex(0);
  };

  const send = () => {
    if (!hasMessage) return;
    const taken = draft.take();
    const message = { text: taken.text.trim(), files };
    setFiles([]);
    setError(null);
    announcer.stop();
    writes
      .run(() => onSend(message))
      .catch((sendError: unknown) => {
        taken.putBack();
        setFiles((current) => addFiles(message.files, current).files);
        if (sendError instanceof LocalWriteError) setError(sendError.message);
        else {
          console.error('Sending the message failed', sendError);
          setError(failureText(message.files.length > 0));
        }
      });
  };

  const handleKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (mentionOpen && !event.nativeEvent.isComposing) {
      const chosen = suggestions[active];
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        const step = event.key === 'ArrowDown' ? 1 : -1;
        setActiveIndex((active + step + suggestions.length) % suggestions.length);
        return;
      }
      if ((event.key === 'Enter' || event.key === 'Tab') && !event.shiftKey && chosen) {
        event.preventDefault();
        insertMention(chosen);
        return;
      }
      if (event.key === 'Escape') {
        // Closes the list only: the screen around the composer does not see this Escape.
        event.preventDefault();
        event.stopPropagation();
        setDismissedAt(mentionQuery.at);
        return;
      }
    }
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  };

  const handleFiles = (event: ChangeEvent<HTMLInputElement>) => {
    const picked = Array.from(event.target.files ?? []);
    // Cleared so picking the same file again after removing it still fires a change.
    event.target.value = '';
    if (picked.length === 0) return;
    const result = addFiles(files, picked, acceptsFile);
    setFiles(result.files);
    setError(result.problem);
  };

  const removeFile = (file: File) => {
    setFiles((current) => current.filter((candidate) => candidate !== file));
    setError(null);
  };

  const insertEmoji = (emoji: string) => {
    const field = textRef.current;
    if (text.length + emoji.length > chatLimits.textMax) return;
    const start = field?.selectionStart ?? text.length;
    const end = field?.selectionEnd ?? text.length;
    const next = text.slice(0, start) + emoji + text.slice(end);
    caretAfterWrite.current = start + emoji.length;
    updateText(next);
    setEmojiOpen(false);
  };

  const nearLimit = text.length >= chatLimits.textMax - 100;

  return (
    <div className={styles.composer}>
      {mentionOpen && (
        <ul id={listId} className={styles.mentionList} role="listbox" aria-label="People to mention">
          {suggestions.map((person, index) => (
            <li
              key={person.id}
              id={optionId(index)}
              role="option"
              aria-selected={index === active}
              className={styles.mentionOption}
              // The text box keeps the focus (and the caret) while an option is picked.
              onPointerDown={(event) => event.preventDefault()}
              onClick={() => insertMention(person)}
            >
              <span aria-hidden="true">
                <UserAvatar src={person.avatar} name={person.name} size={24} />
              </span>
              <span className={styles.mentionText}>
                <span className={styles.mentionName} data-name="">
                  {person.name}
                </span>
                {whoIsWho(person) && <span className={styles.mentionWho}>{whoIsWho(person)}</span>}
              </span>
            </li>
          ))}
        </ul>
      )}
      {refusedUpload && !error && (
        <p className={styles.composerError} role="alert">
          <CircleAlert size={16} aria-hidden="true" />
          {refusedUpload.error?.message || refusedUploadText}
        </p>
      )}
      {error && (
        <p className={styles.composerError} role="alert">
          <CircleAlert size={16} aria-hidden="true" />
          {error}
        </p>
      )}
      {hasFiles && (
        <div className={styles.selectedBar}>
          <ul className={styles.selectedFiles} aria-label="Selected files">
            {files.map((file) => (
              <li key={fileKey(file)} className={styles.selectedFile}>
                <Paperclip size={14} aria-hidden="true" />
                <span className={styles.selectedFileName} title={file.name}>
                  {file.name}
                </span>
                <span className={styles.selectedFileSize}>{formatFileSize(file.size)}</span>
                <button
                  type="button"
                  className={styles.selectedFileRemove}
                  aria-label={`Remove ${file.name}`}
                  onClick={() => removeFile(file)}
                >
                  <X size={14} aria-hidden="true" />
                </button>
              </li>
            ))}
          </ul>
          <button
            type="button"
            className={styles.clearFiles}
            onClick={() => {
              setFiles([]);
              setError(null);
            }}
          >
            Clear all
          </button>
        </div>
      )}
      <div className={styles.composerRow}>
        <input
          ref={fileRef}
          id={pickerId}
          type="file"
          multiple
          accept={accept}
          className={styles.fileInput}
          tabIndex={-1}
          aria-hidden="true"
          onChange={handleFiles}
        />
        <button
          type="button"
          className={styles.composerIcon}
          aria-label="Attach files"
          title="Attach files"
          onClick={() => fileRef.current?.click()}
        >
          <Paperclip size={20} aria-hidden="true" />
        </button>
        <div className={styles.inputWrap}>
          <textarea
            ref={textRef}
            className={styles.textInput}
            placeholder={placeholder}
            aria-label={placeholder}
            // The combobox pattern: typing `@` opens a list of people, chosen with the arrow keys and Enter or Tab.
            role="combobox"
            aria-autocomplete="list"
            aria-expanded={mentionOpen}
            aria-controls={mentionOpen ? listId : undefined}
            aria-activedescendant={mentionOpen ? optionId(active) : undefined}
            rows={1}
            maxLength={chatLimits.textMax}
            value={text}
            onChange={(event) => {
              updateText(event.target.value);
              followCaret(event.target);
            }}
            onSelect={(event) => followCaret(event.currentTarget)}
            onKeyDown={handleKeyDown}
            onBlur={() => {
              setCaret(null);
              if (text.trim() === '') announcer.stop();
            }}
          />
          {nearLimit && (
            <span className={styles.counter} aria-live="polite">
              {text.length}/{chatLimits.textMax}
            </span>
          )}
        </div>
        <div className={styles.emojiWrap} ref={emojiRef}>
          <button
            type="button"
            className={styles.composerIcon}
            aria-label="Add emoji"
            title="Add emoji"
            aria-haspopup="true"
            aria-expanded={emojiOpen}
            onClick={() => setEmojiOpen((open) => !open)}
          >
            <Smile size={20} aria-hidden="true" />
          </button>
          {emojiOpen && (
            <div className={styles.emojiPicker} role="group" aria-label="Emojis">
              {emojis.map((emoji) => (
                <button
                  key={emoji}
                  type="button"
                  className={styles.emojiButton}
                  aria-label={emoji}
                  onClick={() => insertEmoji(emoji)}
                >
                  {emoji}
                </button>
              ))}
            </div>
          )}
        </div>
        <button
          type="button"
          className={styles.sendButton}
          aria-label="Send message"
          title="Send message"
          aria-busy={sending}
          // Spec section 4: disabled while sending. Enter is never held up by it.
          disabled={!hasMessage || sending}
          onClick={send}
        >
          {sending ? (
            <span className={styles.sendSpinner} aria-hidden="true" />
          ) : (
            <SendHorizontal size={20} aria-hidden="true" />
          )}
        </button>
      </div>
    </div>
  );
}
