// liveQuery starts only where the global IndexedDB exists (as in a browser); the databases still use fresh factories.
import 'fake-indexeddb/auto';
import { liveQuery } from 'dexie';
import { afterEach, describe, expect, test } from 'vitest';
import { teamChatKey, type ChatMessage, type Notification, type NotificationMarker } from '@office/sync-protocol';
import { mutate } from '../sync/mutate';
import { freshDb } from '../../test/sync-support';
import { markAllThrough } from '../app/shell/notification-format';
import type { WorkspaceDb } from './db';
import { countUnreadNotifications, isUnreadNotice, listMentions, listNotifications } from './notification-hooks';

// Ids are UUIDs, as the read-mark mutations' schemas require: `n1` becomes ...0001 (messages are m11 and up).
const uuid = (id: string): string => `00000000-0000-7000-8000-${id.slice(1).padStart(12, '0')}`;
const me = uuid('u1');
const other = { _id: uuid('u2'), id: uuid('u2'), name: 'Maya Manager', avatar: null, role: 'manager' as const };
const ctx = { userId: me };

const aNotification = (id: string, createdAt: string, read = false): Notification => ({
  _id: uuid(id),
  id: uuid(id),
  recipient: me,
  sender: null,
  type: 'task_updated',
  title: `Notice ${id}`,
  message: 'Hello',
  relatedTask: null,
  data: {},
  read,
  createdAt,
  version: 1,
});

const aMessage = (id: string, timestamp: string, text: string, author = other): ChatMessage => ({
  _id: uuid(id),
  id: uuid(id),
  userId: author,
  userName: author.name,
  userAvatar: null,
  text,
  type: 'text',
  timestamp,
  edited: false,
  attachments: [],
  reactions: [],
  version: 1,
});

const marker = (overrides: Partial<NotificationMarker> = {}): NotificationMarker => ({
  _id: me,
  id: me,
  chatSince: '2026-05-14T00:00:00.000Z',
  readThrough: null,
  chatReads: [],
  version: 1,
  ...overrides,
});

let db: WorkspaceDb | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
});

