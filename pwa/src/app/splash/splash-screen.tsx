import { useEffect, useState } from 'react';
import { ListChecks, MessagesSquare, UsersRound, type LucideIcon } from 'lucide-react';
import { splashTimings } from '@office/sync-protocol';
import { BrandMark } from '../../components/brand-mark';
import styles from './splash-screen.module.css';

interface Feature {
  icon: LucideIcon;
  title: string;
  description: string;
}

const features: readonly Feature[] = [
  { icon: ListChecks, title: 'Task Management', description: 'Create, assign and track work to done.' },
  { icon: MessagesSquare, title: 'Team Communication', description: 'Chat with the team or message anyone directly.' },
  { icon: UsersRound, title: 'Team Management', description: 'See who is on the team and how work is going.' },
];

/** Loading bar fill per stage: before the first stage, then after each of the four. */
const progressByStage = [4, 30, 60, 88, 100] as const;

interface SplashScreenProps {
  /** Called once the splash has faded out and the hand-over delay has passed. */
  onDone: () => void;
}

/** The start screen of spec section 2: stages at 0.1, 0.8, 1.6 and 2.4 s, fade from 2.4 s, done at 3 s. */
export function SplashScreen({ onDone }: SplashScreenProps) {
  const [stage, setStage] = useState(0);
  const [fading, setFading] = useState(false);

  useEffect(() => {
    const timers = splashTimings.stages.map((at, index) => setTimeout(() => setStage(index + 1), at));
    timers.push(setTimeout(() => setFading(true), splashTimings.fadeFrom));
    timers.push(setTimeout(onDone, splashTimings.done + splashTimings.handOver));
    return () => timers.forEach(clearTimeout);
  }, [onDone]);

  const progress = progressByStage[stage] ?? 100;
  const fadeMs = splashTimings.done - splashTimings.fadeFrom;

  return (
    <div
      className={`${styles.splash} ${fading ? styles.fading : ''}`}
      style={{ transitionDuration: `${fadeMs}ms` }}
      role="status"
      aria-label="Loading Office Workspace"
      aria-busy="true"
    >
      <div className={styles.glow} aria-hidden="true" />
      <div className={styles.content}>
        <div className={`${styles.brand} ${stage >= 1 ? styles.visible : ''}`}>
          <BrandMark size={88} variant="glass" />
          <h1 className={styles.name}>Office Workspace</h1>
        </div>
        <p className={`${styles.tagline} ${stage >= 2 ? styles.visible : ''}`}>Your office workspace</p>
        <ul className={`${styles.features} ${stage >= 3 ? styles.visible : ''}`} aria-label="Features">
          {features.map(({ icon: Icon, title, description }) => (
            <li key={title} className={styles.feature}>
              <span className={styles.featureIcon} aria-hidden="true">
                <Icon size={22} />
              </span>
              <span className={styles.featureText}>
                <span className={styles.featureTitle}>{title}</span>
                <span className={styles.featureDescription}>{description}</span>
              </span>
            </li>
          ))}
        </ul>
        <div
          className={styles.bar}
          role="progressbar"
          aria-label="Loading"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={progress}
        >
          <div className={styles.barFill} style={{ transform: `scaleX(${progress / 100})` }} />
        </div>
      </div>
    </div>
  );
}
