import {
  and,
  count,
  desc,
  eq,
  gt,
  gte,
  inArray,
  isNull,
  lt,
  ne,
  notExists,
  notInArray,
  or,
  sql,
  type SQL,
} from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { chatNotice, readByMarker, type Notification, type NotificationMarker } from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { chatMessages, chatNoticeReads, notificationMarkers, notifications, users } from '../../db/schema';
import { inSlices, usersById } from '../read-support';
import { toNotifications } from './notify';
import { preferencesOf } from './preferences';

// What a person sees in the bell is the merge of two sources: the notifications stored for them (task
// notices, direct messages) and the team chat notices derived from the chat's messages (one row per message
// for the whole team, see ARCHITECTURE.md "Notifications"). Read state: the person's marker (read through a
// time) plus individual marks.

type MessageRow = typeof chatMessages.$inferSelect;

/** A person's marker, as stored or as it is before their first read mark (chat notices since they joined). */
export async function markerOf(db: Db | Tx, userId: string): Promise<NotificationMarker> {
  return (await markersOf(db, [userId])).get(userId) ?? emptyMarker(userId, new Date(0).toISOString());
}

const emptyMarker = (id: string, chatSince: string): NotificationMarker => ({
  _id: id,
  id,
  chatSince,
  readThrough: null,
  chatReads: [],
  version: 0,
});

/** The markers of these people (active or not), with the chat notices each marked after readThrough. */
export async function markersOf(db: Db | Tx, userIds: readonly string[]): Promise<Map<string, NotificationMarker>> {
  const rows = await inSlices(userIds, (slice) =>
    db
      .select({ id: users.id, joined: users.createdAt, marker: notificationMarkers })
      .from(users)
      .leftJoin(notificationMarkers, eq(notificationMarkers.id, users.id))
      .where(inArray(users.id, slice)),
  );
  const markers = new Map<string, NotificationMarker>();
  for (const { id, joined, marker } of rows) {
    markers.set(id, {
      ...emptyMarker(id, marker?.chatSince ?? joined),
      readThrough: marker?.readThrough ?? null,
      version: marker?.version ?? 0,
    });
  }
  const reads = await inSlices([...markers.keys()], (slice) =>
    db
      .select({
        userId: chatNoticeReads.userId,
        messageId: chatNoticeReads.messageId,
        at: chatNoticeReads.messageCreatedAt,
      })
      .from(chatNoticeReads)
      .where(inArray(chatNoticeReads.userId, slice)),
  );
  for (const read of reads) {
    const marker = markers.get(read.userId);
    // Marks the marker covers are dropped when it moves; one left behind changes nothing.
    if (marker && !readByMarker(marker, read.at)) marker.chatReads.push(read.messageId);
  }
  return markers;
}

/** Whether team chat messages are this person's notices: their preference says every message (the default). */
const chatNoticesOn = async (db: Db | Tx, userId: string): Promise<boolean> =>
  (await preferencesOf(db, [userId])).get(userId)?.teamChat === 'all';

/**
 * The message has no stored notice of this person: one that mentions them is their mention notice, which replaces
 * its team chat notice (one notice per message). Read by the `notifications_message` index.
 */
export const noStoredNotice = (db: Db | Tx, userId: string): SQL =>
  notExists(
    db
      .select({ one: sql`1` })
      .from(notifications)
      .where(and(eq(notifications.recipientId, userId), eq(notifications.messageId, chatMessages.id))),
  );

/** Team chat messages that are notices of this person: by someone else, live, since chatSince, not mentioning them. */
const noticeOf = (db: Db | Tx, marker: NotificationMarker): SQL =>
  and(
    isNull(chatMessages.deletedAt),
    ne(chatMessages.userId, marker.id),
    gte(chatMessages.createdAt, marker.chatSince),
    noStoredNotice(db, marker.id),
  ) as SQL;

/**
 * The chat notices of these messages for one person (messages that are none of theirs are left out). The messages
 * are read without one the person has a stored notice of (`noStoredNotice`).
 */
export async function chatNoticesOf(
  db: Db | Tx,
  marker: NotificationMarker,
  rows: readonly MessageRow[],
): Promise<Notification[]> {
  const mine = rows.filter(
    (row) => row.deletedAt === null && row.userId !== marker.id && row.createdAt >= marker.chatSince,
  );
  const authors = await usersById(
    db,
    mine.map((row) => row.userId),
  );
  return mine.map((row) =>
    chatNotice(
      {
        id: row.id,
        text: row.text,
        createdAt: row.createdAt,
        version: row.version,
        author: { id: row.userId, name: authors.get(row.userId)?.name ?? 'Unknown' },
      },
      marker,
    ),
  );
}

/** One chat notice of a person, if that message is one. */
export async function findChatNotice(
  db: Db | Tx,
  marker: NotificationMarker,
  messageId: string,
): Promise<Notification | undefined> {
  if (!(await chatNoticesOn(db, marker.id))) return undefined;
  const [row] = await db
    .select()
    .from(chatMessages)
    .where(and(eq(chatMessages.id, messageId), noStoredNotice(db, marker.id)));
  return row ? (await chatNoticesOf(db, marker, [row]))[0] : undefined;
}

/** Stored notifications as the person sees them: also read when the marker covers them. */
export async function storedNoticesOf(
  db: Db | Tx,
  marker: NotificationMarker,
  rows: readonly (typeof notifications.$inferSelect)[],
): Promise<Notification[]> {
  return (await toNotifications(db, [...rows])).map((notification) =>
    notification.read || !readByMarker(marker, notification.createdAt) ? notification : { ...notification, read: true },
  );
}

