import { Dexie } from 'dexie';
import { useLiveQuery } from 'dexie-react-hooks';
import {
  chatNotice,
  defaultNotificationPreferences,
  readByMarker,
  teamChatKey,
  type NotificationMarker,
  type NotificationPreferences,
} from '@office/sync-protocol';
import type { HistoryRange, LocalChatMessage, LocalNotification, WorkspaceDb } from './db';
import { useWorkspace } from '../sync/sync-context';

// The bell merges two sources, as GET /api/notifications does: the notifications stored for this person (task
// notices, direct messages, mentions) and the team chat notices derived here from the chat's messages with the
// person's read marker. Nothing is stored per member for a team chat message, on the server or on the device. A
// message that mentions the person has their mention as its one notice: its team chat notice gives way.

/** How many notifications the bell's list shows; older ones stay in the database and in the unread count. */
export const NOTIFICATION_LIST_LIMIT = 50;

/**
 * The person's read marker as this device holds it. Before the bootstrap brought it, chat notices start when
 * the person joined (their user row) and nothing is read.
 */
export async function markerOf(db: WorkspaceDb, userId: string): Promise<NotificationMarker> {
  const stored = await db.notificationMarkers.get(userId);
  if (stored) return stored;
  const me = await db.users.get(userId);
  return { _id: userId, id: userId, chatSince: me?.createdAt ?? '', readThrough: null, chatReads: [], version: 0 };
}

/** The person's notification preferences as this device holds them; the spec's defaults before any arrive. */
export async function preferencesOf(db: WorkspaceDb, userId: string): Promise<NotificationPreferences> {
  return (await db.notificationPreferences.get(userId)) ?? defaultNotificationPreferences(userId);
}

/**
 * Whether every team chat message is the person's notice (their preference; the spec's default before it
 * arrives). The live queries read the row themselves, right before their next read: a read behind nested
 * async functions loses Dexie's observation of what the query reads after it, and the bell stops following.
 */
const takesChatNotices = (preferences: NotificationPreferences | undefined): boolean =>
  (preferences?.teamChat ?? 'all') === 'all';

/** A team chat message as the person's notice (not for their own messages, nor for those before they joined). */
const noticeOf = (message: LocalChatMessage, marker: NotificationMarker): LocalNotification =>
  chatNotice(
    {
      id: message.id,
      text: message.text,
      createdAt: message.timestamp,
      version: message.version,
      author: { id: message.userId.id, name: message.userId.name },
    },
    marker,
  );

/**
 * The person's mention notices from `from` on (after it when `open`), newest first, by index. A mention shares its
 * message's time, so these are the mentions of the chat messages from that time on. Not async: a live query
 * observes the read (see `takesChatNotices`).
 */
const mentionsFrom = (db: WorkspaceDb, from: string, open = false) =>
  db.notifications
    .where('[type+createdAt]')
    .between(['mention', from], ['mention', Dexie.maxKey], !open, true)
    .reverse()
    .toArray();

/** The ids of the messages these mention notices are about: messages whose notice is the mention. */
const mentionedMessageIds = (mentions: readonly LocalNotification[]): Set<string> =>
  new Set(mentions.flatMap(({ data }) => (typeof data.messageId === 'string' ? [data.messageId] : [])));

/** A stored notice as the person sees it: read when the marker covers it, too. */
const withMarker = (notification: LocalNotification, marker: NotificationMarker): LocalNotification =>
  notification.read || !readByMarker(marker, notification.createdAt) ? notification : { ...notification, read: true };

/** The newest notices first, stored and team chat merged (ties by id, which is time-ordered too). */
export async function listNotifications(
  db: WorkspaceDb,
  userId: string,
  limit = NOTIFICATION_LIST_LIMIT,
): Promise<LocalNotification[]> {
  const marker = await markerOf(db, userId);
  const stored = await db.notifications.orderBy('createdAt').reverse().limit(limit).toArray();
  // Newest messages first, walking back until `limit` notices of this person are found.
  const chat = !takesChatNotices(await db.notificationPreferences.get(userId))
    ? []
    : await db.chatMessages
        .where('timestamp')
        .aboveOrEqual(marker.chatSince)
        .reverse()
        .filter((message) => message.userId.id !== userId)
        .limit(limit)
        .toArray();
  // Fewer chat notices than `limit` is still right: each one left out has its mention, at its time, among the stored.
  const oldest = chat.at(-1)?.timestamp;
  const mentioned = oldest === undefined ? new Set<string>() : mentionedMessageIds(await mentionsFrom(db, oldest));
  const chatNotices = chat.filter((message) => !mentioned.has(message.id)).map((m) => noticeOf(m, marker));
  return [...stored.map((n) => withMarker(n, marker)), ...chatNotices]
    .sort((a, b) => (a.createdAt === b.createdAt ? b.id.localeCompare(a.id) : b.createdAt.localeCompare(a.createdAt)))
    .slice(0, limit);
}

/** Which notices the bell lists: all of them, or the mentions of the person only. */
export type NotificationFilter = 'all' | 'mentions';

