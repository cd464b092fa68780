import type { ReactNode } from 'react';
import { Info } from 'lucide-react';
import styles from './form-notice.module.css';

/** A neutral note above a form (not an error): read out politely by screen readers. */
export function FormNotice({ children }: { children: ReactNode }) {
  return (
    <div className={styles.notice} role="status">
      <Info size={18} aria-hidden="true" className={styles.icon} />
      <span>{children}</span>
    </div>
  );
}
