import type { ReactNode } from 'react';
import type { DateGroup } from './chat-format';
import styles from './chat.module.css';

/** Messages in sections by day, each under its date separator (Today, Yesterday or the full date). */
export function MessageDays<T>({
  groups,
  children,
}: {
  groups: readonly DateGroup<T>[];
  /** Renders one message as a list item. */
  children: (message: T) => ReactNode;
}) {
  return groups.map((group) => (
    <section key={group.key} className={styles.day} aria-label={group.label}>
      <div className={styles.separator}>
        <span>{group.label}</span>
      </div>
      <ul className={styles.messages}>{group.messages.map(children)}</ul>
    </section>
  ));
}

/** "Alice Johnson is typing..." under a message list, with animated dots; announced politely. */
export function TypingLine({ text }: { text: string | null }) {
  return (
    <div className={styles.typing} aria-live="polite">
      {text && (
        <>
          <span className={styles.typingDots} aria-hidden="true">
            <span />
            <span />
            <span />
          </span>
          {text}
        </>
      )}
    </div>
  );
}
