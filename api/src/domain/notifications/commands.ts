import { and, eq, inArray, isNull, lte } from 'drizzle-orm';
import {
  markAllNotificationsReadArgsSchema,
  markNotificationReadArgsSchema,
  sendNotificationArgsSchema,
  type Notification,
} from '@office/sync-protocol';
import { notifications, users } from '../../db/schema';
import { defineCommand } from '../commands';
import { DomainError } from '../errors';
import { notify, toNotifications } from './notify';

/** `notification.send`: POST /api/notifications. The sender is the caller, whatever the payload says. */
export const sendNotificationCommand = defineCommand({
  name: 'notification.send',
  args: sendNotificationArgsSchema,
  run(ctx, args): Notification {
    const recipient = ctx.tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.id, args.recipient), isNull(users.deactivatedAt)))
      .get();
    if (!recipient) throw new DomainError('user_not_found', 'The recipient does not exist.');
    const [id] = notify(ctx, [
      {
        recipientId: args.recipient,
        senderId: ctx.actor.id,
        type: args.type,
        title: args.title,
        message: args.message,
        relatedTaskId: args.relatedTask ?? null,
        data: args.data,
      },
    ]);
    // By its id: the recipient's newest by id may be another one made in the same millisecond (UUIDv7 ties are random).
    const row = id ? ctx.tx.select().from(notifications).where(eq(notifications.id, id)).get() : undefined;
    if (!row) throw new Error('notification insert returned nothing');
    const [notification] = toNotifications(ctx.tx, [row]);
    if (!notification) throw new Error('notification serialization returned nothing');
    return notification;
  },
});

/** `notification.markRead`: the recipient's own only; someone else's reads as not found. */
export const markNotificationReadCommand = defineCommand({
  name: 'notification.markRead',
  args: markNotificationReadArgsSchema,
  run(ctx, { id }): Notification {
    const row = ctx.tx
      .select()
      .from(notifications)
      .where(and(eq(notifications.id, id), eq(notifications.recipientId, ctx.actor.id)))
      .get();
    if (!row) throw new DomainError('not_found', 'Notification not found.');
    if (row.readAt === null) {
      ctx.tx.update(notifications).set({ readAt: ctx.now.toISOString() }).where(eq(notifications.id, id)).run();
      ctx.record({ entity: 'notification', id, op: 'put', audience: [`user:${ctx.actor.id}`] });
    }
    const [notification] = toNotifications(ctx.tx, [
      ctx.tx.select().from(notifications).where(eq(notifications.id, id)).get() ?? row,
    ]);
    if (!notification) throw new Error('notification serialization returned nothing');
    return notification;
  },
});

/**
 * `notification.markAllRead`: every unread notification of the caller, or those created up to `through`
 * (what the user had seen when they asked; a queued offline mark never swallows later ones).
 */
export const markAllNotificationsReadCommand = defineCommand({
  name: 'notification.markAllRead',
  args: markAllNotificationsReadArgsSchema,
  run(ctx, { through }) {
    const bound = through ? new Date(through).toISOString() : null;
    const unread = ctx.tx
      .select({ id: notifications.id })
      .from(notifications)
      .where(
        and(
          eq(notifications.recipientId, ctx.actor.id),
          isNull(notifications.readAt),
          bound ? lte(notifications.createdAt, bound) : undefined,
        ),
      )
      .all();
    if (unread.length === 0) return { marked: 0 };
    const ids = unread.map((row) => row.id);
    for (let i = 0; i < ids.length; i += 500) {
      ctx.tx
        .update(notifications)
        .set({ readAt: ctx.now.toISOString() })
        .where(inArray(notifications.id, ids.slice(i, i + 500)))
        .run();
    }
    ctx.recordAll(ids.map((id) => ({ entity: 'notification', id, op: 'put', audience: [`user:${ctx.actor.id}`] })));
    return { marked: ids.length };
  },
});
