import { afterEach, describe, expect, test } from 'vitest';
import type { Notification } from '@office/sync-protocol';
import { mutate } from '../sync/mutate';
import { freshDb } from '../sync/test-support';
import { markAllThrough } from '../app/shell/notification-format';
import type { WorkspaceDb } from './db';
import { countUnreadNotifications, listNotifications } from './notification-hooks';

// Ids are UUIDs, as the read-mark mutations' schemas require: `n1` becomes ...0001.
const uuid = (id: string): string => `00000000-0000-7000-8000-${id.slice(1).padStart(12, '0')}`;

const aNotification = (id: string, createdAt: string, read = false): Notification => ({
  _id: uuid(id),
  id: uuid(id),
  recipient: 'u-alice',
  sender: null,
  type: 'custom',
  title: `Notice ${id}`,
  message: 'Hello',
  relatedTask: null,
  data: {},
  read,
  createdAt,
  version: 1,
});

let db: WorkspaceDb | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
});

describe('the bell’s queries', () => {
  test('the list is newest first and limited; the unread count covers every notification', async () => {
    db = freshDb('u-alice');
    await db.notifications.bulkPut([
      aNotification('n1', '2026-05-14T08:00:00.000Z'),
      aNotification('n3', '2026-05-14T10:00:00.000Z', true),
      aNotification('n2', '2026-05-14T09:00:00.000Z'),
      aNotification('n4', '2026-05-14T07:00:00.000Z'),
    ]);
    expect((await listNotifications(db)).map((n) => n.title)).toEqual([
      'Notice n3',
      'Notice n2',
      'Notice n1',
      'Notice n4',
    ]);
    expect((await listNotifications(db, 2)).map((n) => n.title)).toEqual(['Notice n3', 'Notice n2']);
    expect(await countUnreadNotifications(db)).toBe(3);
  });

  test('read marks lower the unread count at once, offline too; mark-all spares what arrived after the list', async () => {
    db = freshDb('u-alice');
    await db.notifications.bulkPut([
      aNotification('n1', '2026-05-14T08:00:00.000Z'),
      aNotification('n2', '2026-05-14T09:00:00.000Z'),
      aNotification('n3', '2026-05-14T10:00:00.000Z'),
    ]);
    const ctx = { userId: 'u-alice' };
    await mutate(db, ctx, 'notification.markRead', { id: uuid('n1') });
    expect(await countUnreadNotifications(db)).toBe(2);

    const shown = await listNotifications(db);
    await db.notifications.put(aNotification('n4', '2026-05-14T11:00:00.000Z'));
    const through = markAllThrough(shown);
    await mutate(db, ctx, 'notification.markAllRead', through ? { through } : {});
    expect(await countUnreadNotifications(db)).toBe(1);
    expect((await db.notifications.get(uuid('n4')))?.read).toBe(false);
    expect(await db.outbox.count()).toBe(2);
  });

  test('an empty database has no notifications and nothing unread', async () => {
    db = freshDb('u-alice');
    expect(await listNotifications(db)).toEqual([]);
    expect(await countUnreadNotifications(db)).toBe(0);
  });
});
