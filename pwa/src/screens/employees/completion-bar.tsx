import { completionTone } from '../../components/tasks/task-display';
import styles from './employees.module.css';

interface CompletionBarProps {
  rate: number;
  /** The tasks the rate is of: without any there is no rate, and nothing to colour red. */
  total: number;
  size?: 'small' | 'large';
}

/**
 * The completion-rate bar with its percentage; green at 80 or above, amber at 60 or above, red below. Someone
 * without tasks has no rate: "No tasks", in neutral grey, over an empty track.
 */
export function CompletionBar({ rate, total, size = 'small' }: CompletionBarProps) {
  if (total === 0) {
    return (
      <div className={`${styles.rate} ${size === 'large' ? styles.rateLarge : ''}`}>
        <div className={styles.rateHead}>
          <span className={styles.rateLabel}>Completion Rate</span>
          <span className={`${styles.rateValue} ${styles.noRate}`}>No tasks</span>
        </div>
        <span className={styles.rateTrack} aria-hidden="true" />
      </div>
    );
  }
  const tone = completionTone(rate);
  return (
    <div className={`${styles.rate} ${size === 'large' ? styles.rateLarge : ''}`}>
      <div className={styles.rateHead}>
        <span className={styles.rateLabel}>Completion Rate</span>
        <span className={`${styles.rateValue} ${styles[`${tone}Text`]}`}>{rate}%</span>
      </div>
      <div
        className={styles.rateTrack}
        role="progressbar"
        aria-label="Completion rate"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={rate}
        aria-valuetext={`${rate}%`}
      >
        <span className={`${styles.rateBar} ${styles[tone]}`} style={{ width: `${rate}%` }} />
      </div>
    </div>
  );
}
