import type { ReactNode } from 'react';
import styles from './page-header.module.css';

interface PageHeaderProps {
  title: string;
  subtitle?: ReactNode;
  /** Buttons on the right, e.g. "Create Task". */
  actions?: ReactNode;
}

/** The title block at the top of every signed-in screen. */
export function PageHeader({ title, subtitle, actions }: PageHeaderProps) {
  return (
    <div className={styles.header}>
      <div className={styles.text}>
        {/* Focusable by script only: the shell moves focus here after a navigation. */}
        <h1 className={styles.title} tabIndex={-1}>
          {title}
        </h1>
        {subtitle !== undefined && <p className={styles.subtitle}>{subtitle}</p>}
      </div>
      {actions !== undefined && <div className={styles.actions}>{actions}</div>}
    </div>
  );
}
