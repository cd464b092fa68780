import { and, eq, isNull } from 'drizzle-orm';
import { sendNotificationArgsSchema, type Notification } from '@office/sync-protocol';
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
