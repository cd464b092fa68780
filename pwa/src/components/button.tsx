import type { ButtonHTMLAttributes, ReactNode } from 'react';
import { LoaderCircle } from 'lucide-react';
import styles from './button.module.css';

interface ButtonProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'className'> {
  variant?: 'primary' | 'secondary' | 'danger';
  size?: 'medium' | 'small';
  /** Full width of its container. */
  block?: boolean;
  /** Shows a spinner and disables the button; the label should say what is happening. */
  busy?: boolean;
  children: ReactNode;
}

/** The app's button. */
export function Button({
  variant = 'primary',
  size = 'medium',
  block = false,
  busy = false,
  disabled,
  children,
  ...rest
}: ButtonProps) {
  const classes = [
    styles.button,
    styles[variant],
    size === 'small' ? styles.small : '',
    block ? styles.block : '',
  ].join(' ');
  return (
    <button type="button" {...rest} className={classes} disabled={disabled === true || busy} aria-busy={busy}>
      {busy && <LoaderCircle size={18} aria-hidden="true" className={styles.spinner} />}
      {children}
    </button>
  );
}
