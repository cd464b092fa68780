import { afterEach, describe, expect, test } from 'vitest';
import type { PullResponse, PushRequest, PushResponse } from '@office/sync-protocol';
import { ApiError } from '../api/http';
import type { WorkspaceDb } from '../data/db';
import { applyLiveChanges, applyPull } from './apply';
import { SyncEngine } from './engine';
import { mutate } from './mutate';
import { discardFailed, retryFailed } from './outbox-actions';
import { aUser, freshDb, testWindow } from '../../test/sync-support';
import type { SyncTransport } from './transport';

const userId = '01900000-0000-7000-8000-000000000001';
const ctx = { userId };
let db: WorkspaceDb;

afterEach(() => db?.close());

async function seeded(): Promise<WorkspaceDb> {
  db = freshDb(userId);
  await applyPull(db, ctx, {
    changes: [{ entity: 'user', op: 'put', id: userId, data: aUser(userId) }],
    cursor: '1',
    more: false,
    reset: true,
    window: testWindow,
    bootstrap: null,
    lastMutationId: 0,
  });
  return db;
}

/** A transport that answers pushes with the outcomes a test chooses, and records what was sent. */
function scriptedTransport(
  decide: (mutationId: number) => 'applied' | 'rejected',
): SyncTransport & { pushes: PushRequest[] } {
  const pushes: PushRequest[] = [];
  let lastMutationId = 0;
  return {
    pushes,
    async push(request): Promise<PushResponse> {
      pushes.push(request);
      const outcomes = request.mutations.map((m) => {
        lastMutationId = m.id;
        return decide(m.id) === 'applied'
          ? { id: m.id, status: 'applied' as const }
          : {
              id: m.id,
              status: 'rejected' as const,
              code: 'email_taken' as const,
              message: 'An account with this email already exists',
            };
      });
      return { outcomes, lastMutationId };
    },
    async pull(): Promise<PullResponse> {
      return {
        changes: [],
        cursor: '1',
        more: false,
        reset: false,
        bootstrap: null,
        lastMutationId,
        window: testWindow,
      };
    },
    upload: () => Promise.reject(new Error('no files in these tests')),
  };
}

