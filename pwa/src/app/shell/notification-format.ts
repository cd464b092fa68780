import { formatDistance } from 'date-fns';
import { notificationUrl, type Notification } from '@office/sync-protocol';

/** The bell's accessible name: it says how many are unread. */
export const bellLabel = (unread: number): string => (unread > 0 ? `Notifications, ${unread} unread` : 'Notifications');

/** The badge on the bell; large counts are capped so the badge keeps its size. */
export const badgeText = (unread: number): string => (unread > 99 ? '99+' : String(unread));

/** "5 minutes ago". A server clock slightly ahead of this device's reads as now, never "in 1 minute". */
export function relativeTime(createdAt: string, now: Date): string {
  const at = new Date(createdAt);
  if (Number.isNaN(at.getTime())) return '';
  return formatDistance(at.getTime() > now.getTime() ? now : at, now, { addSuffix: true });
}

/** The navigation state the Direct Messages screen accepts (spec section 2). */
export interface ConversationState {
  activeConversationId: string;
  recipientName?: string;
}

/** Where a click on a notification leads, with the state the target screen reads. */
export interface NotificationTarget {
  to: string;
  state: ConversationState | null;
}

export function notificationTarget(
  notification: Pick<Notification, 'type' | 'relatedTask' | 'data' | 'sender'>,
): NotificationTarget {
  const to = notificationUrl(notification);
  const conversationId = notification.data.conversationId;
  if (!to.startsWith('/direct-messages') || typeof conversationId !== 'string') return { to, state: null };
  const senderName = notification.data.senderName;
  const recipientName = notification.sender?.name ?? (typeof senderName === 'string' ? senderName : undefined);
  return { to, state: { activeConversationId: conversationId, ...(recipientName ? { recipientName } : {}) } };
}

/**
 * The `through` of "Mark all as read": the newest notification the user had in front of them, so
 * one that arrives meanwhile (or is still on its way) stays unread. Undefined when the list is empty.
 */
export function markAllThrough(notifications: readonly Pick<Notification, 'createdAt'>[]): string | undefined {
  let newest: string | undefined;
  for (const { createdAt } of notifications) {
    const time = new Date(createdAt);
    if (Number.isNaN(time.getTime())) continue;
    const iso = time.toISOString();
    if (newest === undefined || iso > newest) newest = iso;
  }
  return newest;
}
