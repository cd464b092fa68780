import { and, asc, count, desc, eq, gt, gte, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { AnySQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { teamChatKey, type Actor, type Change, type EntityName } from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { chatMessages, conversations, directMessages, notifications, tasks, users } from '../../db/schema';
import type { HistoryWindowSizes } from '../../config';
import { involving } from '../direct/read';
import { markerOf } from '../notifications/notices';
import { visibleTasksWhere } from '../tasks/read';

/** The window a bootstrap page reads: the sizes, and where completed tasks end now. */
export interface WindowAt extends HistoryWindowSizes {
  completedSince: string;
}

/** The window of these sizes at `now`. */
export const windowAt = (sizes: HistoryWindowSizes, now = new Date()): WindowAt => ({
  ...sizes,
  completedSince: new Date(now.getTime() - sizes.completedTaskDays * 86_400_000).toISOString(),
});

/** One part of a bootstrap: rows of one kind, read in pages from where the previous page ended (keyset). */
interface SnapshotPart {
  entity: EntityName;
  /** The ids after the row `after` (null: from the part's start), at most `limit`. */
  ids(db: Db | Tx, actor: Actor, after: string | null, limit: number, window: WindowAt): Promise<string[]>;
  /** How many rows the part holds (the progress a first sign-in shows). */
  count(db: Db | Tx, actor: Actor, window: WindowAt): Promise<number>;
}

/** A part read in id order: the directory, the conversations, the tasks. */
function byId(
  entity: EntityName,
  table: SQLiteTable & { id: AnySQLiteColumn },
  where: (actor: Actor, window: WindowAt) => SQL | undefined,
): SnapshotPart {
  return {
    entity,
    ids: async (db, actor, after, limit, window) =>
      (
        await db
          .select({ id: table.id })
          .from(table)
          .where(and(where(actor, window), after === null ? undefined : gt(table.id, after)))
          .orderBy(asc(table.id))
          .limit(limit)
      ).map((row) => String(row.id)),
    count: async (db, actor, window) =>
      (await db.select({ n: count() }).from(table).where(where(actor, window)))[0]?.n ?? 0,
  };
}

/** The person's own row of a kind keyed by their id (read marker, preferences): one row, whether stored or not. */
const ownRow = (entity: EntityName): SnapshotPart => ({
  entity,
  ids: (_db, actor, after) => Promise.resolve(after === null ? [actor.id] : []),
  count: () => Promise.resolve(1),
});

/** A time and id, the order messages and notices are read in (newest first). */
interface Place {
  createdAt: string;
  id: string;
}

/** Strictly older than `place` in (createdAt, id) order. */
const olderThan = (columns: { createdAt: AnySQLiteColumn; id: AnySQLiteColumn }, place: Place): SQL =>
  or(
    lt(columns.createdAt, place.createdAt),
    and(eq(columns.createdAt, place.createdAt), lt(columns.id, place.id)),
  ) as SQL;

// The open tasks and the completed ones: literal conditions, as the partial indexes tasks_open and tasks_completed
// state them (a bound parameter would hide from SQLite that the query stays inside the index).
const openTask = sql`${tasks.status} <> 'completed'`;
const completedTask = sql`${tasks.status} = 'completed'`;
const liveChat = isNull(chatMessages.deletedAt);
const liveDirect = isNull(directMessages.deletedAt);

/** The time of the `n`th newest live team chat message: the window holds every message from it on. Null: fewer. */
async function teamChatEdge(db: Db | Tx, n: number): Promise<string | null> {
  const [row] = await db
    .select({ createdAt: chatMessages.createdAt })
    .from(chatMessages)
    .where(liveChat)
    .orderBy(desc(chatMessages.createdAt))
    .limit(1)
    .offset(n - 1);
  return row?.createdAt ?? null;
}

/** The time of the `n`th newest live message of a direct conversation (null: fewer). */
async function conversationEdge(db: Db | Tx, conversationId: string, n: number): Promise<string | null> {
  const [row] = await db
    .select({ createdAt: directMessages.createdAt })
    .from(directMessages)
    .where(and(eq(directMessages.conversationId, conversationId), liveDirect))
    .orderBy(desc(directMessages.createdAt))
    .limit(1)
    .offset(n - 1);
  return row?.createdAt ?? null;
}

/** The team chat's window, newest first: every live message from the time of the window's oldest on. */
const teamChatPart: SnapshotPart = {
  entity: 'chatMessage',
  ids: async (db, _actor, after, limit, window) => {
    const edge = await teamChatEdge(db, window.teamChatMessages);
    const [from] = after
      ? await db
          .select({ createdAt: chatMessages.createdAt, id: chatMessages.id })
          .from(chatMessages)
          .where(eq(chatMessages.id, after))
      : [];
    const rows = await db
      .select({ id: chatMessages.id })
      .from(chatMessages)
      .where(
        and(
          liveChat,
          edge === null ? undefined : gte(chatMessages.createdAt, edge),
          from ? olderThan(chatMessages, from) : undefined,
        ),
      )
      .orderBy(desc(chatMessages.createdAt), desc(chatMessages.id))
      .limit(limit);
    return rows.map((row) => row.id);
  },
  count: async (db, _actor, window) => {
    const edge = await teamChatEdge(db, window.teamChatMessages);
    const [row] = await db
      .select({ n: count() })
      .from(chatMessages)
      .where(and(liveChat, edge === null ? undefined : gte(chatMessages.createdAt, edge)));
    return row?.n ?? 0;
  },
};

const conversationsOf = (db: Db | Tx, actor: Actor, fromId: string | null) =>
  db
    .select({ id: conversations.id })
    .from(conversations)
    .where(and(involving(actor.id), fromId === null ? undefined : gte(conversations.id, fromId)))
    .orderBy(asc(conversations.id));

/**
 * The window of each direct conversation of the person: conversation by conversation (in id order), each newest
 * first, every live message from the time of its window's oldest on. Bounded per conversation, read by its index.
 */
const directPart: SnapshotPart = {
  entity: 'directMessage',
  ids: async (db, actor, after, limit, window) => {
    const [from] = after
      ? await db
          .select({
            conversationId: directMessages.conversationId,
            createdAt: directMessages.createdAt,
            id: directMessages.id,
          })
          .from(directMessages)
          .where(eq(directMessages.id, after))
      : [];
    const ids: string[] = [];
    for (const { id: conversationId } of await conversationsOf(db, actor, from?.conversationId ?? null)) {
      const edge = await conversationEdge(db, conversationId, window.directMessages);
      const rows = await db
        .select({ id: directMessages.id })
        .from(directMessages)
        .where(
          and(
            eq(directMessages.conversationId, conversationId),
            liveDirect,
            edge === null ? undefined : gte(directMessages.createdAt, edge),
            from?.conversationId === conversationId ? olderThan(directMessages, from) : undefined,
          ),
        )
        .orderBy(desc(directMessages.createdAt), desc(directMessages.id))
        .limit(limit - ids.length);
      ids.push(...rows.map((row) => row.id));
      if (ids.length >= limit) break;
    }
    return ids;
  },
  count: async (db, actor, window) => {
    const perConversation = await db
      .select({ n: count() })
      .from(directMessages)
      .where(
        and(
          liveDirect,
          inArray(
            directMessages.conversationId,
            db.select({ id: conversations.id }).from(conversations).where(involving(actor.id)),
          ),
        ),
      )
      .groupBy(directMessages.conversationId);
    return perConversation.reduce((sum, { n }) => sum + Math.min(n, window.directMessages), 0);
  },
};

/** The time of the person's `n`th newest notice (null: fewer). */
async function noticeEdge(db: Db | Tx, actor: Actor, n: number): Promise<string | null> {
  const [row] = await db
    .select({ createdAt: notifications.createdAt })
    .from(notifications)
    .where(eq(notifications.recipientId, actor.id))
    .orderBy(desc(notifications.createdAt))
    .limit(1)
    .offset(n - 1);
  return row?.createdAt ?? null;
}

/** Where a notice part goes on: the notice `after` if it is still there (else the part starts over). */
async function noticePlace(db: Db | Tx, after: string | null): Promise<Place | undefined> {
  if (after === null) return undefined;
  const [from] = await db
    .select({ createdAt: notifications.createdAt, id: notifications.id })
    .from(notifications)
    .where(eq(notifications.id, after));
  return from;
}

/** Notices newest first, on the person's index. */
function noticePart(where: (db: Db | Tx, actor: Actor, window: WindowAt) => Promise<SQL | undefined>): SnapshotPart {
  const condition = async (db: Db | Tx, actor: Actor, window: WindowAt) =>
    and(eq(notifications.recipientId, actor.id), await where(db, actor, window));
  return {
    entity: 'notification',
    ids: async (db, actor, after, limit, window) => {
      const from = await noticePlace(db, after);
      const rows = await db
        .select({ id: notifications.id })
        .from(notifications)
        .where(and(await condition(db, actor, window), from ? olderThan(notifications, from) : undefined))
        .orderBy(desc(notifications.createdAt), desc(notifications.id))
        .limit(limit);
      return rows.map((row) => row.id);
    },
    count: async (db, actor, window) =>
      (
        await db
          .select({ n: count() })
          .from(notifications)
          .where(await condition(db, actor, window))
      )[0]?.n ?? 0,
  };
}

/** The person's newest notices. */
const newestNotices = noticePart(async (db, actor, window) => {
  const edge = await noticeEdge(db, actor, window.notifications);
  return edge === null ? undefined : gte(notifications.createdAt, edge);
});

/** The person's unread notices older than the newest (the bell counts every unread one). */
const olderUnreadNotices = noticePart(async (db, actor, window) => {
  const edge = await noticeEdge(db, actor, window.notifications);
  if (edge === null) return sql`false`;
  const { readThrough } = await markerOf(db, actor.id);
  return and(
    isNull(notifications.readAt),
    lt(notifications.createdAt, edge),
    readThrough === null ? undefined : gt(notifications.createdAt, readThrough),
  );
});

/**
 * What a bootstrap sends, in this order: what the first screens need first (the directory, the person's own rows,
 * the tasks), the team chat (the largest) last. Only the window of the history (issue 46): every open task, the
 * completed ones changed since `completedSince`, the newest messages of each conversation and the newest notices
 * (unread ones all).
 */
export const snapshotParts: readonly SnapshotPart[] = [
  byId('user', users, () => isNull(users.deactivatedAt)),
  ownRow('notificationMarker'),
  ownRow('notificationPreferences'),
  byId('task', tasks, (actor) => and(visibleTasksWhere(actor), openTask)),
  byId('task', tasks, (actor, window) =>
    and(visibleTasksWhere(actor), completedTask, gte(tasks.updatedAt, window.completedSince)),
  ),
  byId('conversation', conversations, (actor) => involving(actor.id)),
  directPart,
  newestNotices,
  olderUnreadNotices,
  teamChatPart,
];

/**
 * The conversations whose first live message these changes hold (`teamChatKey` for the team chat): the device
 * then knows it holds their whole history. The oldest message of each is checked for an older one, by index.
 */
export async function historyStartsIn(db: Db | Tx, changes: readonly Change[]): Promise<string[]> {
  const oldest = new Map<string, Place>();
  const keep = (key: string, place: Place) => {
    const current = oldest.get(key);
    if (
      !current ||
      place.createdAt < current.createdAt ||
      (place.createdAt === current.createdAt && place.id < current.id)
    )
      oldest.set(key, place);
  };
  for (const change of changes) {
    if (change.op !== 'put') continue;
    if (change.entity === 'chatMessage') keep(teamChatKey, { createdAt: change.data.timestamp, id: change.id });
    if (change.entity === 'directMessage')
      keep(change.data.conversationId, { createdAt: change.data.createdAt, id: change.id });
  }
  const starts: string[] = [];
  for (const [key, place] of oldest) {
    const [older] =
      key === teamChatKey
        ? await db
            .select({ id: chatMessages.id })
            .from(chatMessages)
            .where(and(liveChat, olderThan(chatMessages, place)))
            .limit(1)
        : await db
            .select({ id: directMessages.id })
            .from(directMessages)
            .where(and(eq(directMessages.conversationId, key), liveDirect, olderThan(directMessages, place)))
            .limit(1);
    if (!older) starts.push(key);
  }
  return starts;
}
