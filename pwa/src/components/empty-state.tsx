import type { ReactNode } from 'react';
import styles from './empty-state.module.css';

interface EmptyStateProps {
  /** Drawn in the brand circle; hidden from screen readers. */
  icon: ReactNode;
  title: ReactNode;
  /** The title's element (h2 by default): the level under the nearest heading, or p inside a popover. */
  titleAs?: 'h1' | 'h2' | 'h3' | 'p';
  /** The line under the title. */
  text: ReactNode;
  /** Under the text, e.g. a "Clear filters" button. */
  children?: ReactNode;
  /**
   * card: a list page's dashed card; notice: the same with a solid border; compact: smaller type for a
   * side panel or a popover; plain: no box or sizes of its own.
   */
  variant?: 'card' | 'notice' | 'compact' | 'plain';
  /**
   * The caller's sizes and spacing for each part (padding, icon size, text width; a plain one's gap
   * and title font too). They add to this component's rules, so they set only properties these leave unset.
   */
  classNames?: {
    root?: string | undefined;
    icon?: string | undefined;
    title?: string | undefined;
    text?: string | undefined;
  };
}

const join = (...names: (string | undefined)[]): string => names.filter(Boolean).join(' ');

/** What a list shows when there is nothing in it (or nothing that matches). */
export function EmptyState({
  icon,
  title,
  titleAs: Title = 'h2',
  text,
  children,
  variant = 'plain',
  classNames = {},
}: EmptyStateProps) {
  const box = variant === 'plain' ? undefined : styles[variant];
  return (
    <div className={join(styles.root, box, classNames.root)}>
      <span className={join(styles.icon, classNames.icon)} aria-hidden="true">
        {icon}
      </span>
      <Title className={join(styles.title, classNames.title)}>{title}</Title>
      <p className={join(styles.text, classNames.text)}>{text}</p>
      {children}
    </div>
  );
}
