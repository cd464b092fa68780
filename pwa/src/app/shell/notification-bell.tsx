import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import {
  AlarmClock,
  Bell,
  BellOff,
  CheckCheck,
  ClipboardCheck,
  ClipboardList,
  AtSign,
  Sunrise,
  Mail,
  MessageSquareText,
  MessagesSquare,
  TriangleAlert,
  type LucideIcon,
} from 'lucide-react';
import type { NotificationType } from '@office/sync-protocol';
import { EmptyState } from '../../components/empty-state';
import { useNow } from '../../components/use-now';
import { UserAvatar } from '../../components/user-avatar';
import type { LocalNotification } from '../../data/db';
import { useMutate } from '../../data/hooks';
import { useNotifications, useUnreadNotificationCount, type NotificationFilter } from '../../data/notification-hooks';
import { avatarOf, nameOf, type People } from '../../data/people';
import { usePeople } from '../../data/use-people';
import { useOptionalWorkspace } from '../../sync/sync-context';
import { badgeText, bellLabel, markAllThrough, notificationTarget, relativeTime } from './notification-format';
import styles from './notification-bell.module.css';

const typeIcons: Record<NotificationType, LucideIcon> = {
  task_assigned: ClipboardList,
  task_updated: ClipboardCheck,
  task_comment: MessageSquareText,
  task_due_soon: AlarmClock,
  task_overdue: TriangleAlert,
  chat_message: MessagesSquare,
  direct_message: Mail,
  mention: AtSign,
  digest: Sunrise,
  custom: Bell,
};

/** The notification bell of the mobile top bar and the desktop header; it reads the local database only. */
export function NotificationBell() {
  if (useOptionalWorkspace()) return <LiveNotificationBell />;
  // Before the local database opens the bell holds its place, inert.
  return (
    <button type="button" className={styles.bell} aria-label="Notifications" disabled>
      <Bell size={20} aria-hidden="true" />
    </button>
  );
}

function LiveNotificationBell() {
  const [filter, setFilter] = useState<NotificationFilter>('all');
  const notifications = useNotifications(filter);
  const unread = useUnreadNotificationCount() ?? 0;
  const people = usePeople();
  const mutate = useMutate();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const panelId = useId();

  // Escape and a press outside close the panel; Escape hands focus back to the bell.
  useEffect(() => {
    if (!open) return undefined;
    const handlePointerDown = (event: PointerEvent) => {
      if (event.target instanceof Node && !rootRef.current?.contains(event.target)) setOpen(false);
    };
    const handleKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      buttonRef.current?.focus();
    };
    document.addEventListener('pointerdown', handlePointerDown);
    document.addEventListener('keydown', handleKeyDown);
    return () => {
      document.removeEventListener('pointerdown', handlePointerDown);
      document.removeEventListener('keydown', handleKeyDown);
    };
  }, [open]);

  const handleOpenNotification = useCallback(
    (notification: LocalNotification) => {
      setOpen(false);
      if (!notification.read) void mutate('notification.markRead', { id: notification.id });
      const { to, state } = notificationTarget(notification);
      void navigate(to, state ? { state } : undefined);
    },
    [mutate, navigate],
  );

  const handleMarkAllRead = useCallback(() => {
    const through = markAllThrough(notifications ?? []);
    void mutate('notification.markAllRead', through ? { through } : {});
  }, [mutate, notifications]);

  return (
    <div
      ref={rootRef}
      className={styles.root}
      onBlur={(event) => {
        // Tabbing past the panel closes it, as leaving any popover does.
        const next = event.relatedTarget;
        if (next instanceof Node && !event.currentTarget.contains(next)) setOpen(false);
      }}
    >
      <button
        ref={buttonRef}
        type="button"
        className={styles.bell}
        aria-label={bellLabel(unread)}
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        aria-haspopup="dialog"
        onClick={() => {
          // The list opens on every notice; the Mentions filter is chosen each time.
          setFilter('all');
          setOpen((value) => !value);
        }}
      >
        <Bell size={20} aria-hidden="true" />
        {unread > 0 && (
          <span className={styles.badge} aria-hidden="true" data-testid="notification-badge">
            {badgeText(unread)}
          </span>
        )}
      </button>
      {open && (
        <NotificationPanel
          id={panelId}
          notifications={notifications}
          unread={unread}
          people={people}
          onOpenNotification={handleOpenNotification}
          onMarkAllRead={handleMarkAllRead}
          filter={filter}
          onFilterChange={setFilter}
        />
      )}
    </div>
  );
}

interface NotificationPanelProps {
  id: string;
  /** Newest first; undefined while the database is read. */
  notifications: LocalNotification[] | undefined;
  unread: number;
  /** The directory: senders are named and pictured as it knows them now. */
  people?: People;
  onOpenNotification: (notification: LocalNotification) => void;
  onMarkAllRead: () => void;
  /** Whether the list shows every notice or the person's mentions only. */
  filter?: NotificationFilter;
  onFilterChange?: (filter: NotificationFilter) => void;
}

const nobody: People = new Map();

