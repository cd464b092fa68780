import { inArray } from 'drizzle-orm';
import { uuidv7, type Notification, type NotificationType } from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { notifications, users } from '../../db/schema';
import type { CommandContext } from '../commands';

export type NotificationRow = typeof notifications.$inferSelect;

/** Direct-message texts are cut to this many characters in notifications (spec section 9). */
export const DIRECT_NOTICE_CUT = 50;

export interface NewNotification {
  recipientId: string;
  senderId: string | null;
  type: NotificationType;
  title: string;
  message: string;
  relatedTaskId?: string | null;
  /** The direct message a direct_message notice is about. */
  messageId?: string;
  data?: Record<string, unknown>;
}

/**
 * Stores notifications inside the caller's transaction, one row per recipient in one statement, and records
 * a change for each so it reaches only its recipient (pull and socket). What concerns one or two people only:
 * the whole team's chat notices are derived (see notices.ts). Each waits for the background push queue.
 * Returns the new ids, in order.
 */
export function notify(ctx: CommandContext, items: NewNotification[]): string[] {
  if (items.length === 0) return [];
  const createdAt = ctx.now.toISOString();
  const rows = items.map((item) => ({
    id: uuidv7(ctx.now.getTime()),
    recipientId: item.recipientId,
    senderId: item.senderId,
    type: item.type,
    title: item.title,
    message: item.message,
    relatedTaskId: item.relatedTaskId ?? null,
    messageId: item.messageId ?? null,
    data: item.data ?? {},
    pushPending: true,
    createdAt,
  }));
  ctx.tx.insert(notifications).values(rows).run();
  ctx.recordAll(
    rows.map((row) => ({ entity: 'notification', id: row.id, op: 'put', audience: [`user:${row.recipientId}`] })),
  );
  for (const notification of toNotifications(
    ctx.tx,
    ctx.tx
      .select()
      .from(notifications)
      .where(
        inArray(
          notifications.id,
          rows.map((row) => row.id),
        ),
      )
      .all(),
  )) {
    ctx.announce({ to: [`user:${notification.recipient}`], event: 'notification', payload: { notification } });
  }
  ctx.queuePush(rows.map((row) => row.id));
  return rows.map((row) => row.id);
}

/** Notifications as the wire carries them, with the sender's name. */
export function toNotifications(db: Db | Tx, rows: NotificationRow[]): Notification[] {
  const senderIds = [...new Set(rows.flatMap((row) => (row.senderId ? [row.senderId] : [])))];
  const names = new Map(
    senderIds.length
      ? db
          .select({ id: users.id, name: users.name })
          .from(users)
          .where(inArray(users.id, senderIds))
          .all()
          .map((u) => [u.id, u.name])
      : [],
  );
  return rows.map((row) => ({
    _id: row.id,
    id: row.id,
    recipient: row.recipientId,
    sender: row.senderId ? { _id: row.senderId, id: row.senderId, name: names.get(row.senderId) ?? 'Unknown' } : null,
    type: row.type,
    title: row.title,
    message: row.message,
    relatedTask: row.relatedTaskId,
    data: row.data,
    read: row.readAt !== null,
    createdAt: row.createdAt,
    version: row.version,
  }));
}
