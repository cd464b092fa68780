import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import type { LucideIcon } from 'lucide-react';
import styles from './stat-card.module.css';

/** The icon colour of a stat card. */
export type StatTone = 'neutral' | 'brand' | 'amber' | 'green' | 'violet' | 'red';

interface StatCardProps {
  icon: LucideIcon;
  label: string;
  value: number | string;
  tone: StatTone;
  /** Colours the number itself, e.g. the completion rate. */
  valueTone?: 'good' | 'fair' | 'poor';
  /** How the value is read out when its shown form is a sign (a dash for "no tasks"). */
  spokenValue?: string;
  /** Extra content under the number, e.g. a progress bar. */
  children?: ReactNode;
  /** The list behind the number (e.g. "/tasks?status=pending"): the card becomes a link to it. */
  to?: string;
}

/**
 * One number of a screen's summary; read as "Label: value" by assistive technology and tests. With
 * `to` it is a link to the list it counts.
 */
export function StatCard({ icon: Icon, label, value, tone, valueTone, spokenValue, children, to }: StatCardProps) {
  const content = (
    <>
      <span className={`${styles.icon} ${styles[tone]}`} aria-hidden="true">
        <Icon size={20} />
      </span>
      <div className={styles.text}>
        <span className={styles.label}>{label}</span>
        <span className={`${styles.value} ${valueTone ? styles[valueTone] : ''}`}>{value}</span>
        {children}
      </div>
    </>
  );
  const name = `${label}: ${spokenValue ?? value}`;
  return to === undefined ? (
    <div className={styles.card} role="group" aria-label={name}>
      {content}
    </div>
  ) : (
    <Link className={`${styles.card} ${styles.link}`} to={to} aria-label={name}>
      {content}
    </Link>
  );
}

/** The grid of stat cards; `columns` is how many fit in a row on a wide screen. */
export function StatGrid({ label, columns, children }: { label: string; columns: 4 | 6; children: ReactNode }) {
  return (
    <section className={`${styles.grid} ${columns === 4 ? styles.four : styles.six}`} aria-label={label}>
      {children}
    </section>
  );
}
