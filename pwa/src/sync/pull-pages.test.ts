import { afterEach, describe, expect, test, vi } from 'vitest';
import type { Change, PullQuery, PullResponse, PushResponse } from '@office/sync-protocol';
import { ApiError } from '../api/http';
import type { WorkspaceDb } from '../data/db';
import { applyPull } from './apply';
import { SyncEngine } from './engine';
import { readBootstrap, readCursor } from './meta';
import { mutate } from './mutate';
import { mutators } from './mutators';
import { aUser, freshDb, testWindow } from '../../test/sync-support';
import type { SyncTransport } from './transport';

// The device side of issue 14: a paged, resumable bootstrap; a live stream that moves the cursor without
// pulling; a write and a rebase whose cost follows the rows touched, not the outbox or the tables.

const userId = '01900000-0000-7000-8000-000000000001';
const ctx = { userId };
let db: WorkspaceDb;
afterEach(() => {
  vi.restoreAllMocks();
  db?.close();
});

const idOf = (n: number) => `01900000-0000-7000-8000-${String(n).padStart(12, '0')}`;
const userChange = (n: number, version = n): Change => ({
  entity: 'user',
  op: 'put',
  id: idOf(n),
  data: aUser(idOf(n), { name: `Person ${n}`, version }),
});

/** A server of `rows` users, served in bootstrap pages of the asked limit from snapshot version `head`. */
function pagedServer(rows: number, head: number) {
  const pulls: PullQuery[] = [];
  let failNext = false;
  const transport: SyncTransport & { pulls: PullQuery[]; failNextPull(): void } = {
    pulls,
    failNextPull: () => {
      failNext = true;
    },
    // Answers as a server that stops at a gap before the first write: the writes stay queued, and after its pull the
    // engine pushes once more (a gap a pull may have settled), then pulls again.
    push: (): Promise<PushResponse> => Promise.resolve({ outcomes: [], lastMutationId: 0 }),
    async pull(query): Promise<PullResponse> {
      pulls.push(query);
      if (failNext) {
        failNext = false;
        throw new ApiError(0, 'timeout', 'The server took too long to answer.');
      }
      if (query.cursor !== '0')
        return {
          changes: [],
          cursor: String(head),
          more: false,
          reset: false,
          bootstrap: null,
          lastMutationId: 0,
          window: testWindow,
        };
      const start = query.snapshot ? Number(query.snapshot.split('.')[3]) : 0;
      const end = Math.min(rows, start + query.limit);
      const changes = Array.from({ length: end - start }, (_, i) => userChange(start + i + 1));
      const last = end === rows;
      return {
        changes,
        cursor: last ? String(head) : '0',
        more: !last,
        reset: start === 0,
        window: testWindow,
        bootstrap: {
          next: last ? null : `${head}.0.${idOf(end)}.${end}.${rows}`,
          done: end,
          total: rows,
          historyStarts: [],
        },
        lastMutationId: 0,
      };
    },
    upload: () => Promise.reject(new Error('no files here')),
  };
  return transport;
}

