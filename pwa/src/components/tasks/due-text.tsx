import type { ReactNode } from 'react';
import type { DueLabel } from './task-due';
import styles from './due-text.module.css';

/** A task's due line (or, once completed, when it was completed) in its tone, the exact date as a tooltip. */
export function DueText({
  label,
  icon,
  className,
}: {
  label: DueLabel;
  icon?: ReactNode;
  className?: string | undefined;
}) {
  return (
    <span className={`${styles.due} ${styles[label.tone]} ${className ?? ''}`} title={label.title}>
      {icon}
      {label.text}
    </span>
  );
}