/**
 * How many notices of the person are unread, from indexes only: stored ones after the marker without a read
 * time, plus the chat messages after the marker (all live ones less the person's own) less those marked and less
 * those whose notice is a stored one (a mention of the person, counted with the stored ones).
 */
export async function unreadCount(db: Db | Tx, marker: NotificationMarker): Promise<number> {
  const storedAfter = marker.readThrough === null ? undefined : gt(notifications.createdAt, marker.readThrough);
  const [storedRow] = await db
    .select({ n: count() })
    .from(notifications)
    .where(and(eq(notifications.recipientId, marker.id), isNull(notifications.readAt), storedAfter));
  const stored = storedRow?.n ?? 0;
  if (!(await chatNoticesOn(db, marker.id))) return stored;
  // Chat notices are unread after both the start of the person's notices and the marker.
  const chatAfter =
    marker.readThrough !== null && marker.readThrough >= marker.chatSince
      ? gt(chatMessages.createdAt, marker.readThrough)
      : gte(chatMessages.createdAt, marker.chatSince);
  const live = isNull(chatMessages.deletedAt);
  const [afterRow] = await db
    .select({
      all: count(),
      own: sql<number>`coalesce(sum(case when ${chatMessages.userId} = ${marker.id} then 1 else 0 end), 0)`.mapWith(
        Number,
      ),
    })
    .from(chatMessages)
    .where(and(live, chatAfter));
  const [markedRow] = marker.chatReads.length
    ? await db
        .select({ n: count() })
        .from(chatMessages)
        .where(and(live, chatAfter, ne(chatMessages.userId, marker.id), inArray(chatMessages.id, marker.chatReads)))
    : [];
  // A mention notice and its message share their time, so the person's notices after the marker find them.
  const noticeAfter =
    marker.readThrough !== null && marker.readThrough >= marker.chatSince
      ? gt(notifications.createdAt, marker.readThrough)
      : gte(notifications.createdAt, marker.chatSince);
  const [replacedRow] = await db
    .select({ n: count() })
    .from(notifications)
    .innerJoin(chatMessages, eq(chatMessages.id, notifications.messageId))
    .where(
      and(
        eq(notifications.recipientId, marker.id),
        noticeAfter,
        live,
        chatAfter,
        ne(chatMessages.userId, marker.id),
        marker.chatReads.length ? notInArray(chatMessages.id, marker.chatReads) : undefined,
      ),
    );
  const all = afterRow?.all ?? 0;
  const own = afterRow?.own ?? 0;
  const marked = markedRow?.n ?? 0;
  const replaced = replacedRow?.n ?? 0;
  return stored + all - own - marked - replaced;
}

/** Where a page of the list starts: strictly after this notice in (createdAt, id) order, newest first. */
interface PagePosition {
  createdAt: string;
  id: string;
}

const before = (table: { createdAt: AnySQLiteColumn; id: AnySQLiteColumn }, at: PagePosition) =>
  or(lt(table.createdAt, at.createdAt), and(eq(table.createdAt, at.createdAt), lt(table.id, at.id)));

/** Where the notice `id` of this person sits in their list, if it is theirs. */
async function positionOf(db: Db | Tx, userId: string, id: string): Promise<PagePosition | undefined> {
  const [stored] = await db
    .select({ createdAt: notifications.createdAt, id: notifications.id })
    .from(notifications)
    .where(and(eq(notifications.recipientId, userId), eq(notifications.id, id)));
  if (stored) return stored;
  // A message deleted since the page was read still marks the place.
  const [message] = await db
    .select({ createdAt: chatMessages.createdAt, id: chatMessages.id })
    .from(chatMessages)
    .where(eq(chatMessages.id, id));
  return message;
}

/** Newest first in (createdAt, id) order. */
const newestFirst = (a: Notification, b: Notification): number =>
  a.createdAt === b.createdAt ? b.id.localeCompare(a.id) : b.createdAt.localeCompare(a.createdAt);

/**
 * A page of the person's notices, newest first: stored and chat notices merged. `after` is the id of the
 * previous page's last notice (unknown ids start from the top); ties in time are ordered by id.
 */
export async function listNotices(
  db: Db | Tx,
  marker: NotificationMarker,
  { limit, after }: { limit: number; after?: string | undefined },
): Promise<{ notices: Notification[]; nextBefore: string | null }> {
  const position = after ? await positionOf(db, marker.id, after) : undefined;
  const storedRows = await db
    .select()
    .from(notifications)
    .where(and(eq(notifications.recipientId, marker.id), position ? before(notifications, position) : undefined))
    .orderBy(desc(notifications.createdAt), desc(notifications.id))
    .limit(limit + 1);
  const chatRows = (await chatNoticesOn(db, marker.id))
    ? await db
        .select()
        .from(chatMessages)
        .where(and(noticeOf(db, marker), position ? before(chatMessages, position) : undefined))
        .orderBy(desc(chatMessages.createdAt), desc(chatMessages.id))
        .limit(limit + 1)
    : [];
  const merged = [
    ...(await storedNoticesOf(db, marker, storedRows)),
    ...(await chatNoticesOf(db, marker, chatRows)),
  ].sort(newestFirst);
  const notices = merged.slice(0, limit);
  return { notices, nextBefore: merged.length > limit ? (notices.at(-1)?.id ?? null) : null };
}

/** Upserts the person's marker row (the first read mark creates it) so its version can be stamped. */
export async function ensureMarkerRow(tx: Tx, userId: string): Promise<void> {
  await tx.insert(notificationMarkers).values({ id: userId }).onConflictDoNothing();
}