// Thousands of rows into fake-indexeddb: seconds of work, more on a loaded machine.
describe('a paged bootstrap', { timeout: 30_000 }, () => {
  test('fills the tables page by page, keeps its progress and the next token, and ends at the cursor', async () => {
    db = freshDb(userId);
    const transport = pagedServer(2500, 40);
    const progress: (number | null)[] = [];
    const pull = transport.pull.bind(transport);
    vi.spyOn(transport, 'pull').mockImplementation(async (query) => {
      progress.push((await readBootstrap(db))?.done ?? null);
      return pull(query);
    });
    const engine = new SyncEngine(db, ctx, transport);
    engine.kick();
    await engine.settled();
    expect(transport.pulls.map((q) => [q.cursor, q.snapshot ?? null])).toEqual([
      ['0', null],
      ['0', `40.0.${idOf(1000)}.1000.2500`],
      ['0', `40.0.${idOf(2000)}.2000.2500`],
    ]);
    expect(progress).toEqual([null, 1000, 2000]);
    expect(await db.users.count()).toBe(2500);
    expect(await readCursor(db)).toBe('40');
    expect(await readBootstrap(db)).toBeNull();
    engine.stop();
  });

  test('a write made during the download is pushed between pages; a push that fails does not stop the download', async () => {
    db = freshDb(userId);
    const transport = pagedServer(2500, 40);
    const engine = new SyncEngine(db, ctx, transport, { random: () => 0 });
    const pull = transport.pull.bind(transport);
    const calls: string[] = [];
    vi.spyOn(transport, 'pull').mockImplementation(async (query) => {
      calls.push(`pull ${query.snapshot ?? '-'}`);
      // The person renames themself while the second page is on its way.
      if (calls.length === 2)
        await mutate(db, ctx, 'user.updateDetails', { name: 'Renamed meanwhile', email: 'alice@demo.local' });
      return pull(query);
    });
    let pushes = 0;
    vi.spyOn(transport, 'push').mockImplementation((request) => {
      pushes += 1;
      calls.push(`push ${request.mutations.length}`);
      // The first try fails as a server error would; the download goes on and the write is pushed after it.
      if (pushes === 1) return Promise.reject(new ApiError(500, 'internal', 'Something went wrong.'));
      return Promise.resolve({
        outcomes: request.mutations.map((mutation) => ({ id: mutation.id, status: 'applied' as const })),
        lastMutationId: request.mutations.at(-1)?.id ?? 0,
      });
    });
    engine.kick();
    await engine.settled();
    expect(calls).toEqual([
      'pull -',
      `pull 40.0.${idOf(1000)}.1000.2500`,
      'push 1',
      `pull 40.0.${idOf(2000)}.2000.2500`,
      'push 1',
      'pull -',
    ]);
    expect(await db.users.count()).toBe(2500);
    expect(await db.outbox.count()).toBe(0);
    // Nothing was lost on the way: the device shows the rename, no longer pending.
    const renamed = await db.users.get(userId);
    expect(renamed).toMatchObject({ name: 'Renamed meanwhile' });
    expect(renamed?.pending).toBeUndefined();
    expect(engine.getState().phase).toBe('idle');
    engine.stop();
  });

  test('a broken link resumes from the stored token instead of starting over; writes made meanwhile survive', async () => {
    db = freshDb(userId);
    const transport = pagedServer(2500, 40);
    const engine = new SyncEngine(db, ctx, transport, { random: () => 0 });
    const pull = transport.pull.bind(transport);
    // The second page times out, as on a slow link.
    let calls = 0;
    vi.spyOn(transport, 'pull').mockImplementation((query) => {
      calls += 1;
      if (calls === 2) transport.failNextPull();
      return pull(query);
    });
    engine.kick();
    await engine.settled();
    expect(await db.users.count()).toBe(1000);
    expect(await readBootstrap(db)).toMatchObject({ done: 1000, total: 2500 });
    await mutate(db, ctx, 'user.updateDetails', { name: 'Renamed meanwhile', email: 'alice@demo.local' });

    engine.kick();
    await engine.settled();
    // The download's pages; after it, the pulls the one more push of a gap asks for carry no snapshot.
    expect(transport.pulls.map((q) => q.snapshot ?? null).filter((snapshot) => snapshot !== null)).toEqual([
      `40.0.${idOf(1000)}.1000.2500`,
      `40.0.${idOf(1000)}.1000.2500`,
      `40.0.${idOf(2000)}.2000.2500`,
    ]);
    expect(await db.users.count()).toBe(2500);
    // The write was pushed (the scripted server answers nothing) and its row shows it on top of the server's.
    expect(await db.users.get(userId)).toMatchObject({ name: 'Renamed meanwhile', pending: 1 });
    engine.stop();
  });

  test('a database of another protocol version bootstraps once more, keeping its outbox', async () => {
    db = freshDb(userId);
    await applyPull(db, ctx, {
      changes: [userChange(1)],
      cursor: '7',
      more: false,
      reset: true,
      window: testWindow,
      bootstrap: null,
      lastMutationId: 0,
    });
    await db.meta.put({ key: 'protocolVersion', value: 4 });
    await mutate(db, ctx, 'user.updateDetails', { name: 'Queued before the update', email: 'alice@demo.local' });
    const transport = pagedServer(3, 50);
    const engine = new SyncEngine(db, ctx, transport);
    engine.kick();
    await engine.settled();
    // One bootstrap; the pulls after it (the one more push its queued write's gap asks for) start from its cursor.
    const [first, ...after] = transport.pulls.map((q) => q.cursor);
    expect(first).toBe('0');
    expect(after.every((cursor) => cursor === '50')).toBe(true);
    expect(await readCursor(db)).toBe('50');
    expect(await db.users.get(userId)).toMatchObject({ name: 'Queued before the update', pending: 1 });

    // The next sync pulls from the cursor: no second download.
    const pullsBefore = transport.pulls.length;
    engine.kick();
    await engine.settled();
    expect(transport.pulls.slice(pullsBefore).map((q) => q.cursor)).toContain('50');
    expect(transport.pulls.filter((q) => q.cursor === '0')).toHaveLength(1);
    engine.stop();
  });
});