/**
 * A notification's text as the directory names its sender now: a title or message written with the
 * sender's name at the time ("New Direct Message from {name}") follows a later rename.
 */
const withCurrentName = (text: string, notification: LocalNotification, senderName: string | null): string =>
  notification.sender && senderName !== null && notification.sender.name !== ''
    ? text.replaceAll(notification.sender.name, senderName)
    : text;

/** The list under the bell: a non-modal dialog that takes focus when it opens. */
export function NotificationPanel({
  id,
  notifications,
  unread,
  people = nobody,
  onOpenNotification,
  onMarkAllRead,
  filter = 'all',
  onFilterChange,
}: NotificationPanelProps) {
  const panelRef = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const now = useNow(30_000);

  useEffect(() => {
    panelRef.current?.focus();
  }, []);

  // Up and Down move between the notifications, Home and End jump to the first and the last.
  const handleListKeyDown = (event: ReactKeyboardEvent<HTMLUListElement>) => {
    const items = Array.from(event.currentTarget.querySelectorAll<HTMLButtonElement>('button[data-item]'));
    const index = items.findIndex((item) => item === document.activeElement);
    const next =
      event.key === 'ArrowDown'
        ? Math.min(index + 1, items.length - 1)
        : event.key === 'ArrowUp'
          ? Math.max(index - 1, 0)
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? items.length - 1
              : null;
    if (next === null) return;
    event.preventDefault();
    items[next]?.focus();
  };

  return (
    <div ref={panelRef} id={id} className={styles.panel} role="dialog" aria-labelledby={titleId} tabIndex={-1}>
      <div className={styles.header}>
        <div className={styles.heading}>
          <h2 id={titleId} className={styles.title}>
            Notifications
          </h2>
          <p className={styles.summary}>{unread > 0 ? `${unread} unread` : 'All caught up'}</p>
        </div>
        <button
          type="button"
          className={styles.markAll}
          disabled={unread === 0}
          onClick={() => {
            onMarkAllRead();
            // The button is about to be disabled; focus stays in the panel rather than falling to the page.
            panelRef.current?.focus();
          }}
        >
          <CheckCheck size={16} aria-hidden="true" />
          Mark all as read
        </button>
      </div>
      {onFilterChange && (
        <div className={styles.filters}>
          <button
            type="button"
            className={styles.filter}
            aria-pressed={filter === 'mentions'}
            onClick={() => onFilterChange(filter === 'mentions' ? 'all' : 'mentions')}
          >
            <AtSign size={14} aria-hidden="true" />
            Mentions
          </button>
        </div>
      )}

      {notifications === undefined ? (
        <p className={styles.loading} role="status">
          Loading...
        </p>
      ) : notifications.length === 0 && filter === 'mentions' ? (
        <EmptyState
          variant="compact"
          icon={<AtSign size={24} />}
          title="No mentions yet"
          titleAs="p"
          text="When someone writes @ and your name in a message, it shows up here."
          classNames={{ root: styles.empty, icon: styles.emptyIcon }}
        />
      ) : notifications.length === 0 ? (
        <EmptyState
          variant="compact"
          icon={<BellOff size={24} />}
          title="No notifications yet"
          titleAs="p"
          text="Task assignments, comments and messages will show up here."
          classNames={{ root: styles.empty, icon: styles.emptyIcon }}
        />
      ) : (
        <ul
          className={styles.list}
          aria-label={filter === 'mentions' ? 'Mentions' : 'Notification list'}
          onKeyDown={handleListKeyDown}
        >
          {notifications.map((notification) => {
            const Icon = typeIcons[notification.type];
            const sender = notification.sender;
            const senderName = sender ? nameOf(people, sender) : null;
            return (
              <li key={notification.id}>
                <button
                  type="button"
                  data-item=""
                  className={`${styles.item} ${notification.read ? '' : styles.unread}`}
                  onClick={() => onOpenNotification(notification)}
                >
                  {sender && senderName !== null ? (
                    <span className={styles.visual} aria-hidden="true">
                      <UserAvatar src={avatarOf(people, sender.id)} name={senderName} size={36} />
                      <span className={styles.typeMark}>
                        <Icon size={10} />
                      </span>
                    </span>
                  ) : (
                    <span className={styles.icon} aria-hidden="true">
                      <Icon size={18} />
                    </span>
                  )}
                  <span className={styles.body}>
                    {!notification.read && <span className={styles.srOnly}>Unread: </span>}
                    <span className={styles.itemTitle}>
                      {withCurrentName(notification.title, notification, senderName)}
                    </span>
                    <span className={styles.message}>
                      {withCurrentName(notification.message, notification, senderName)}
                    </span>
                    <span className={styles.meta}>
                      {senderName !== null && (
                        <>
                          <span className={styles.sender}>{senderName}</span>
                          <span aria-hidden="true"> · </span>
                        </>
                      )}
                      <time dateTime={notification.createdAt}>{relativeTime(notification.createdAt, now)}</time>
                    </span>
                  </span>
                  {!notification.read && <span className={styles.dot} aria-hidden="true" data-testid="unread-dot" />}
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
