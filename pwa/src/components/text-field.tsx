import { useId, useState, type InputHTMLAttributes, type ReactNode } from 'react';
import { Eye, EyeOff } from 'lucide-react';
import styles from './text-field.module.css';

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'type' | 'className' | 'onChange' | 'value'>;

interface TextFieldProps extends InputProps {
  label: string;
  value: string;
  onValueChange: (value: string) => void;
  /** 'password' for a field whose visibility the form controls (several fields, one toggle). */
  type?: 'text' | 'email' | 'password';
  /** An icon shown inside the field, on the left. */
  icon?: ReactNode;
}

/** A labelled text input. */
export function TextField({ label, value, onValueChange, type = 'text', icon, ...inputProps }: TextFieldProps) {
  const id = useId();
  return (
    <div className={styles.field}>
      <label className={styles.label} htmlFor={id}>
        {label}
      </label>
      <div className={styles.control}>
        {icon !== undefined && (
          <span className={styles.icon} aria-hidden="true">
            {icon}
          </span>
        )}
        <input
          {...inputProps}
          id={id}
          type={type}
          className={`${styles.input} ${icon !== undefined ? styles.withIcon : ''}`}
          value={value}
          onChange={(event) => onValueChange(event.target.value)}
        />
      </div>
    </div>
  );
}

interface PasswordFieldProps extends InputProps {
  label: string;
  value: string;
  onValueChange: (value: string) => void;
  icon?: ReactNode;
}

/** A labelled password input with a show/hide toggle. */
export function PasswordField({ label, value, onValueChange, icon, ...inputProps }: PasswordFieldProps) {
  const id = useId();
  const [visible, setVisible] = useState(false);
  return (
    <div className={styles.field}>
      <label className={styles.label} htmlFor={id}>
        {label}
      </label>
      <div className={styles.control}>
        {icon !== undefined && (
          <span className={styles.icon} aria-hidden="true">
            {icon}
          </span>
        )}
        <input
          {...inputProps}
          id={id}
          type={visible ? 'text' : 'password'}
          className={`${styles.input} ${styles.withToggle} ${icon !== undefined ? styles.withIcon : ''}`}
          value={value}
          onChange={(event) => onValueChange(event.target.value)}
        />
        <button
          type="button"
          className={styles.toggle}
          aria-label={visible ? 'Hide password' : 'Show password'}
          aria-controls={id}
          onClick={() => setVisible((shown) => !shown)}
        >
          {visible ? <EyeOff size={18} aria-hidden="true" /> : <Eye size={18} aria-hidden="true" />}
        </button>
      </div>
    </div>
  );
}
