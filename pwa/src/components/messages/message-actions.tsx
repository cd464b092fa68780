import { useEffect, useRef, useState, type ReactNode } from 'react';
import { EllipsisVertical } from 'lucide-react';
import styles from './message-item.module.css';

/** Room the actions menu needs below its button. */
const menuHeightPx = 100;

/** One thing a person may do to a message (Edit, Delete). */
export interface MessageAction {
  label: string;
  icon: ReactNode;
  /** Destructive: drawn in the danger colour. */
  danger?: boolean;
  onSelect: () => void;
}

/**
 * What the viewer may do to a message: a menu when there is a choice (Team Chat's Edit and Delete), a button of
 * its own when there is one thing (Delete on one's direct message), nothing when there is none.
 */
export function MessageActions({ actions }: { actions: readonly MessageAction[] }) {
  const [first] = actions;
  if (!first) return null;
  if (actions.length === 1) {
    return (
      <button
        type="button"
        className={`${styles.menuButton} ${first.danger ? styles.deleteButton : ''}`}
        aria-label={`${first.label} message`}
        title={`${first.label} message`}
        onClick={first.onSelect}
      >
        {first.icon}
      </button>
    );
  }
  return <MessageMenu actions={actions} />;
}

function MessageMenu({ actions }: { actions: readonly MessageAction[] }) {
  const [open, setOpen] = useState(false);
  const [up, setUp] = useState(false);
  const wrapRef = useRef<HTMLDivElement>(null);

  // The menu closes on a click elsewhere or Escape.
  useEffect(() => {
    if (!open) return undefined;
    const handlePointer = (event: PointerEvent) => {
      if (!wrapRef.current?.contains(event.target as Node)) setOpen(false);
    };
    const handleKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setOpen(false);
    };
    document.addEventListener('pointerdown', handlePointer);
    document.addEventListener('keydown', handleKey);
    return () => {
      document.removeEventListener('pointerdown', handlePointer);
      document.removeEventListener('keydown', handleKey);
    };
  }, [open]);

  return (
    <div className={styles.menuWrap} ref={wrapRef}>
      <button
        type="button"
        className={styles.menuButton}
        aria-label="Message actions"
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={(event) => {
          // Opens upwards when the list has too little room below the button.
          const button = event.currentTarget.getBoundingClientRect();
          const list = event.currentTarget.closest('[role="log"]')?.getBoundingClientRect();
          setUp(list !== undefined && list.bottom - button.bottom < menuHeightPx);
          setOpen((isOpen) => !isOpen);
        }}
      >
        <EllipsisVertical size={16} aria-hidden="true" />
      </button>
      {open && (
        <div className={`${styles.menu} ${up ? styles.menuUp : ''}`} role="menu" aria-label="Message actions">
          {actions.map((action) => (
            <button
              key={action.label}
              type="button"
              role="menuitem"
              className={`${styles.menuItem} ${action.danger ? styles.menuDanger : ''}`}
              onClick={() => {
                setOpen(false);
                action.onSelect();
              }}
            >
              {action.icon}
              {action.label}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