describe('the outbox', () => {
  test('a local write changes IndexedDB at once, marks the row pending and queues the next mutation id', async () => {
    await seeded();
    const first = await mutate(db, ctx, 'user.updateDetails', { name: 'Alice A', email: 'alice@demo.local' });
    const second = await mutate(db, ctx, 'user.updateDetails', { name: 'Alice B', email: 'alice@demo.local' });
    expect([first, second]).toEqual([1, 2]);
    expect(await db.users.get(userId)).toMatchObject({ name: 'Alice B', pending: 1 });
    expect(
      (await db.outbox.orderBy('id').toArray()).map((e) => [e.id, e.status, (e.args as { name: string }).name]),
    ).toEqual([
      [1, 'pending', 'Alice A'],
      [2, 'pending', 'Alice B'],
    ]);
  });

  test('an invalid write is refused before it is queued', async () => {
    await seeded();
    await expect(mutate(db, ctx, 'user.updateDetails', { name: ' ', email: 'alice@demo.local' })).rejects.toThrow(
      'Name and email are required',
    );
    expect(await db.outbox.count()).toBe(0);
  });

  test('the engine pushes the queue in order and drops each acknowledged entry', async () => {
    await seeded();
    for (const name of ['A', 'B', 'C'])
      await mutate(db, ctx, 'user.updateDetails', { name, email: 'alice@demo.local' });
    const transport = scriptedTransport(() => 'applied');
    const engine = new SyncEngine(db, ctx, transport);
    engine.kick();
    await engine.settled();
    expect(transport.pushes.flatMap((p) => p.mutations.map((m) => m.id))).toEqual([1, 2, 3]);
    expect(await db.outbox.count()).toBe(0);
    expect((await db.users.get(userId))?.pending).toBeUndefined();
    engine.stop();
  });

  test('a rejected write is rolled back and kept as failed with the reason, while later writes still apply', async () => {
    await seeded();
    await mutate(db, ctx, 'user.updateDetails', { name: 'Alice', email: 'bob@demo.local' });
    await mutate(db, ctx, 'user.updateDetails', { name: 'Alice', email: 'alice@demo.local' });
    const engine = new SyncEngine(
      db,
      ctx,
      scriptedTransport((id) => (id === 1 ? 'rejected' : 'applied')),
    );
    engine.kick();
    await engine.settled();
    const entries = await db.outbox.toArray();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      id: 1,
      status: 'failed',
      error: { code: 'email_taken', message: 'An account with this email already exists' },
    });
    expect(await db.users.get(userId)).toMatchObject({ email: 'alice@demo.local' });
    engine.stop();
  });

  test('rolling back restores the row as it was before the refused write', async () => {
    await seeded();
    await mutate(db, ctx, 'user.updateDetails', { name: 'Renamed', email: 'bob@demo.local' });
    expect(await db.users.get(userId)).toMatchObject({ name: 'Renamed', pending: 1 });
    const engine = new SyncEngine(
      db,
      ctx,
      scriptedTransport(() => 'rejected'),
    );
    engine.kick();
    await engine.settled();
    const row = await db.users.get(userId);
    expect(row).toMatchObject({ name: 'Alice Johnson', email: 'alice@demo.local' });
    expect(row?.pending).toBeUndefined();
    engine.stop();
  });

  test('Retry queues a failed write again as a new mutation; Discard forgets it', async () => {
    await seeded();
    await mutate(db, ctx, 'user.updateDetails', { name: 'Again', email: 'alice@demo.local' });
    await db.outbox.update(1, { status: 'failed', error: { code: 'email_taken', message: 'x' } });
    await retryFailed(db, ctx, 1);
    expect((await db.outbox.toArray()).map((e) => [e.id, e.status])).toEqual([[2, 'pending']]);
    expect(await db.users.get(userId)).toMatchObject({ name: 'Again', pending: 1 });
    await db.outbox.update(2, { status: 'failed' });
    await discardFailed(db, 2);
    expect(await db.outbox.count()).toBe(0);
  });

  test('a 401 keeps every queued write and stops without spending a retry', async () => {
    await seeded();
    await mutate(db, ctx, 'user.updateDetails', { name: 'Later', email: 'alice@demo.local' });
    const transport: SyncTransport = {
      push: () => Promise.reject(new ApiError(401, 'token_expired', 'expired')),
      pull: () => Promise.reject(new ApiError(401, 'token_expired', 'expired')),
      upload: () => Promise.reject(new ApiError(401, 'token_expired', 'expired')),
    };
    const engine = new SyncEngine(db, ctx, transport);
    engine.kick();
    await engine.settled();
    expect(engine.getState()).toEqual({ phase: 'signed-out', retryAt: null });
    expect(await db.outbox.count()).toBe(1);
    engine.stop();
  });

  test('a network failure backs off and keeps the queue', async () => {
    await seeded();
    await mutate(db, ctx, 'user.updateDetails', { name: 'Later', email: 'alice@demo.local' });
    const transport: SyncTransport = {
      push: () => Promise.reject(new ApiError(0, 'network', 'offline')),
      pull: () => Promise.reject(new ApiError(0, 'network', 'offline')),
      upload: () => Promise.reject(new ApiError(0, 'network', 'offline')),
    };
    const engine = new SyncEngine(db, ctx, transport, { random: () => 0.5 });
    const before = Date.now();
    engine.kick();
    await engine.settled();
    const state = engine.getState();
    expect(state.phase).toBe('offline');
    expect((state.retryAt ?? 0) - before).toBeGreaterThanOrEqual(1000);
    expect(await db.outbox.count()).toBe(1);
    engine.stop();
  });
});

