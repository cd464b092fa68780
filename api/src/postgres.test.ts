import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { compareCursors, uuidv7, type PullResponse } from '@office/sync-protocol';
import pg from 'pg';
import { createTestDatabase, queryPostgres, startTestPostgres, type TestPostgres } from '../test/postgres';
import { runHourlyDueChecks } from './jobs/due-checks';
import { apiClient, mutation, signInDemoPeople, type DemoName, type Session } from '../test/api-client';
import { changeLogFloor, compactUpTo, firstTeamChatCreateAfter } from './db/change-feed';
import { leadership } from './db/leadership';
import { poolOf } from './db/postgres';
import { transaction } from './db/transaction';
import { sendChatCommand } from './domain/chat/commands';
import { newPendingEffects, runInTransaction } from './domain/commands';
import {
  connectSocket,
  nextEvent,
  nextEventWhere,
  recordEvents,
  startTestServer,
  waitUntil,
  type TestServer,
} from '../test/support';

// The tables are chosen when they are first imported (db/dialect.ts): this file speaks PostgreSQL throughout.
vi.hoisted(() => {
  process.env.DATABASE_URL = 'postgres://chosen-per-server';
});

let postgres: TestPostgres;
let server: TestServer;
let databaseUrl: string;
let people: Record<DemoName, Session>;
const { call, pull, push } = apiClient(() => server.app);

/** A query straight to the server's database, outside the app. */
const query = <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
  queryPostgres<T>(databaseUrl, text, values);

beforeAll(async () => {
  postgres = await startTestPostgres();
  databaseUrl = await createTestDatabase(postgres.url);
  server = await startTestServer({ config: { databaseUrl } });
  people = await signInDemoPeople(server.app);
}, 60_000);

afterAll(async () => {
  await server?.close();
  await postgres?.stop();
});