describe('live changes', () => {
  async function connectedEngine(): Promise<{ engine: SyncEngine; transport: ReturnType<typeof pagedServer> }> {
    db = freshDb(userId);
    const transport = pagedServer(2, 10);
    const engine = new SyncEngine(db, ctx, transport);
    engine.socketConnected();
    await engine.settled();
    return { engine, transport };
  }

  test('a burst of live changes, gaps included, moves the cursor without a single pull', async () => {
    const { engine, transport } = await connectedEngine();
    const pulls = transport.pulls.length;
    for (const seq of [11, 12, 15, 16, 30]) await engine.receiveLive(String(seq), userChange(3, seq));
    expect(await readCursor(db)).toBe('30');
    expect(await db.users.get(idOf(3))).toMatchObject({ version: 30 });
    await engine.settled();
    expect(transport.pulls.length).toBe(pulls);
    engine.stop();
  });

  test("a server's pair cursors (PostgreSQL's) are followed in the log's order, not as text", async () => {
    const { engine, transport } = await connectedEngine();
    const pulls = transport.pulls.length;
    // As text '9:40' would come after '10:2'; in the log the transaction id comes first.
    for (const [cursor, version] of [
      ['9:40', 11],
      ['10:2', 12],
      ['10:11', 13],
    ] as const)
      await engine.receiveLive(cursor, userChange(3, version));
    expect(await readCursor(db)).toBe('10:11');
    // One that arrives late never moves the cursor back.
    await engine.receiveLive('9:41', userChange(4, 14));
    expect(await readCursor(db)).toBe('10:11');
    await engine.settled();
    expect(transport.pulls.length).toBe(pulls);
    engine.stop();
  });

  test('live changes that come while one applies are applied together, in one transaction', async () => {
    const { engine } = await connectedEngine();
    const transactions = vi.spyOn(db, 'transaction');
    // Fifty at once, as a burst reaches the socket: the first starts alone, the other 49 wait and go together.
    await Promise.all(Array.from({ length: 50 }, (_, i) => engine.receiveLive(String(11 + i), userChange(11 + i))));
    expect(transactions).toHaveBeenCalledTimes(2);
    expect(await db.users.count()).toBe(52);
    expect(await readCursor(db)).toBe('60');
    engine.stop();
  });

  test('live changes this device cannot apply are pulled instead, and move the cursor no further', async () => {
    const { engine, transport } = await connectedEngine();
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const pulls = transport.pulls.length;
    // An entity this build does not know: its table is missing, so the transaction fails.
    const unknown = { entity: 'poll', op: 'put', id: idOf(9), data: {} } as unknown as Change;
    await engine.receiveLive('11', unknown);
    await engine.settled();
    expect(transport.pulls.length).toBe(pulls + 1);
    // After that pull the stream is complete again: the next change moves the cursor.
    await engine.receiveLive('12', userChange(3, 12));
    expect(await readCursor(db)).toBe('12');
    engine.stop();
  });

  test('after the socket dropped, live changes are applied but the cursor waits for the pull of the reconnect', async () => {
    const { engine, transport } = await connectedEngine();
    engine.socketDisconnected();
    await engine.receiveLive('20', userChange(3, 20));
    expect(await db.users.get(idOf(3))).toMatchObject({ version: 20 });
    expect(await readCursor(db)).toBe('10');
    const pulls = transport.pulls.length;
    engine.socketConnected();
    await engine.settled();
    expect(transport.pulls.length).toBe(pulls + 1);
    await engine.receiveLive('21', userChange(4, 21));
    expect(await readCursor(db)).toBe('21');
    engine.stop();
  });

  test('a live change to a row with a pending write holds the cursor; the push and its pull follow', async () => {
    const { engine, transport } = await connectedEngine();
    await mutate(db, ctx, 'user.updateDetails', { name: 'Mine', email: 'alice@demo.local' });
    const pulls = transport.pulls.length;
    await engine.receiveLive('11', { entity: 'user', op: 'put', id: userId, data: aUser(userId, { version: 11 }) });
    expect(await readCursor(db)).toBe('10');
    await engine.settled();
    // The push ends with its pull (and the scripted server's gap asks for one push and pull more).
    expect(transport.pulls.length).toBeGreaterThan(pulls);
    engine.stop();
  });
});

