import type { PresenceStatus } from '@office/sync-protocol';
import { lastSeenText, presenceLabels } from './employee-format';
import styles from './employees.module.css';

/** "Online", "Away", or "Offline · Last seen 5 minutes ago" with a coloured dot. */
export function PresenceText({
  presence,
  lastSeen,
  now,
}: {
  presence: PresenceStatus;
  lastSeen: string | null;
  now: number;
}) {
  const seen = presence === 'offline' ? lastSeenText(lastSeen, now) : null;
  return (
    <p className={styles.presence}>
      <span className={`${styles.presenceDot} ${styles[presence]}`} aria-hidden="true" />
      <span className={`${styles.presenceLabel} ${styles[`${presence}Text`]}`}>{presenceLabels[presence]}</span>
      {seen !== null && <span className={styles.lastSeen}>{seen}</span>}
    </p>
  );
}
