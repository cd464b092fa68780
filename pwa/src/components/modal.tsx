import { useId, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { X } from 'lucide-react';
import { useFocusTrap } from './focus-trap';
import styles from './modal.module.css';

interface ModalProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
  /** Buttons at the bottom, right-aligned. */
  footer?: ReactNode;
  size?: 'small' | 'medium' | 'large';
  /** `alertdialog` for a question or a failure the person must answer before going on. */
  role?: 'dialog' | 'alertdialog';
  /** The id of the text that says what the dialog is about, read with its name. */
  describedBy?: string;
}

/**
 * A dialog over the page: named by its title; focus stays inside while it is open (Tab and Shift+Tab
 * wrap) and returns to the control that opened it; Escape, the close button or a click outside closes it.
 */
export function Modal({ title, onClose, children, footer, size = 'medium', role = 'dialog', describedBy }: ModalProps) {
  const titleId = useId();
  const dialogRef = useRef<HTMLDivElement>(null);
  const bodyRef = useRef<HTMLDivElement>(null);
  useFocusTrap(dialogRef, onClose);

  // A body that scrolls is a tab stop, so its content can be scrolled from the keyboard.
  const [scrollable, setScrollable] = useState(false);
  useLayoutEffect(() => {
    const body = bodyRef.current;
    if (!body) return undefined;
    const measure = () => setScrollable(body.scrollHeight > body.clientHeight + 1);
    measure();
    if (typeof ResizeObserver === 'undefined') return undefined;
    const observer = new ResizeObserver(measure);
    observer.observe(body);
    for (const child of Array.from(body.children)) observer.observe(child);
    return () => observer.disconnect();
  }, []);

  return (
    <div className={styles.backdrop} onMouseDown={(event) => event.target === event.currentTarget && onClose()}>
      <div
        ref={dialogRef}
        className={`${styles.dialog} ${styles[size]}`}
        role={role}
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={describedBy}
        tabIndex={-1}
      >
        <div className={styles.header}>
          <h2 id={titleId} className={styles.title}>
            {title}
          </h2>
          <button type="button" className={styles.close} aria-label="Close" onClick={onClose}>
            <X size={20} aria-hidden="true" />
          </button>
        </div>
        <div
          ref={bodyRef}
          className={styles.body}
          tabIndex={scrollable ? 0 : undefined}
          role={scrollable ? 'region' : undefined}
          aria-labelledby={scrollable ? titleId : undefined}
        >
          {children}
        </div>
        {footer ? <div className={styles.footer}>{footer}</div> : null}
      </div>
    </div>
  );
}
