import { BriefcaseBusiness } from 'lucide-react';
import styles from './brand-mark.module.css';

interface BrandMarkProps {
  /** Edge length in pixels. */
  size?: number;
  /** `gradient` on light surfaces, `glass` on the brand gradient itself. */
  variant?: 'gradient' | 'glass';
}

/** The product's logo tile. Decorative: the product name always sits next to it. */
export function BrandMark({ size = 40, variant = 'gradient' }: BrandMarkProps) {
  return (
    <span
      className={`${styles.mark} ${variant === 'glass' ? styles.glass : styles.gradient}`}
      style={{ width: size, height: size, borderRadius: Math.round(size * 0.28) }}
      aria-hidden="true"
    >
      <BriefcaseBusiness size={Math.round(size * 0.55)} strokeWidth={2} />
    </span>
  );
}