describe('the API on PostgreSQL', () => {
  test('the demo workspace is seeded into PostgreSQL, and sign-in reads it', async () => {
    const [{ n }] = (await query<{ n: string }>('SELECT count(*) AS n FROM users')) as [{ n: string }];
    expect(Number(n)).toBe(5);
    expect(people.alice.user.email).toBe('alice@demo.local');
    const me = await call<{ user: { email: string } }>(people.bob, 'GET', '/api/auth/me');
    expect(me).toMatchObject({ status: 200, body: { user: { email: 'bob@demo.local' } } });
  });

  test('a chat message posted over HTTP is one row in PostgreSQL, reaches a socket and comes back in a pull', async () => {
    const clientId = uuidv7();
    const before = await pull(people.bob, clientId, '0');
    const socket = await connectSocket(server.url, people.bob.token);
    try {
      const heard = nextEvent(socket, 'sync.change');
      const sent = await call<{ message: { id: string } }>(people.alice, 'POST', '/api/messages', {
        text: 'Hello from PostgreSQL',
      });
      expect(sent.status).toBe(201);
      const id = sent.body.message.id;
      expect(await heard).toMatchObject({ change: { entity: 'chatMessage', op: 'put', id } });
      expect(await query('SELECT text FROM chat_messages WHERE id = $1', [id])).toEqual([
        { text: 'Hello from PostgreSQL' },
      ]);
      // Its change is its creation: the push queue finds new messages by it.
      expect(await query('SELECT op FROM change_log WHERE entity_id = $1', [id])).toEqual([{ op: 'create' }]);
      const after = await pull(people.bob, clientId, before.cursor);
      expect(after.changes).toContainEqual(expect.objectContaining({ entity: 'chatMessage', id }));
      expect(compareCursors(after.cursor, before.cursor)).toBeGreaterThan(0);
    } finally {
      socket.close();
    }
  });

  test('a pushed batch applies once: its retry answers duplicates and writes nothing more', async () => {
    const clientId = uuidv7();
    await pull(people.carol, clientId, '0');
    const ids = [uuidv7(), uuidv7(), uuidv7()];
    const batch = ids.map((id, index) => mutation(index + 1, 'chat.send', { id, text: `Queued ${index + 1}` }));
    const first = await push(people.carol, clientId, batch);
    expect(first.outcomes.map((outcome) => outcome.status)).toEqual(['applied', 'applied', 'applied']);
    const again = await push(people.carol, clientId, batch);
    expect(again.outcomes.map((outcome) => outcome.status)).toEqual(['duplicate', 'duplicate', 'duplicate']);
    const rows = await query<{ id: string }>('SELECT id FROM chat_messages WHERE id = ANY($1) ORDER BY id', [ids]);
    expect(rows.map((row) => row.id)).toEqual([...ids].sort());
    const [progress] = await query<{ last: number }>(
      'SELECT last_mutation_id::int AS last FROM sync_clients WHERE client_id = $1',
      [clientId],
    );
    expect(progress?.last).toBe(3);
  });

  test('a refusal inside a batch rolls back only its own savepoint', async () => {
    const clientId = uuidv7();
    await pull(people.alice, clientId, '0');
    const kept = uuidv7();
    const answer = await push(people.alice, clientId, [
      mutation(1, 'chat.edit', { id: uuidv7(), text: 'No such message' }),
      mutation(2, 'chat.send', { id: kept, text: 'After the refusal' }),
    ]);
    expect(answer.outcomes).toEqual([
      expect.objectContaining({ id: 1, status: 'rejected', code: 'message_not_found' }),
      { id: 2, status: 'applied' },
    ]);
    expect(await query('SELECT text FROM chat_messages WHERE id = $1', [kept])).toEqual([
      { text: 'After the refusal' },
    ]);
  });

  test("an acknowledged write is on disk: the app's connections commit synchronously, whatever the server's default", async () => {
    // The test server runs with synchronous_commit off (test/postgres.ts); the app turns it on for its own connections.
    expect(await query('SHOW synchronous_commit')).toEqual([{ synchronous_commit: 'off' }]);
    const pool = server.app.db.$client as unknown as pg.Pool;
    expect((await pool.query('SHOW synchronous_commit')).rows).toEqual([{ synchronous_commit: 'on' }]);
  });

  test('tasks, comments and notifications work as on SQLite', async () => {
    const created = await call<{ task: { id: string } }>(people.manager, 'POST', '/api/tasks', {
      title: 'Ship the PostgreSQL build',
      description: 'Run every node on one database',
      assignedTo: people.alice.user.id,
      priority: 'high',
      dueDate: new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10),
    });
    expect(created.status).toBe(201);
    const taskId = created.body.task.id;
    const comment = await call(people.alice, 'POST', `/api/tasks/${taskId}/comments`, { text: 'On it' });
    expect(comment.status).toBe(201);
    const notices = await call<{ notifications: { type: string; relatedTask: string | null }[]; unreadCount: number }>(
      people.alice,
      'GET',
      '/api/notifications',
    );
    expect(notices.status).toBe(200);
    expect(notices.body.notifications).toContainEqual(
      expect.objectContaining({ type: 'task_assigned', relatedTask: taskId }),
    );
    expect(notices.body.unreadCount).toBeGreaterThan(0);
    const readAll = await call(people.alice, 'PATCH', '/api/notifications/read-all');
    expect(readAll.status).toBe(200);
    const after = await call<{ unreadCount: number }>(people.alice, 'GET', '/api/notifications');
    expect(after.body.unreadCount).toBe(0);
  });
});