describe('the bell’s queries', () => {
  test('the list is newest first and limited; the unread count covers every notification', async () => {
    db = freshDb(me);
    await db.notificationMarkers.put(marker());
    await db.notifications.bulkPut([
      aNotification('n1', '2026-05-14T08:00:00.000Z'),
      aNotification('n3', '2026-05-14T10:00:00.000Z', true),
      aNotification('n2', '2026-05-14T09:00:00.000Z'),
      aNotification('n4', '2026-05-14T07:00:00.000Z'),
    ]);
    expect((await listNotifications(db, me)).map((n) => n.title)).toEqual([
      'Notice n3',
      'Notice n2',
      'Notice n1',
      'Notice n4',
    ]);
    expect((await listNotifications(db, me, 2)).map((n) => n.title)).toEqual(['Notice n3', 'Notice n2']);
    expect(await countUnreadNotifications(db, me)).toBe(3);
  });

  test('the Mentions filter lists only mention notices, newest first, read as the marker says', async () => {
    db = freshDb(me);
    await db.notificationMarkers.put(marker({ readThrough: '2026-05-14T08:30:00.000Z' }));
    const mention = (id: string, createdAt: string): Notification => ({
      ...aNotification(id, createdAt),
      type: 'mention',
      title: `Mention ${id}`,
    });
    await db.notifications.bulkPut([
      mention('n1', '2026-05-14T08:00:00.000Z'),
      aNotification('n2', '2026-05-14T09:00:00.000Z'),
      mention('n3', '2026-05-14T10:00:00.000Z'),
      mention('n4', '2026-05-14T09:30:00.000Z'),
    ]);
    await db.chatMessages.put(aMessage('m11', '2026-05-14T11:00:00.000Z', '@Me hello'));
    expect((await listMentions(db, me)).map((n) => [n.title, n.read])).toEqual([
      ['Mention n3', false],
      ['Mention n4', false],
      ['Mention n1', true],
    ]);
    expect((await listMentions(db, me, 1)).map((n) => n.title)).toEqual(['Mention n3']);
  });

  test('team chat messages by others since the person joined are their notices, merged in time order', async () => {
    db = freshDb(me);
    await db.notificationMarkers.put(marker({ chatSince: '2026-05-14T08:30:00.000Z' }));
    await db.notifications.bulkPut([aNotification('n1', '2026-05-14T09:00:00.000Z')]);
    await db.chatMessages.bulkPut([
      aMessage('m11', '2026-05-14T08:00:00.000Z', 'Before I joined'),
      aMessage('m12', '2026-05-14T09:30:00.000Z', 'x'.repeat(60)),
      aMessage('m13', '2026-05-14T08:45:00.000Z', 'Morning'),
      aMessage('m14', '2026-05-14T10:00:00.000Z', 'My own', { ...other, _id: me, id: me, name: 'Me' }),
    ]);
    const list = await listNotifications(db, me);
    expect(list.map((n) => [n.id, n.type, n.title, n.message, n.read])).toEqual([
      [uuid('m12'), 'chat_message', 'New message from Maya Manager', `${'x'.repeat(50)}...`, false],
      [uuid('n1'), 'task_updated', 'Notice n1', 'Hello', false],
      [uuid('m13'), 'chat_message', 'New message from Maya Manager', 'Morning', false],
    ]);
    expect(await countUnreadNotifications(db, me)).toBe(3);
  });

  test('read marks lower the unread count at once, offline too; mark-all spares what arrived after the list', async () => {
    db = freshDb(me);
    await db.notificationMarkers.put(marker());
    await db.notifications.bulkPut([
      aNotification('n1', '2026-05-14T08:00:00.000Z'),
      aNotification('n2', '2026-05-14T09:00:00.000Z'),
    ]);
    await db.chatMessages.bulkPut([
      aMessage('m11', '2026-05-14T08:30:00.000Z', 'One'),
      aMessage('m12', '2026-05-14T09:30:00.000Z', 'Two'),
    ]);
    expect(await countUnreadNotifications(db, me)).toBe(4);
    await mutate(db, ctx, 'notification.markRead', { id: uuid('n1') });
    await mutate(db, ctx, 'notification.markRead', { id: uuid('m11') });
    expect(await countUnreadNotifications(db, me)).toBe(2);
    expect(await isUnreadNotice(db, me, uuid('m11'))).toBe(false);
    expect(await isUnreadNotice(db, me, uuid('m12'))).toBe(true);
    expect((await db.notificationMarkers.get(me))?.chatReads).toEqual([uuid('m11')]);

    const shown = await listNotifications(db, me);
    await db.notifications.put(aNotification('n4', '2026-05-14T11:00:00.000Z'));
    await db.chatMessages.put(aMessage('m15', '2026-05-14T11:30:00.000Z', 'Later'));
    const through = markAllThrough(shown);
    await mutate(db, ctx, 'notification.markAllRead', through ? { through } : {});
    expect(await countUnreadNotifications(db, me)).toBe(2);
    expect((await listNotifications(db, me)).filter((n) => !n.read).map((n) => n.id)).toEqual([
      uuid('m15'),
      uuid('n4'),
    ]);
    // Mark all is one write: the marker, not one row per notice.
    expect((await db.notificationMarkers.get(me))?.readThrough).toBe(through);
    expect(await db.outbox.count()).toBe(3);
  });

  test('a message that mentions the person is one notice, the mention, in the list, the count and read state', async () => {
    db = freshDb(me);
    await db.notificationMarkers.put(marker());
    const mentioning = aMessage('m12', '2026-05-14T09:30:00.000Z', '@Me can you look at the release notes?');
    await db.chatMessages.bulkPut([
      aMessage('m11', '2026-05-14T09:00:00.000Z', 'Morning all'),
      mentioning,
      aMessage('m13', '2026-05-14T10:00:00.000Z', 'Lunch at noon'),
    ]);
    // The server stores the mention at its message's time, naming the message.
    const mention: Notification = {
      ...aNotification('n1', mentioning.timestamp),
      type: 'mention',
      title: 'Maya Manager mentioned you in Team Chat',
      message: '@Me can you look at the release notes?',
      data: { messageId: mentioning.id },
    };
    await db.notifications.put(mention);

    expect((await listNotifications(db, me)).map((n) => [n.id, n.type])).toEqual([
      [uuid('m13'), 'chat_message'],
      [uuid('n1'), 'mention'],
      [uuid('m11'), 'chat_message'],
    ]);
    expect(await countUnreadNotifications(db, me)).toBe(3);
    expect(await isUnreadNotice(db, me, mentioning.id)).toBe(false);
    expect(await isUnreadNotice(db, me, uuid('n1'))).toBe(true);

    // Reading the mention leaves nothing of that message unread; a short list still lists the mention once.
    await mutate(db, ctx, 'notification.markRead', { id: uuid('n1') });
    expect(await countUnreadNotifications(db, me)).toBe(2);
    expect((await listNotifications(db, me, 2)).map((n) => n.id)).toEqual([uuid('m13'), uuid('n1')]);
    // A direct message mention (another message's id) takes nothing away from team chat.
    await db.notifications.put({
      ...mention,
      ...{ _id: uuid('n2'), id: uuid('n2') },
      createdAt: '2026-05-14T10:30:00.000Z',
      data: { messageId: uuid('d99'), conversationId: uuid('c1') },
    });
    expect(await countUnreadNotifications(db, me)).toBe(3);
  });

  test('an empty database has no notifications and nothing unread', async () => {
    db = freshDb(me);
    expect(await listNotifications(db, me)).toEqual([]);
    expect(await countUnreadNotifications(db, me)).toBe(0);
  });
});

