import { sql } from 'drizzle-orm';
import { uuidv7, type Notification, type NotificationType } from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { prepared } from '../../db/prepared';
import { notifications } from '../../db/schema';
import { usersById } from '../read-support';
import type { CommandContext } from '../commands';
import { preferencesOf, wantsNotice } from './preferences';

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
  /** The message a direct_message or mention notice is about: a person has one notice per message. */
  messageId?: string;
  data?: Record<string, unknown>;
}

/**
 * Stores notifications inside the caller's transaction, one row per recipient (a prepared insert), and records a change for each so
 * it reaches only its recipient (pull and socket). What concerns one or two people only: the whole team's chat
 * notices are derived (see notices.ts). Each waits for the background push queue. Returns the new ids, in order.
 */
export async function notify(ctx: CommandContext, wanted: NewNotification[]): Promise<string[]> {
  if (wanted.length === 0) return [];
  // What a person turned off in their preferences is not stored: neither in their bell nor pushed.
  const preferences = await preferencesOf(
    ctx.tx,
    wanted.map((item) => item.recipientId),
  );
  const items = wanted.filter((item) => {
    const theirs = preferences.get(item.recipientId);
    return !theirs || wantsNotice(theirs, item.type);
  });
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
  const insert = prepared(ctx.tx, 'notifications.insert', (handle) =>
    handle
      .insert(notifications)
      .values({
        id: sql.placeholder('id'),
        recipientId: sql.placeholder('recipientId'),
        senderId: sql.placeholder('senderId'),
        type: sql.placeholder('type'),
        title: sql.placeholder('title'),
        message: sql.placeholder('message'),
        relatedTaskId: sql.placeholder('relatedTaskId'),
        messageId: sql.placeholder('messageId'),
        data: sql.placeholder('data'),
        pushPending: sql.placeholder('pushPending'),
        createdAt: sql.placeholder('createdAt'),
      })
      .prepare(),
  );
  for (const row of rows) await insert.execute(row);
  // The rows are known: the wire form is built from them rather than read back.
  const stored: NotificationRow[] = [];
  for (const row of rows) {
    const { seq } = await ctx.record({
      entity: 'notification',
      id: row.id,
      op: 'put',
      audience: [`user:${row.recipientId}`],
    });
    stored.push({ ...row, readAt: null, version: seq });
  }
  for (const notification of await toNotifications(ctx.tx, stored)) {
    ctx.announce({ to: [`user:${notification.recipient}`], event: 'notification', payload: { notification } });
  }
  ctx.queuePush(rows.map((row) => row.id));
  return rows.map((row) => row.id);
}

/** Notifications as the wire carries them, with the sender's name. */
export async function toNotifications(
  db: Db | Tx,
  rows: Omit<NotificationRow, 'pushPending' | 'messageId'>[],
): Promise<Notification[]> {
  const senders = await usersById(
    db,
    rows.flatMap((row) => (row.senderId ? [row.senderId] : [])),
  );
  return rows.map((row) => ({
    _id: row.id,
    id: row.id,
    recipient: row.recipientId,
    sender: row.senderId
      ? { _id: row.senderId, id: row.senderId, name: senders.get(row.senderId)?.name ?? 'Unknown' }
      : null,
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