describe('applying server changes', () => {
  test('an older version never overwrites a newer one', async () => {
    await seeded();
    await applyLiveChanges(
      db,
      ctx,
      [
        {
          cursor: '2',
          change: { entity: 'user', op: 'put', id: userId, data: aUser(userId, { name: 'New', version: 5 }) },
        },
      ],
      true,
    );
    await applyLiveChanges(
      db,
      ctx,
      [
        {
          cursor: '3',
          change: { entity: 'user', op: 'put', id: userId, data: aUser(userId, { name: 'Old', version: 4 }) },
        },
      ],
      true,
    );
    expect(await db.users.get(userId)).toMatchObject({ name: 'New', version: 5 });
  });

  test('a live change moves the cursor to its seq when the stream is complete (gaps too), and only then', async () => {
    await seeded();
    const other = '01900000-0000-7000-8000-000000000002';
    const change = (version: number) => ({
      entity: 'user' as const,
      op: 'put' as const,
      id: other,
      data: aUser(other, { version }),
    });
    expect(await applyLiveChanges(db, ctx, [{ cursor: '2', change: change(2) }], false)).toBe('applied');
    expect((await db.meta.get('cursor'))?.value).toBe('1');
    expect(await applyLiveChanges(db, ctx, [{ cursor: '5', change: change(5) }], true)).toBe('applied');
    expect((await db.meta.get('cursor'))?.value).toBe('5');
    // An older seq arriving late never moves the cursor back.
    expect(await applyLiveChanges(db, ctx, [{ cursor: '4', change: change(4) }], true)).toBe('applied');
    expect((await db.meta.get('cursor'))?.value).toBe('5');
    expect(await db.users.get(other)).toMatchObject({ version: 5 });
  });

  test('live changes applied together: the newest state of each row wins, and the cursor stops before a held one', async () => {
    await seeded();
    const [first, second] = ['01900000-0000-7000-8000-000000000002', '01900000-0000-7000-8000-000000000003'];
    const put = (id: string, version: number, name: string) => ({
      entity: 'user' as const,
      op: 'put' as const,
      id,
      data: aUser(id, { name, version }),
    });
    await mutate(db, ctx, 'user.updateDetails', { name: 'Mine', email: 'alice@demo.local' });
    const outcome = await applyLiveChanges(
      db,
      ctx,
      [
        { cursor: '2', change: put(first, 2, 'First') },
        { cursor: '3', change: put(first, 3, 'First, renamed') },
        { cursor: '4', change: put(second, 4, 'Second') },
        // The row this device is still writing: held, so the cursor stays before it.
        { cursor: '5', change: put(userId, 5, 'Server') },
        { cursor: '6', change: { entity: 'user', op: 'delete', id: second } },
      ],
      true,
    );
    expect(outcome).toBe('held');
    expect((await db.meta.get('cursor'))?.value).toBe('4');
    expect(await db.users.get(first)).toMatchObject({ name: 'First, renamed', version: 3 });
    expect(await db.users.get(second)).toBeUndefined();
    expect(await db.users.get(userId)).toMatchObject({ name: 'Mine', version: 5, pending: 1 });
  });

  test('a pull rebases pending writes on top of the server state and drops acknowledged ones', async () => {
    await seeded();
    await mutate(db, ctx, 'user.updateDetails', { name: 'Mine', email: 'alice@demo.local' });
    await mutate(db, ctx, 'user.updateDetails', { name: 'Mine too', email: 'alice@demo.local' });
    await applyPull(db, ctx, {
      changes: [
        {
          entity: 'user',
          op: 'put',
          id: userId,
          data: aUser(userId, { name: 'Server', department: 'Research', version: 9 }),
        },
      ],
      cursor: '9',
      more: false,
      reset: false,
      window: testWindow,
      bootstrap: null,
      lastMutationId: 1,
    });
    expect(await db.users.get(userId)).toMatchObject({
      name: 'Mine too',
      department: 'Research',
      pending: 1,
      version: 9,
    });
    expect((await db.outbox.toArray()).map((e) => e.id)).toEqual([2]);
  });

  test('a bootstrap replaces everything and keeps the cursor it brings', async () => {
    await seeded();
    const gone = '01900000-0000-7000-8000-000000000009';
    await applyLiveChanges(
      db,
      ctx,
      [{ cursor: '2', change: { entity: 'user', op: 'put', id: gone, data: aUser(gone) } }],
      true,
    );
    await applyPull(db, ctx, {
      changes: [{ entity: 'user', op: 'put', id: userId, data: aUser(userId, { version: 3 }) }],
      cursor: '3',
      more: false,
      reset: true,
      window: testWindow,
      bootstrap: null,
      lastMutationId: 0,
    });
    expect((await db.users.toArray()).map((u) => u.id)).toEqual([userId]);
    expect((await db.meta.get('cursor'))?.value).toBe('3');
  });

  test('a live change to a row with a pending write leaves the cursor, so the pull after the push brings the row again', async () => {
    await seeded();
    await mutate(db, ctx, 'user.updateDetails', { name: 'Mine', email: 'alice@demo.local' });
    // The server already applied the write and says so live, before the push's answer arrives.
    const result = await applyLiveChanges(
      db,
      ctx,
      [
        {
          cursor: '2',
          change: { entity: 'user', op: 'put', id: userId, data: aUser(userId, { name: 'Mine', version: 2 }) },
        },
      ],
      true,
    );
    expect(result).toBe('held');
    expect((await db.meta.get('cursor'))?.value).toBe('1');
    await applyPull(db, ctx, {
      changes: [{ entity: 'user', op: 'put', id: userId, data: aUser(userId, { name: 'Mine', version: 2 }) }],
      cursor: '2',
      more: false,
      reset: false,
      window: testWindow,
      bootstrap: null,
      lastMutationId: 1,
    });
    const row = await db.users.get(userId);
    expect(row).toMatchObject({ name: 'Mine', version: 2 });
    expect(row?.pending).toBeUndefined();
    expect(await db.outbox.count()).toBe(0);
  });
});

