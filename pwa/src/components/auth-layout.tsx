import type { ReactNode } from 'react';
import { BrandMark } from './brand-mark';
import styles from './auth-layout.module.css';

interface AuthLayoutProps {
  title: string;
  subtitle: string;
  children: ReactNode;
  /** The line under the card, e.g. the link to the other auth screen. */
  footer: ReactNode;
}

/** The centred card of the login and signup screens. */
export function AuthLayout({ title, subtitle, children, footer }: AuthLayoutProps) {
  return (
    <div className={styles.page}>
      <main className={styles.card}>
        <div className={styles.brand}>
          <BrandMark size={44} />
          <span className={styles.brandName}>Office Workspace</span>
        </div>
        <div className={styles.heading}>
          <h1 className={styles.title}>{title}</h1>
          <p className={styles.subtitle}>{subtitle}</p>
        </div>
        {children}
        <p className={styles.footer}>{footer}</p>
      </main>
    </div>
  );
}