describe('the cost of a local write', () => {
  test('a pull re-applies only the queued writes of the rows it touched, whatever the size of the outbox', async () => {
    db = freshDb(userId);
    await applyPull(db, ctx, {
      changes: [userChange(1), ...Array.from({ length: 40 }, (_, i) => userChange(100 + i))],
      cursor: '5',
      more: false,
      reset: true,
      window: testWindow,
      bootstrap: null,
      lastMutationId: 0,
    });
    for (let i = 0; i < 40; i += 1) {
      await mutate(db, ctx, 'dm.start', { recipientId: idOf(100 + i) });
    }
    await mutate(db, ctx, 'user.updateDetails', { name: 'Renamed', email: 'alice@demo.local' });
    const details = vi.spyOn(mutators['user.updateDetails'], 'apply');
    const starts = vi.spyOn(mutators['dm.start'], 'apply');

    await applyPull(db, ctx, {
      changes: [{ entity: 'user', op: 'put', id: userId, data: aUser(userId, { department: 'Research', version: 6 }) }],
      cursor: '6',
      more: false,
      reset: false,
      window: testWindow,
      bootstrap: null,
      lastMutationId: 0,
    });
    expect(details).toHaveBeenCalledTimes(1);
    expect(starts).not.toHaveBeenCalled();
    expect(await db.users.get(userId)).toMatchObject({ name: 'Renamed', department: 'Research', pending: 1 });
    expect(await db.conversations.count()).toBe(40);
  });

  test('a write of a row already queued rolls back to the first write’s server row, found by index', async () => {
    db = freshDb(userId);
    await applyPull(db, ctx, {
      changes: [userChange(1)],
      cursor: '1',
      more: false,
      reset: true,
      window: testWindow,
      bootstrap: null,
      lastMutationId: 0,
    });
    await mutate(db, ctx, 'user.updateDetails', { name: 'First', email: 'alice@demo.local' });
    await mutate(db, ctx, 'user.updateDetails', { name: 'Second', email: 'alice@demo.local' });
    const entries = await db.outbox.orderBy('id').toArray();
    expect(entries.map((entry) => entry.rowKeys)).toEqual([[`users:${userId}`], [`users:${userId}`]]);
    expect(entries.map((entry) => entry.undo[0]?.row)).toEqual([
      expect.objectContaining({ name: 'Person 1' }),
      expect.objectContaining({ name: 'Person 1' }),
    ]);
  });
});
