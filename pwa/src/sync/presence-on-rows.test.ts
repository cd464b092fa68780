import { afterEach, expect, test } from 'vitest';
import type { PullResponse, User } from '@office/sync-protocol';
import type { WorkspaceDb } from '../data/db';
import { applyLiveChanges, applyPull, rejectEntry } from './apply';
import { mutate } from './mutate';
import { aUser, freshDb, testWindow } from '../../test/sync-support';

// Presence travels by its own events; a synced user row carries it only as the server read it, with no version.

const me = '01900000-0000-7000-8000-000000000001';
const colleague = '01900000-0000-7000-8000-000000000002';
const ctx = { userId: me };
let db: WorkspaceDb;

afterEach(() => db?.close());

const page = (users: User[], reset = false): PullResponse => ({
  changes: users.map((data) => ({ entity: 'user', op: 'put', id: data.id, data })),
  cursor: '1',
  more: false,
  reset,
  bootstrap: null,
  lastMutationId: 0,
  window: testWindow,
});

async function heardLeaving(): Promise<void> {
  db = freshDb(me);
  await applyPull(db, ctx, page([aUser(me), aUser(colleague, { name: 'Pat', status: 'online' })], true));
  // The user-offline event: the colleague closed the app.
  await db.users.update(colleague, { status: 'offline', lastSeen: '2026-11-27T05:00:00.000Z' });
}

test('a row new to the device brings its presence', async () => {
  db = freshDb(me);
  await applyPull(db, ctx, page([aUser(me), aUser(colleague, { status: 'away' })], true));
  expect(await db.users.get(colleague)).toMatchObject({ status: 'away' });
});

test('a pull read before someone left does not bring them back online, and still brings the rest of the row', async () => {
  await heardLeaving();
  await applyPull(db, ctx, page([aUser(colleague, { name: 'Pat Renamed', status: 'online', version: 2 })]));
  expect(await db.users.get(colleague)).toMatchObject({
    name: 'Pat Renamed',
    status: 'offline',
    lastSeen: '2026-11-27T05:00:00.000Z',
  });
});

test('a live change applied after the presence event that followed it does not bring them back online', async () => {
  await heardLeaving();
  const change = { entity: 'user' as const, op: 'put' as const, id: colleague };
  await applyLiveChanges(
    db,
    ctx,
    [{ cursor: '2', change: { ...change, data: aUser(colleague, { status: 'online', version: 2 }) } }],
    true,
  );
  expect(await db.users.get(colleague)).toMatchObject({ status: 'offline', version: 2 });
});

test('a refused write rolls its row back to the server’s, keeping the presence heard since', async () => {
  db = freshDb(me);
  await applyPull(db, ctx, page([aUser(me, { status: 'online' })], true));
  await mutate(db, ctx, 'user.updateDetails', { name: 'Renamed', email: 'bob@demo.local' });
  await db.users.update(me, { status: 'away', lastSeen: '2026-11-27T05:00:00.000Z' });

  await rejectEntry(db, ctx, 1, { code: 'email_taken', message: 'An account with this email already exists' });

  expect(await db.users.get(me)).toMatchObject({ name: 'Alice Johnson', status: 'away' });
});