describe('rolling back a refused write (found by faults.property.test.ts)', () => {
  const refuseAll = () =>
    new SyncEngine(
      db,
      ctx,
      scriptedTransport(() => 'rejected'),
    );

  test('two refused writes of one row leave the server row, not the first refused write', async () => {
    await seeded();
    await mutate(db, ctx, 'user.updateDetails', { name: 'First refused', email: 'alice@demo.local' });
    await mutate(db, ctx, 'user.updateDetails', { name: 'Second refused', email: 'alice@demo.local' });
    const engine = refuseAll();
    engine.kick();
    await engine.settled();
    expect(await db.users.get(userId)).toMatchObject({ name: 'Alice Johnson', version: 1 });
    expect((await db.outbox.toArray()).map((e) => e.status)).toEqual(['failed', 'failed']);
    engine.stop();
  });

  test('a refused write rolls back to the row the server sent after the write was made', async () => {
    await seeded();
    await mutate(db, ctx, 'user.updateDetails', { name: 'Refused', email: 'alice@demo.local' });
    await applyPull(db, ctx, {
      changes: [{ entity: 'user', op: 'put', id: userId, data: aUser(userId, { name: 'Server', version: 9 }) }],
      cursor: '9',
      more: false,
      reset: false,
      window: testWindow,
      bootstrap: null,
      lastMutationId: 0,
    });
    expect(await db.users.get(userId)).toMatchObject({ name: 'Refused', version: 9, pending: 1 });
    const engine = refuseAll();
    engine.kick();
    await engine.settled();
    const row = await db.users.get(userId);
    expect(row).toMatchObject({ name: 'Server', version: 9 });
    expect(row?.pending).toBeUndefined();
    engine.stop();
  });

  test('a write the server refused, whose answer never arrived, is rolled back when a pull says the server has it', async () => {
    await seeded();
    await mutate(db, ctx, 'user.updateDetails', { name: 'Refused unheard', email: 'alice@demo.local' });
    // The push answer was lost; the server refused the write, so the pull brings no change for the row.
    await applyPull(db, ctx, {
      changes: [],
      cursor: '1',
      more: false,
      reset: false,
      bootstrap: null,
      lastMutationId: 1,
      window: testWindow,
    });
    const row = await db.users.get(userId);
    expect(row).toMatchObject({ name: 'Alice Johnson', version: 1 });
    expect(row?.pending).toBeUndefined();
    expect(await db.outbox.count()).toBe(0);
  });

  test('a refused edit does not bring back a message the server removed meanwhile', async () => {
    await seeded();
    const messageId = '01900000-0000-7000-8000-0000000000aa';
    const author = { _id: userId, id: userId, name: 'Alice Johnson', avatar: null, role: 'employee' as const };
    const message = {
      _id: messageId,
      id: messageId,
      text: 'Hello',
      type: 'text' as const,
      attachments: [],
      reactions: [],
      userId: author,
      userName: 'Alice Johnson',
      userAvatar: null,
      timestamp: '2026-11-01T00:00:00.000Z',
      edited: false,
      version: 2,
    };
    await applyLiveChanges(
      db,
      ctx,
      [{ cursor: '2', change: { entity: 'chatMessage', op: 'put', id: messageId, data: message } }],
      true,
    );
    await mutate(db, ctx, 'chat.edit', { id: messageId, text: 'Edited' });
    await applyPull(db, ctx, {
      changes: [{ entity: 'chatMessage', op: 'delete', id: messageId }],
      cursor: '3',
      more: false,
      reset: false,
      window: testWindow,
      bootstrap: null,
      lastMutationId: 0,
    });
    const engine = refuseAll();
    engine.kick();
    await engine.settled();
    expect(await db.chatMessages.get(messageId)).toBeUndefined();
    engine.stop();
  });
  test("the server's copy of a message whose send is still queued stays: its time and version, not a draft again", async () => {
    await seeded();
    const messageId = '01900000-0000-7000-8000-0000000000bb';
    await mutate(db, ctx, 'chat.send', { id: messageId, text: 'Arrived first' });
    const author = { _id: userId, id: userId, name: 'Alice Johnson', avatar: null, role: 'employee' as const };
    const serverCopy = {
      _id: messageId,
      id: messageId,
      text: 'Arrived first',
      type: 'text' as const,
      attachments: [],
      userId: author,
      userName: 'Alice Johnson',
      userAvatar: null,
      timestamp: '2026-11-01T00:00:00.000Z',
      edited: false,
      reactions: [],
      version: 4,
    };
    // The live change reaches the device before the push's answer: the send is still in the outbox.
    const outcome = await applyLiveChanges(
      db,
      ctx,
      [{ cursor: '4', change: { entity: 'chatMessage', op: 'put', id: messageId, data: serverCopy } }],
      true,
    );
    expect(outcome).toBe('held');
    expect(await db.outbox.count()).toBe(1);
    expect(await db.chatMessages.get(messageId)).toMatchObject({
      timestamp: '2026-11-01T00:00:00.000Z',
      version: 4,
    });
  });
});