/** The newest mention notices first (they are stored notices; team chat notices are never mentions). */
export async function listMentions(
  db: WorkspaceDb,
  userId: string,
  limit = NOTIFICATION_LIST_LIMIT,
): Promise<LocalNotification[]> {
  const marker = await markerOf(db, userId);
  const mentions = await db.notifications
    .where('[type+createdAt]')
    .between(['mention', Dexie.minKey], ['mention', Dexie.maxKey])
    .reverse()
    .limit(limit)
    .toArray();
  return mentions.map((notification) => withMarker(notification, marker));
}

/**
 * How many of the person's notices are unread, pending read marks included, from indexes only: stored ones unread
 * after the marker (every unread one is on the device), plus the team chat messages after it (all less the person's
 * own) less those marked read one by one and less those whose notice is a mention of the person (counted with the
 * stored). The device holds the team chat from its window's edge on (issue 46): before the edge, the server's count
 * of unread notices stands in for the messages it does not hold.
 */
export async function countUnreadNotifications(db: WorkspaceDb, userId: string): Promise<number> {
  const marker = await markerOf(db, userId);
  const stored = await db.notifications
    .where('unreadAt')
    .above(marker.readThrough ?? '')
    .count();
  if (!takesChatNotices(await db.notificationPreferences.get(userId))) return stored;
  const range = await db.historyRanges.get(teamChatKey);
  const edge = range?.edge ?? null;
  const unreadFrom =
    marker.readThrough !== null && marker.readThrough >= marker.chatSince
      ? { from: marker.readThrough, open: true }
      : { from: marker.chatSince, open: false };
  // Counted here: what the device holds of it, from the window's edge on.
  const after = edge !== null && edge > unreadFrom.from ? { from: edge, open: false } : unreadFrom;
  const all = await db.chatMessages.where('timestamp').between(after.from, '\uffff', !after.open, true).count();
  const own = await db.chatMessages
    .where('[userId.id+timestamp]')
    .between([userId, after.from], [userId, '\uffff'], !after.open, true)
    .count();
  const counted = (message: LocalChatMessage | undefined): message is LocalChatMessage =>
    message !== undefined &&
    message.userId.id !== userId &&
    (after.open ? message.timestamp > after.from : message.timestamp >= after.from);
  const marked = (await db.chatMessages.bulkGet(marker.chatReads)).filter(counted).length;
  const chatReads = new Set(marker.chatReads);
  const mentioned = [...mentionedMessageIds(await mentionsFrom(db, after.from, after.open))];
  const replaced = (await db.chatMessages.bulkGet(mentioned)).filter(
    (message) => counted(message) && !chatReads.has(message.id),
  ).length;
  return stored + all - own - marked - replaced + unreadBeforeEdge(range, unreadFrom.from);
}

/**
 * The team chat notices unread before the window's edge: none when the marker (or the person's start) is past it,
 * else what the server counted (for the marker it names; a newer marker is counted again by the window keeper).
 */
function unreadBeforeEdge(range: HistoryRange | undefined, unreadFrom: string): number {
  if (!range?.edge || unreadFrom >= range.edge) return 0;
  return range.before?.unread ?? 0;
}

/** Whether the notice `id` (stored, or a team chat message's) is unread for the person on this device. */
export async function isUnreadNotice(db: WorkspaceDb, userId: string, id: string): Promise<boolean> {
  const marker = await markerOf(db, userId);
  const stored = await db.notifications.get(id);
  if (stored) return !withMarker(stored, marker).read;
  if (!takesChatNotices(await db.notificationPreferences.get(userId))) return false;
  const message = await db.chatMessages.get(id);
  if (!message || message.userId.id === userId || message.timestamp < marker.chatSince) return false;
  // A message that mentions the person is no chat notice of theirs: the mention is.
  const mentions = await db.notifications.where('[type+createdAt]').equals(['mention', message.timestamp]).toArray();
  if (mentionedMessageIds(mentions).has(id)) return false;
  return !noticeOf(message, marker).read;
}

/** The bell's list, live: it follows pulls, socket changes and optimistic read marks. */
export function useNotifications(
  filter: NotificationFilter = 'all',
  limit = NOTIFICATION_LIST_LIMIT,
): LocalNotification[] | undefined {
  const { db, ctx } = useWorkspace();
  return useLiveQuery(
    () => (filter === 'mentions' ? listMentions : listNotifications)(db, ctx.userId, limit),
    [db, ctx.userId, filter, limit],
  );
}

/** The unread count, live (undefined while reading). */
export function useUnreadNotificationCount(): number | undefined {
  const { db, ctx } = useWorkspace();
  return useLiveQuery(() => countUnreadNotifications(db, ctx.userId), [db, ctx.userId]);
}

/** The person's notification preferences, live (the defaults until the first sync brings theirs). */
export function useNotificationPreferences(): NotificationPreferences | undefined {
  const { db, ctx } = useWorkspace();
  return useLiveQuery(() => preferencesOf(db, ctx.userId), [db, ctx.userId]);
}
