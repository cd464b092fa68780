import type { ReactNode } from 'react';
import styles from './notifications-section.module.css';

interface SwitchRowProps {
  /** Prefix of the label's and hint's ids. */
  id: string;
  icon?: ReactNode;
  label: string;
  hint: string;
  checked: boolean;
  onToggle: () => void;
  disabled?: boolean;
  busy?: boolean;
  /** The id of a note that also explains the switch (why it cannot be used, say). */
  noteId?: string | null;
}

/** One on/off setting: a label, a hint and a switch named by them. */
export function SwitchRow({ id, icon, label, hint, checked, onToggle, disabled, busy, noteId }: SwitchRowProps) {
  return (
    <div className={styles.row}>
      {icon ? (
        <span className={styles.icon} aria-hidden="true">
          {icon}
        </span>
      ) : null}
      <div className={styles.text}>
        <span id={`${id}-label`} className={styles.label}>
          {label}
        </span>
        <span id={`${id}-hint`} className={styles.hint}>
          {hint}
        </span>
      </div>
      <button
        type="button"
        role="switch"
        className={styles.switch}
        aria-checked={checked}
        aria-labelledby={`${id}-label`}
        aria-describedby={noteId ? `${id}-hint ${noteId}` : `${id}-hint`}
        aria-busy={busy}
        disabled={disabled}
        onClick={onToggle}
      >
        <span className={styles.thumb} />
      </button>
    </div>
  );
}
