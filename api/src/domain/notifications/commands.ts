import { and, eq, isNull, lte } from 'drizzle-orm';
import {
  cutText,
  markAllNotificationsReadArgsSchema,
  markNotificationReadArgsSchema,
  notificationTexts,
  readByMarker,
  sendNotificationArgsSchema,
  type Notification,
  type NotificationMarker,
} from '@office/sync-protocol';
import { chatNoticeReads, conversations, notificationMarkers, notifications, users } from '../../db/schema';
import { lockRows } from '../../db/row-locks';
import { defineCommand, lockPerson, type CommandContext } from '../commands';
import { DomainError } from '../errors';
import { loadDirectMessages, conversationRow, isParticipant } from '../direct/read';
import { DIRECT_NOTICE_CUT, notify } from './notify';
import { ensureMarkerRow, findChatNotice, markerOf, storedNoticesOf, unreadCount } from './notices';

/** The caller's read marker changed: their devices hear it (one change, whatever it covers). */
async function recordMarker(ctx: CommandContext): Promise<void> {
  await ctx.record({ entity: 'notificationMarker', id: ctx.actor.id, op: 'put', audience: [`user:${ctx.actor.id}`] });
}

/**
 * `notification.send`: POST /api/notifications, which the spec's client calls right after sending a direct
 * message. Only that notice: to the other participant of a conversation of the caller, about a message the
 * caller sent there, worded by the server (spec section 7). The message's own notice (dm.send makes it) is
 * the answer when it exists: one notice per message.
 */
export const sendNotificationCommand = defineCommand({
  name: 'notification.send',
  args: sendNotificationArgsSchema,
  async run(ctx, { recipient, data }): Promise<{ notification: Notification | null; created: boolean }> {
    // One notice per message: a second request for it waits here, then finds the first one's.
    await lockRows(ctx.tx, conversations, [data.conversationId]);
    const conversation = await conversationRow(ctx.tx, data.conversationId);
    if (!conversation || !isParticipant(conversation, ctx.actor.id)) throw new DomainError('message_not_found');
    const [message] = await loadDirectMessages(ctx.tx, [data.messageId]);
    if (!message || message.conversationId !== conversation.id) throw new DomainError('message_not_found');
    if (message.sender.id !== ctx.actor.id) throw new DomainError('forbidden', notificationTexts.notYourMessage);
    const other = conversation.userA === ctx.actor.id ? conversation.userB : conversation.userA;
    if (recipient !== other) throw new DomainError('forbidden', notificationTexts.notTheRecipient);
    const [active] = await ctx.tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.id, other), isNull(users.deactivatedAt)));
    if (!active) throw new DomainError('user_not_found', 'The recipient does not exist.');

    const marker = await markerOf(ctx.tx, other);
    const [existing] = await ctx.tx
      .select()
      .from(notifications)
      .where(and(eq(notifications.recipientId, other), eq(notifications.messageId, message.id)));
    if (existing) return { notification: await noticeOf(ctx, marker, existing), created: false };
    const [id] = await notify(ctx, [
      {
        recipientId: other,
        senderId: ctx.actor.id,
        type: 'direct_message',
        title: `New Direct Message from ${message.sender.name}`,
        message: message.text ? cutText(message.text, DIRECT_NOTICE_CUT) : 'Shared files',
        messageId: message.id,
        data: {
          messageId: message.id,
          conversationId: conversation.id,
          messageText: message.text,
          senderName: message.sender.name,
          timestamp: message.createdAt,
        },
      },
    ]);
    // The recipient turned direct message notices off: there is none to answer with.
    if (!id) return { notification: null, created: false };
    const [row] = await ctx.tx.select().from(notifications).where(eq(notifications.id, id));
    if (!row) throw new Error('notification insert returned nothing');
    return { notification: await noticeOf(ctx, marker, row), created: true };
  },
});

async function noticeOf(
  ctx: CommandContext,
  marker: NotificationMarker,
  row: typeof notifications.$inferSelect,
): Promise<Notification> {
  const [notification] = await storedNoticesOf(ctx.tx, marker, [row]);
  if (!notification) throw new Error('notification serialization returned nothing');
  return notification;
}

/**
 * `notification.markRead`: one of the caller's notices, stored or a team chat notice (its id is the
 * message's); someone else's reads as not found. Marking a read one changes nothing.
 */
export const markNotificationReadCommand = defineCommand({
  name: 'notification.markRead',
  args: markNotificationReadArgsSchema,
  async run(ctx, { id }): Promise<Notification> {
    await lockPerson(ctx);
    const marker = await markerOf(ctx.tx, ctx.actor.id);
    const [row] = await ctx.tx
      .select()
      .from(notifications)
      .where(and(eq(notifications.id, id), eq(notifications.recipientId, ctx.actor.id)));
    if (row) {
      if (row.readAt === null && !readByMarker(marker, row.createdAt)) {
        await ctx.tx.update(notifications).set({ readAt: ctx.now.toISOString() }).where(eq(notifications.id, id));
        await ctx.record({ entity: 'notification', id, op: 'put', audience: [`user:${ctx.actor.id}`] });
        const [updated] = await ctx.tx.select().from(notifications).where(eq(notifications.id, id));
        return noticeOf(ctx, marker, updated ?? row);
      }
      return noticeOf(ctx, marker, row);
    }
    const notice = await findChatNotice(ctx.tx, marker, id);
    if (!notice) throw new DomainError('not_found', 'Notification not found.');
    if (notice.read) return notice;
    await ensureMarkerRow(ctx.tx, ctx.actor.id);
    await ctx.tx
      .insert(chatNoticeReads)
      .values({
        userId: ctx.actor.id,
        messageId: id,
        messageCreatedAt: notice.createdAt,
        readAt: ctx.now.toISOString(),
      })
      .onConflictDoNothing();
    await recordMarker(ctx);
    return { ...notice, read: true };
  },
});

/**
 * `notification.markAllRead`: every notice of the caller, or those up to `through` (what the user had seen
 * when they asked; a queued offline mark never swallows later ones). One write: the caller's marker moves
 * forward, whatever the number of notices it covers.
 */
export const markAllNotificationsReadCommand = defineCommand({
  name: 'notification.markAllRead',
  args: markAllNotificationsReadArgsSchema,
  async run(ctx, { through }) {
    const now = ctx.now.toISOString();
    const asked = through ? new Date(through).toISOString() : now;
    const bound = asked < now ? asked : now;
    await lockPerson(ctx);
    const marker = await markerOf(ctx.tx, ctx.actor.id);
    if (readByMarker(marker, bound)) return { marked: 0 };
    const unread = await unreadCount(ctx.tx, marker);
    const moved = { ...marker, readThrough: bound };
    const marked = unread - (await unreadCount(ctx.tx, moved));
    // The marker moves even when it newly covers nothing: the device moved its own copy, and only a change of
    // the server's row brings the two back to one value.
    await ensureMarkerRow(ctx.tx, ctx.actor.id);
    await ctx.tx
      .update(notificationMarkers)
      .set({ readThrough: bound })
      .where(eq(notificationMarkers.id, ctx.actor.id));
    // Marks the marker now covers say nothing more.
    await ctx.tx
      .delete(chatNoticeReads)
      .where(and(eq(chatNoticeReads.userId, ctx.actor.id), lte(chatNoticeReads.messageCreatedAt, bound)));
    await recordMarker(ctx);
    return { marked };
  },
});
