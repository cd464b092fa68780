// liveQuery starts only where the global IndexedDB exists (as in a browser); the databases still use fresh factories.
import 'fake-indexeddb/auto';
import { afterEach, expect, test } from 'vitest';
import type { OutboxEntry, WorkspaceDb } from '../data/db';
import { whenSettled } from './settled';
import { freshDb } from '../../test/sync-support';

let db: WorkspaceDb;
afterEach(() => db?.close());

const entry = (id: number): OutboxEntry => ({
  id,
  name: 'user.updateDetails',
  args: {},
  at: '2026-11-23T00:00:00.000Z',
  status: 'pending',
  undo: [],
  rowKeys: [],
});

test('a queued write settles as accepted once its outbox entry is gone', async () => {
  db = freshDb('01900000-0000-7000-8000-000000000001');
  await db.outbox.add(entry(1));
  const settled = whenSettled(db, 1);
  await db.outbox.delete(1);
  await expect(settled).resolves.toEqual({ status: 'accepted' });
});

test('a queued write settles as refused, with the server’s message, once it is marked failed', async () => {
  db = freshDb('01900000-0000-7000-8000-000000000001');
  await db.outbox.add(entry(2));
  const settled = whenSettled(db, 2);
  await db.outbox.update(2, { status: 'failed', error: { code: 'email_taken', message: 'Taken' } });
  await expect(settled).resolves.toEqual({ status: 'refused', message: 'Taken' });
});