describe('notification preferences on the device', () => {
  test('team chat set to mentions only, offline: the bell drops team chat notices from the list and the count at once', async () => {
    db = freshDb(me);
    await db.notificationMarkers.put(marker());
    await db.notifications.bulkPut([aNotification('n1', '2026-05-14T08:00:00.000Z')]);
    await db.chatMessages.bulkPut([
      aMessage('m11', '2026-05-14T09:00:00.000Z', 'Lunch?'),
      aMessage('m12', '2026-05-14T10:00:00.000Z', 'Anyone?'),
    ]);
    expect(await countUnreadNotifications(db, me)).toBe(3);

    await mutate(db, ctx, 'notification.setPreferences', { teamChat: 'mentions' });

    expect((await listNotifications(db, me)).map((n) => n.title)).toEqual(['Notice n1']);
    expect(await countUnreadNotifications(db, me)).toBe(1);
    expect(await isUnreadNotice(db, me, uuid('m11'))).toBe(false);
    expect(await db.notificationPreferences.get(me)).toMatchObject({
      teamChat: 'mentions',
      taskNotices: true,
      pending: 1,
    });
    expect((await db.outbox.toArray()).map((entry) => entry.name)).toEqual(['notification.setPreferences']);

    await mutate(db, ctx, 'notification.setPreferences', { teamChat: 'all' });
    expect(await countUnreadNotifications(db, me)).toBe(3);
  });
});

test('the bell’s live list and count drop a message’s chat notice when its mention arrives after it', async () => {
  db = freshDb(me);
  const watched = db;
  await watched.notificationMarkers.put(marker());
  const mentioning = aMessage('m11', '2026-05-14T09:00:00.000Z', '@Me a word');
  await watched.chatMessages.put(mentioning);
  const lists: string[][] = [];
  const counts: number[] = [];
  const listing = liveQuery(() => listNotifications(watched, me)).subscribe((list) =>
    lists.push(list.map((n) => n.type)),
  );
  const counting = liveQuery(() => countUnreadNotifications(watched, me)).subscribe((count) => counts.push(count));
  await expect.poll(() => lists.at(-1)).toEqual(['chat_message']);
  await expect.poll(() => counts.at(-1)).toBe(1);

  await watched.notifications.put({
    ...aNotification('n1', mentioning.timestamp),
    type: 'mention',
    data: { messageId: mentioning.id },
  });

  await expect.poll(() => lists.at(-1)).toEqual(['mention']);
  await expect.poll(() => counts.at(-1)).toBe(1);
  expect(counts).not.toContain(2);
  listing.unsubscribe();
  counting.unsubscribe();
});

test('the bell’s live list and count follow a team chat message that arrives while they are watched', async () => {
  db = freshDb(me);
  const watched = db;
  await watched.notificationMarkers.put(marker());
  await watched.chatMessages.put(aMessage('m11', '2026-05-14T09:00:00.000Z', 'First'));
  const lists: string[][] = [];
  const counts: number[] = [];
  const listing = liveQuery(() => listNotifications(watched, me)).subscribe((list) =>
    lists.push(list.map((n) => n.message)),
  );
  const counting = liveQuery(() => countUnreadNotifications(watched, me)).subscribe((count) => counts.push(count));
  await expect.poll(() => lists.at(-1)).toEqual(['First']);

  await watched.chatMessages.put(aMessage('m12', '2026-05-14T10:00:00.000Z', 'Second'));

  await expect.poll(() => lists.at(-1)).toEqual(['Second', 'First']);
  await expect.poll(() => counts.at(-1)).toBe(2);
  listing.unsubscribe();
  counting.unsubscribe();
});

describe('the bell with the history off the device (issue 46)', () => {
  const edge = '2026-05-14T09:00:00.000Z';
  async function trimmed(before: number, readThrough: string | null) {
    db = freshDb(me);
    await db.notificationMarkers.put(marker({ readThrough }));
    await db.chatMessages.bulkPut([
      aMessage('m11', '2026-05-14T09:00:00.000Z', 'At the edge'),
      aMessage('m12', '2026-05-14T09:30:00.000Z', 'In the window'),
      // Held from before the edge (read on demand): the server's count covers it already.
      aMessage('m13', '2026-05-14T08:00:00.000Z', 'Cached'),
    ]);
    await db.historyRanges.put({
      key: teamChatKey,
      edge,
      spans: [{ from: '2026-05-14T08:00:00.000Z', to: null }],
      before: { unread: before, readAt: readThrough, byAuthor: {} },
      stale: false,
      viewedAt: null,
    });
    return db;
  }

  test('the unread count adds what the server counted before the window’s edge to the messages held', async () => {
    const device = await trimmed(40, null);
    expect(await countUnreadNotifications(device, me)).toBe(2 + 40);
  });

  test('a marker past the edge leaves nothing unread before it, whatever was counted', async () => {
    const device = await trimmed(40, '2026-05-14T09:10:00.000Z');
    expect(await countUnreadNotifications(device, me)).toBe(1);
    await mutate(device, ctx, 'notification.markAllRead', {});
    expect(await countUnreadNotifications(device, me)).toBe(0);
  });
});