describe('change-log order on PostgreSQL, with two nodes on one database', () => {
  test('a change committed while an older writer is still open waits for it: pull and live feed give both, in order', async () => {
    const clientId = uuidv7();
    const { cursor: start } = await pull(people.bob, clientId, '0');
    const socket = await connectSocket(server.url, people.bob.token);
    try {
      const heard = recordEvents(socket, 'sync.change');
      const [first, second] = [uuidv7(), uuidv7()];
      let wrote!: () => void;
      const written = new Promise<void>((resolve) => (wrote = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const alice = { id: people.alice.user.id, role: people.alice.user.role };
      // T1: a real chat write that stays open after its statements ran.
      const t1 = transaction(server.app.db, async (tx) => {
        await runInTransaction(tx, alice, sendChatCommand, { id: first, text: 'T1, begun first' }, newPendingEffects());
        wrote();
        await released;
      });
      await written;
      // T2: a REST write, begun after T1 and committed before it.
      const sent = await call(people.carol, 'POST', '/api/messages', { id: second, text: 'T2, committed first' });
      expect(sent.status).toBe(201);
      expect(await query('SELECT op FROM change_log WHERE entity_id = $1', [second])).toEqual([{ op: 'create' }]);
      const chatIds = (changes: { entity: string; id: string }[]) =>
        changes.filter((change) => change.entity === 'chatMessage').map((change) => change.id);

      // Straight to the route: the test client's pull would wait for T1 (everyCommitReadable).
      const answer = await call<PullResponse>(people.bob, 'GET', `/api/sync/pull?clientId=${clientId}&cursor=${start}`);
      expect(answer.status).toBe(200);
      const during = answer.body;
      expect(chatIds(during.changes)).toEqual([]);
      // Longer than the live feed's poll: it has read the log since T2's commit woke it, and held T2 back too.
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(chatIds(heard.map(({ change }) => change))).toEqual([]);

      release();
      await t1;
      const after = await pull(people.bob, clientId, during.cursor);
      expect(chatIds(after.changes)).toEqual([first, second]);
      await waitUntil(() => chatIds(heard.map(({ change }) => change)).length === 2, 5_000);
      expect(chatIds(heard.map(({ change }) => change))).toEqual([first, second]);
      expect(compareCursors(after.cursor, during.cursor)).toBeGreaterThan(0);
    } finally {
      socket.close();
    }
  }, 30_000);

  test("a transaction left open in another database of the same PostgreSQL holds back nothing of this one's change feed", async () => {
    // pg_snapshot_xmin is the whole server's: a horizon read from it would wait for this transaction.
    const other = new pg.Client({ connectionString: await createTestDatabase(postgres.url) });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT pg_current_xact_id()');
      const clientId = uuidv7();
      const { cursor: start } = await pull(people.bob, clientId, '0');
      const id = uuidv7();
      expect((await call(people.carol, 'POST', '/api/messages', { id, text: 'Past the other database' })).status).toBe(
        201,
      );
      const answer = await call<PullResponse>(people.bob, 'GET', `/api/sync/pull?clientId=${clientId}&cursor=${start}`);
      expect(answer.body.changes.map((change) => change.id)).toContain(id);
    } finally {
      await other.query('ROLLBACK');
      await other.end();
    }
  });

  test("a transaction left open in another database holds back no acknowledgement: a pull acknowledges the client's writes its changes show", async () => {
    const other = new pg.Client({ connectionString: await createTestDatabase(postgres.url) });
    await other.connect();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let older: Promise<void> | undefined;
    try {
      await other.query('BEGIN');
      await other.query('SELECT pg_current_xact_id()');
      const clientId = uuidv7();
      const { cursor } = await pull(people.bob, clientId, '0');
      const [first, second] = [uuidv7(), uuidv7()];
      await push(people.bob, clientId, [mutation(1, 'chat.send', { id: first, text: 'Shown by the pull' })]);
      // A writer of this database, begun after the first push and still open: the pull cannot show the second yet.
      let wrote!: () => void;
      const written = new Promise<void>((resolve) => (wrote = resolve));
      const alice = { id: people.alice.user.id, role: people.alice.user.role };
      older = transaction(server.app.db, async (tx) => {
        await runInTransaction(tx, alice, sendChatCommand, { id: uuidv7(), text: 'Still open' }, newPendingEffects());
        wrote();
        await released;
      });
      await written;
      await push(people.bob, clientId, [mutation(2, 'chat.send', { id: second, text: 'Behind the open writer' })]);

      // Straight to the route: the test client's pull would wait for the open writer (everyCommitReadable).
      const answer = await call<PullResponse>(
        people.bob,
        'GET',
        `/api/sync/pull?clientId=${clientId}&cursor=${cursor}`,
      );
      const ids = answer.body.changes.map((change) => change.id);
      expect(ids).toContain(first);
      expect(ids).not.toContain(second);
      expect(answer.body.lastMutationId).toBe(1);
    } finally {
      release();
      await older;
      await other.query('ROLLBACK');
      await other.end();
    }
  });

  test('a pull that brings nothing hands its cursor back, though transactions of this database and of another moved the horizon', async () => {
    const clientId = uuidv7();
    const { cursor: start } = await pull(people.bob, clientId, '0');
    const { cursor } = await pull(people.bob, clientId, start);
    // Transactions that change nothing a device syncs: one of another database of the server, one of this database.
    const otherUrl = await createTestDatabase(postgres.url);
    for (const url of [otherUrl, databaseUrl]) await queryPostgres(url, 'SELECT pg_current_xact_id()');
    expect(await pull(people.bob, clientId, cursor)).toMatchObject({ changes: [], cursor });
  });

  test('places compare as numbers: the changes of transaction 9 come before those of 10, in a pull, the team chat and a compaction', async () => {
    // Transaction ids pass from one number of digits to the next (999 to 1 000, ...): ordered as text, a page would put
    // 10 before 9 and move its cursor past 9's change for ever. Written with ids far below the horizon, as
    // ordinary changes of long ago.
    const [ninth, tenth] = [uuidv7(), uuidv7()];
    const [{ seq: ninthSeq }] = (await query<{ seq: string }>(
      `INSERT INTO change_log (xid, entity, entity_id, op, principal)
       VALUES ('9'::xid8, 'chatMessage', $1, 'create', 'team') RETURNING seq`,
      [ninth],
    )) as [{ seq: string }];
    const [{ seq: tenthSeq }] = (await query<{ seq: string }>(
      `INSERT INTO change_log (xid, entity, entity_id, op, principal)
       VALUES ('10'::xid8, 'chatMessage', $1, 'create', 'team') RETURNING seq`,
      [tenth],
    )) as [{ seq: string }];
    const clientId = uuidv7();
    const first = await call<PullResponse>(people.bob, 'GET', `/api/sync/pull?clientId=${clientId}&cursor=8:0&limit=1`);
    expect(first.body).toMatchObject({ changes: [{ id: ninth }], cursor: `9:${ninthSeq}`, more: true });
    const second = await call<PullResponse>(
      people.bob,
      'GET',
      `/api/sync/pull?clientId=${clientId}&cursor=${first.body.cursor}&limit=1`,
    );
    expect(second.body).toMatchObject({ changes: [{ id: tenth }], cursor: `10:${tenthSeq}` });

    expect(await firstTeamChatCreateAfter(server.app.db, { xid: 8n, seq: 0 })).toEqual({
      xid: 9n,
      seq: Number(ninthSeq),
    });
    await transaction(server.app.db, (tx) => compactUpTo(tx, { xid: 10n, seq: Number(tenthSeq) }));
    expect(await changeLogFloor(server.app.db)).toEqual({ xid: 10n, seq: Number(tenthSeq) });
    expect(await query('SELECT seq FROM change_log WHERE entity_id = ANY($1)', [[ninth, tenth]])).toEqual([]);
  });

  test('8 writers on two nodes and readers pulling in between: no cursor ever skips a change', async () => {
    const second = await startTestServer({ config: { databaseUrl }, seed: false });
    try {
      const nodes = [server, second];
      const writers = 8;
      const perWriter = 15;
      const readers = [uuidv7(), uuidv7(), uuidv7()];
      const cursors = await Promise.all(
        readers.map(async (clientId) => (await pull(people.bob, clientId, '0')).cursor),
      );
      const seen = readers.map(() => new Set<string>());
      let writing = true;
      const write = async (writer: number) => {
        const node = nodes[writer % 2] ?? server;
        const author =
          ([people.alice, people.carol, people.manager, people.admin] as const)[writer % 4] ?? people.alice;
        const ids: string[] = [];
        for (let i = 0; i < perWriter; i++) {
          const id = uuidv7();
          const res = await node.app.inject({
            method: 'POST',
            url: '/api/messages',
            headers: { authorization: `Bearer ${author.token}` },
            payload: { id, text: `Writer ${writer} message ${i}` },
          });
          expect(res.statusCode, res.body).toBe(201);
          ids.push(id);
        }
        return ids;
      };
      // Each reader pulls incrementally from alternating nodes while the writers run, then once more after.
      const read = async (reader: number) => {
        const clientId = readers[reader] ?? '';
        let pulls = 0;
        const once = async () => {
          const node = nodes[pulls++ % 2] ?? server;
          const answer = await apiClient(() => node.app).pull(people.bob, clientId, cursors[reader] ?? '0');
          expect(answer.reset).toBe(false);
          for (const change of answer.changes) if (change.entity === 'chatMessage') seen[reader]?.add(change.id);
          cursors[reader] = answer.cursor;
        };
        while (writing) await once();
        await once();
      };
      const reading = readers.map((_, reader) => read(reader));
      const written = (await Promise.all(Array.from({ length: writers }, (_, writer) => write(writer)))).flat();
      writing = false;
      await Promise.all(reading);
      expect(written).toHaveLength(writers * perWriter);
      for (const ids of seen) expect(written.filter((id) => !ids.has(id))).toEqual([]);
    } finally {
      await second.close();
    }
  }, 60_000);
});

describe('realtime across nodes', () => {
  test('a REST write on node A reaches a socket on node B, and a pull on node B', async () => {
    const nodeB = await startTestServer({ config: { databaseUrl }, seed: false });
    try {
      // The nodes find each other through the adapter's heartbeats.
      await waitUntil(async () => (await nodeB.app.realtime.io.of('/').adapter.serverCount()) === 2, 10_000);
      const clientId = uuidv7();
      const onB = apiClient(() => nodeB.app);
      const { cursor } = await onB.pull(people.bob, clientId, '0');
      const socket = await connectSocket(nodeB.url, people.bob.token);
      try {
        const heard = nextEvent(socket, 'sync.change');
        const sent = await call<{ message: { id: string } }>(people.alice, 'POST', '/api/messages', {
          text: 'Across the nodes',
        });
        expect(sent.status).toBe(201);
        expect(await heard).toMatchObject({ change: { entity: 'chatMessage', id: sent.body.message.id } });
        const pulled = await onB.pull(people.bob, clientId, cursor);
        expect(pulled.changes).toContainEqual(expect.objectContaining({ id: sent.body.message.id }));
      } finally {
        socket.close();
      }
    } finally {
      await nodeB.close();
    }
  }, 30_000);

  test('a pushed batch reaches a socket on node B whole and in order, read from the log by B itself (no change crosses between the nodes)', async () => {
    const nodeB = await startTestServer({ config: { databaseUrl }, seed: false });
    const listener = new pg.Client({ connectionString: databaseUrl });
    try {
      await waitUntil(async () => (await nodeB.app.realtime.io.of('/').adapter.serverCount()) === 2, 10_000);
      const socket = await connectSocket(nodeB.url, people.bob.token);
      try {
        await nextEvent(socket, 'presence.snapshot');
        // What the nodes tell each other about these changes: the adapter's NOTIFYs that carry them (a large one
        // carries only the id of its stored payload), not its heartbeats or presence. Each node reads the changes
        // from the log below the horizon (change-tailer.ts): none travels between the nodes.
        const relayed: string[] = [];
        await listener.connect();
        listener.on('notification', ({ payload = '' }) => {
          if (payload.includes('sync.change') || payload.includes('attachmentId')) relayed.push(payload);
        });
        await listener.query('LISTEN "socket.io#/"');
        const heard = recordEvents(socket, 'sync.change');
        const clientId = uuidv7();
        await pull(people.carol, clientId, '0');
        const ids = Array.from({ length: 30 }, () => uuidv7());
        const answer = await push(
          people.carol,
          clientId,
          ids.map((id, index) =>
            mutation(index + 1, 'chat.send', { id, text: `Relayed in one message, ${index + 1}` }),
          ),
        );
        expect(answer.outcomes.every((outcome) => outcome.status === 'applied')).toBe(true);
        await waitUntil(() => heard.length >= ids.length, 10_000);
        expect(heard.map(({ change }) => change.id)).toEqual(ids);
        expect(relayed).toEqual([]);
      } finally {
        socket.close();
      }
    } finally {
      await listener.end();
      await nodeB.close();
    }
  }, 30_000);
});

describe('state the nodes share', () => {
  test("one person's request allowance is counted across both nodes", async () => {
    const url = await createTestDatabase(postgres.url);
    const limited = { databaseUrl: url, rateLimitPerUser: 6 };
    const nodeA = await startTestServer({ config: limited });
    const nodeB = await startTestServer({ config: limited, seed: false });
    try {
      const alice = (await signInDemoPeople(nodeA.app)).alice;
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        const node = i % 2 === 0 ? nodeA : nodeB;
        const res = await node.app.inject({
          method: 'GET',
          url: '/api/auth/me',
          headers: { authorization: `Bearer ${alice.token}` },
        });
        statuses.push(res.statusCode);
      }
      // Six requests in the minute, three on each node: the seventh is refused on whichever node it reaches.
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
    } finally {
      await nodeB.close();
      await nodeA.close();
    }
  }, 30_000);

  test('the hourly overdue job runs once in an hour with two nodes', async () => {
    const nodeB = await startTestServer({ config: { databaseUrl }, seed: false });
    try {
      const at = new Date('2031-05-06T14:20:00Z');
      const runs = await Promise.all(
        [server, nodeB, server, nodeB].map((node) => runHourlyDueChecks(node.app.db, node.app.flush, at)),
      );
      expect(runs.filter((run) => run !== null)).toHaveLength(1);
    } finally {
      await nodeB.close();
    }
  }, 30_000);

  test('a person connected to two nodes stays online when one connection closes, and goes offline with the last', async () => {
    const nodeB = await startTestServer({ config: { databaseUrl }, seed: false });
    try {
      await waitUntil(async () => (await nodeB.app.realtime.io.of('/').adapter.serverCount()) === 2, 10_000);
      const carolId = people.carol.user.id;
      const watcher = await connectSocket(server.url, people.bob.token);
      const offline = recordEvents(watcher, 'user-offline');
      const onA = await connectSocket(server.url, people.carol.token);
      const onB = await connectSocket(nodeB.url, people.carol.token);
      await waitUntil(() => nodeB.app.realtime.presence.isOnline(carolId));
      onA.close();
      await waitUntil(() => !server.app.realtime.presence.isOnline(carolId));
      // A cluster-wide round trip after the disconnect's own look at the other nodes.
      await server.app.realtime.io.fetchSockets();
      const status = async () =>
        (await query<{ status: string }>('SELECT status FROM users WHERE id = $1', [carolId]))[0]?.status;
      expect(await status()).toBe('online');
      const gone = nextEventWhere(watcher, 'user-offline', (event) => event.userId === carolId);
      onB.close();
      await gone;
      expect(await status()).toBe('offline');
      expect(offline.filter((event) => event.userId === carolId)).toHaveLength(1);
      watcher.close();
    } finally {
      await nodeB.close();
    }
  }, 30_000);

  test('a node goes on when PostgreSQL ends its idle connections (a restart, a failover)', async () => {
    const pool = poolOf(server.app.db);
    if (!pool) throw new Error('not on PostgreSQL');
    const removed = new Set<number>();
    const onRemove = (client: pg.PoolClient) => removed.add((client as unknown as { processID: number }).processID);
    pool.on('remove', onRemove);
    try {
      await call(people.alice, 'GET', '/api/auth/me');
      // The pool's idle connections: not the Socket.IO adapter's LISTEN, nor a connection holding a lock.
      const ended = await query<{ pid: number }>(
        `SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'idle'
           AND query NOT ILIKE 'LISTEN%' AND pid NOT IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory')`,
      );
      expect(ended.length).toBeGreaterThan(0);
      await waitUntil(() => ended.every(({ pid }) => removed.has(pid)), 10_000);

      const me = await call(people.alice, 'GET', '/api/auth/me');
      expect(me.status).toBe(200);
    } finally {
      pool.off('remove', onRemove);
    }
  }, 30_000);

  test('one node leads the push queue; when it resigns another takes the lead', async () => {
    const nodeB = await startTestServer({ config: { databaseUrl }, seed: false });
    const first = leadership(server.app.db, 0x7e57);
    const second = leadership(nodeB.app.db, 0x7e57);
    try {
      const [a, b] = await Promise.all([first.leads(), second.leads()]);
      expect([a, b].filter(Boolean)).toHaveLength(1);
      const [leader, other] = a ? [first, second] : [second, first];
      expect(await leader.leads()).toBe(true);
      expect(await other.leads()).toBe(false);
      await leader.resign();
      expect(await other.leads()).toBe(true);
      expect(await leader.leads()).toBe(false);
    } finally {
      await first.resign();
      await second.resign();
      await nodeB.close();
    }
  }, 30_000);
});
