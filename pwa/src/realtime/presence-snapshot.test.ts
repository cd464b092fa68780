import { afterEach, expect, test } from 'vitest';
import type { WorkspaceDb } from '../data/db';
import { aUser, freshDb } from '../../test/sync-support';
import { applyPresenceSnapshot } from './presence';

let db: WorkspaceDb;
afterEach(() => db?.close());

const ids = {
  stayed: '01900000-0000-7000-8000-000000000001',
  leftUnheard: '01900000-0000-7000-8000-000000000002',
  cameUnheard: '01900000-0000-7000-8000-000000000003',
  wentAway: '01900000-0000-7000-8000-000000000004',
};

test('a snapshot on connect corrects presence the device missed while it was disconnected', async () => {
  db = freshDb(ids.stayed);
  await db.users.bulkPut([
    aUser(ids.stayed, { status: 'online' }),
    aUser(ids.leftUnheard, { status: 'online' }),
    aUser(ids.cameUnheard, { status: 'offline' }),
    aUser(ids.wentAway, { status: 'online' }),
  ]);

  await applyPresenceSnapshot(db, [
    { userId: ids.stayed, status: 'online' },
    { userId: ids.cameUnheard, status: 'online' },
    { userId: ids.wentAway, status: 'away' },
  ]);

  const statuses = Object.fromEntries((await db.users.toArray()).map((user) => [user.id, user.status]));
  expect(statuses).toEqual({
    [ids.stayed]: 'online',
    [ids.leftUnheard]: 'offline',
    [ids.cameUnheard]: 'online',
    [ids.wentAway]: 'away',
  });
});
