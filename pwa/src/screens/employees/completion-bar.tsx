import { completionTone } from '../../components/tasks/task-display';
import styles from './employees.module.css';

/** The completion-rate bar with its percentage; green at 80 or above, amber at 60 or above, red below. */
export function CompletionBar({ rate, size = 'small' }: { rate: number; size?: 'small' | 'large' }) {
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
