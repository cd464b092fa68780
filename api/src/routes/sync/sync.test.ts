import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { and, asc, eq, gt } from 'drizzle-orm';
import {
  compareCursors,
  limits,
  pullResponseSchema,
  pushResponseSchema,
  userSchema,
  uuidv7,
  type Change,
  type Mutation,
  type PullResponse,
  type PushResponse,
  type User,
} from '@office/sync-protocol';
import type { Db } from '../../db/client';
import { transaction } from '../../db/transaction';
import { changeAudience, changeLog, syncClients, syncMutations, tasks, users } from '../../db/schema';
import { dialect } from '../../db/dialect';
import { comparePositions, formatPosition, readablePosition, type LogPosition } from '../../db/change-feed';
import { newestSeq, recordChange } from '../../domain/change-log';
import { changeLogFloor, compactChangeLog } from '../../domain/sync/pull';
import { updateDetailsCommand } from '../../domain/users/commands';
import {
  bearer,
  connectSocket,
  cursorNow,
  cursorOfChange,
  nextEvent,
  positionOfChange,
  recordEvents,
  signIn,
  startTestServer,
  type TestServer,
  type TestSocket,
  waitUntil,
} from '../../../test/support';

const servers: TestServer[] = [];
const sockets: TestSocket[] = [];
const dirs: string[] = [];

afterEach(async () => {
  vi.restoreAllMocks();
  for (const socket of sockets.splice(0)) socket.close();
  for (const server of servers.splice(0)) await server.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function start(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const server = await startTestServer(options);
  servers.push(server);
  return server;
}

/** Signs the demo users in on one server. */
async function people(server: TestServer) {
  const [alice, bob, carol] = await Promise.all(
    ['alice@demo.local', 'bob@demo.local', 'carol@demo.local'].map((email) => signIn(server.app, email)),
  );
  if (!alice || !bob || !carol) throw new Error('demo users missing');
  return { alice, bob, carol };
}

type Session = { token: string; user: User };

const details = (id: number, name: string, email: string, at = new Date().toISOString()): Mutation => ({
  id,
  name: 'user.updateDetails',
  args: { name, email },
  at,
});

async function push(server: TestServer, session: Session | null, payload: unknown) {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/sync/push',
    headers: session ? bearer(session.token) : {},
    payload: payload as Record<string, unknown>,
  });
  return { status: res.statusCode, body: res.json<unknown>() };
}

/** A push that must succeed; its answer checked against the wire schema. */
async function pushOk(
  server: TestServer,
  session: Session,
  clientId: string,
  mutations: Mutation[],
): Promise<PushResponse> {
  const { status, body } = await push(server, session, { clientId, mutations });
  expect(status, JSON.stringify(body)).toBe(200);
  return pushResponseSchema.parse(body);
}

async function pull(server: TestServer, session: Session | null, query: Record<string, string | number>) {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  const res = await server.app.inject({
    method: 'GET',
    url: `/api/sync/pull?${search.toString()}`,
    headers: session ? bearer(session.token) : {},
  });
  return { status: res.statusCode, body: res.json<unknown>() };
}

/** One page of a pull, as sent. */
async function pullPage(server: TestServer, session: Session, query: Record<string, string | number>) {
  const { status, body } = await pull(server, session, query);
  expect(status, JSON.stringify(body)).toBe(200);
  return pullResponseSchema.parse(body);
}

async function pullOk(
  server: TestServer,
  session: Session,
  clientId: string,
  cursor: string,
  limit?: number,
): Promise<PullResponse> {
  const { status, body } = await pull(server, session, { clientId, cursor, ...(limit ? { limit } : {}) });
  expect(status, JSON.stringify(body)).toBe(200);
  // Parse strictly enough to catch a wrong shape, then return what was actually sent (parse would strip extra keys).
  pullResponseSchema.parse(body);
  return body as PullResponse;
}

const userRow = async (db: Db, id: string) => {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  if (!row) throw new Error(`no user ${id}`);
  return row;
};
const changesAfter = (db: Db, seq: number) =>
  db.select().from(changeLog).where(gt(changeLog.seq, seq)).orderBy(asc(changeLog.seq));
const mutationRows = (db: Db, clientId: string) =>
  db.select().from(syncMutations).where(eq(syncMutations.clientId, clientId)).orderBy(asc(syncMutations.mutationId));
const clientRow = async (db: Db, clientId: string) =>
  (await db.select().from(syncClients).where(eq(syncClients.clientId, clientId)))[0];

describe('POST /api/sync/push', () => {
  test('the same push sent twice has one effect and answers the same outcomes as duplicates', async () => {
    const server = await start();
    const { alice } = await people(server);
    const db = server.app.db;
    const clientId = uuidv7();
    const before = await newestSeq(db);
    const { version: versionBefore } = await userRow(db, alice.user.id);
    const body = { clientId, mutations: [details(1, 'Alice Renamed', 'alice@demo.local')] };

    const first = await pushOk(server, alice, body.clientId, body.mutations);
    expect(first).toEqual({ outcomes: [{ id: 1, status: 'applied' }], lastMutationId: 1 });
    const afterFirst = await userRow(db, alice.user.id);
    expect(afterFirst).toMatchObject({ name: 'Alice Renamed', email: 'alice@demo.local' });
    expect(afterFirst.version).toBeGreaterThan(versionBefore);

    const second = await pushOk(server, alice, body.clientId, body.mutations);
    expect(second).toEqual({
      outcomes: [{ id: 1, status: 'duplicate', original: 'applied' }],
      lastMutationId: 1,
    });

    expect(await userRow(db, alice.user.id)).toEqual(afterFirst);
    expect(await changesAfter(db, before)).toEqual([
      expect.objectContaining({ seq: before + 1, entity: 'user', entityId: alice.user.id, op: 'put' }),
    ]);
    // Applied: the client's last id says it, with no row of bookkeeping.
    expect(await mutationRows(db, clientId)).toEqual([]);
    expect(await clientRow(db, clientId)).toMatchObject({ userId: alice.user.id, lastMutationId: 1 });
  });

  test('a batch is applied in order: the last write wins and the change log follows the batch', async () => {
    const server = await start();
    const { alice } = await people(server);
    const db = server.app.db;
    const clientId = uuidv7();
    const before = await newestSeq(db);
    const { version: versionBefore } = await userRow(db, alice.user.id);

    const answer = await pushOk(server, alice, clientId, [
      details(1, 'A', 'alice@demo.local'),
      details(2, 'B', 'alice@demo.local'),
      details(3, 'C', 'alice@demo.local'),
    ]);

    expect(answer).toEqual({
      outcomes: [1, 2, 3].map((id) => ({ id, status: 'applied' })),
      lastMutationId: 3,
    });
    // The row's version moved on with each change: on SQLite it is the last change's number, on PostgreSQL a count.
    expect(await userRow(db, alice.user.id)).toMatchObject({
      name: 'C',
      version: dialect === 'postgres' ? versionBefore + 3 : before + 3,
    });
    expect((await changesAfter(db, before)).map((row) => [row.seq, row.entityId, row.op])).toEqual([
      [before + 1, alice.user.id, 'put'],
      [before + 2, alice.user.id, 'put'],
      [before + 3, alice.user.id, 'put'],
    ]);
    expect((await clientRow(db, clientId))?.lastMutationId).toBe(3);
  });

  test('one rejected mutation among good ones is recorded and does not block the queue', async () => {
    const server = await start();
    const { alice, bob } = await people(server);
    const db = server.app.db;
    const clientId = uuidv7();
    const before = await newestSeq(db);
    const bobBefore = await userRow(db, bob.user.id);
    const mutations = [
      details(1, 'Alice One', 'alice@demo.local'),
      details(2, 'Alice Two', 'bob@demo.local'),
      details(3, 'Alice Three', 'alice@demo.local'),
    ];
    const rejection = { code: 'email_taken', message: 'An account with this email already exists' } as const;

    const first = await pushOk(server, alice, clientId, mutations);
    expect(first).toEqual({
      outcomes: [
        { id: 1, status: 'applied' },
        { id: 2, status: 'rejected', ...rejection },
        { id: 3, status: 'applied' },
      ],
      lastMutationId: 3,
    });
    expect(await userRow(db, alice.user.id)).toMatchObject({ name: 'Alice Three', email: 'alice@demo.local' });
    expect(await userRow(db, bob.user.id)).toEqual(bobBefore);
    expect(await changesAfter(db, before)).toHaveLength(2);
    expect((await clientRow(db, clientId))?.lastMutationId).toBe(3);
    expect(
      (await mutationRows(db, clientId)).map((row) => [row.mutationId, row.status, row.code, row.message]),
    ).toEqual([[2, 'rejected', rejection.code, rejection.message]]);

    const replay = await pushOk(server, alice, clientId, mutations);
    expect(replay).toEqual({
      outcomes: [
        { id: 1, status: 'duplicate', original: 'applied' },
        { id: 2, status: 'duplicate', original: 'rejected', ...rejection },
        { id: 3, status: 'duplicate', original: 'applied' },
      ],
      lastMutationId: 3,
    });
    expect(await changesAfter(db, before)).toHaveLength(2);
    expect(await mutationRows(db, clientId)).toHaveLength(1);
  });

  test('a mutation with invalid arguments is rejected as invalid_input with the form message', async () => {
    const server = await start();
    const { alice } = await people(server);
    const db = server.app.db;
    const clientId = uuidv7();
    const before = await newestSeq(db);
    const aliceBefore = await userRow(db, alice.user.id);

    const answer = await pushOk(server, alice, clientId, [details(1, '   ', 'alice@demo.local')]);

    expect(answer).toEqual({
      outcomes: [{ id: 1, status: 'rejected', code: 'invalid_input', message: 'Name and email are required' }],
      lastMutationId: 1,
    });
    expect(await userRow(db, alice.user.id)).toEqual(aliceBefore);
    expect(await changesAfter(db, before)).toEqual([]);
    expect(await mutationRows(db, clientId)).toEqual([
      expect.objectContaining({
        mutationId: 1,
        status: 'rejected',
        code: 'invalid_input',
        message: 'Name and email are required',
      }),
    ]);
  });

  test('a gap in mutation ids stops the batch before the missing id', async () => {
    const server = await start();
    const { alice } = await people(server);
    const db = server.app.db;
    const clientId = uuidv7();
    const before = await newestSeq(db);

    const answer = await pushOk(server, alice, clientId, [
      details(1, 'Alice One', 'alice@demo.local'),
      details(3, 'Alice Three', 'alice@demo.local'),
    ]);

    expect(answer).toEqual({ outcomes: [{ id: 1, status: 'applied' }], lastMutationId: 1 });
    expect((await userRow(db, alice.user.id)).name).toBe('Alice One');
    expect(await changesAfter(db, before)).toHaveLength(1);
    expect((await clientRow(db, clientId))?.lastMutationId).toBe(1);

    // Once the missing mutation arrives, the rest follows.
    const resent = await pushOk(server, alice, clientId, [
      details(2, 'Alice Two', 'alice@demo.local'),
      details(3, 'Alice Three', 'alice@demo.local'),
    ]);
    expect(resent.outcomes).toEqual([
      { id: 2, status: 'applied' },
      { id: 3, status: 'applied' },
    ]);
    expect((await userRow(db, alice.user.id)).name).toBe('Alice Three');
  });

  test('a batch that starts past the next mutation id applies nothing', async () => {
    const server = await start();
    const { alice } = await people(server);
    const db = server.app.db;
    const clientId = uuidv7();
    const before = await newestSeq(db);

    const answer = await pushOk(server, alice, clientId, [details(2, 'Alice Two', 'alice@demo.local')]);

    expect(answer).toEqual({ outcomes: [], lastMutationId: 0 });
    expect((await userRow(db, alice.user.id)).name).toBe('Alice Johnson');
    expect(await changesAfter(db, before)).toEqual([]);
    expect(await mutationRows(db, clientId)).toEqual([]);
  });

  test("a client id used by alice cannot be pushed to by bob, and bob's pull with it does not reveal alice's progress", async () => {
    const server = await start();
    const { alice, bob } = await people(server);
    const db = server.app.db;
    const clientId = uuidv7();
    await pushOk(server, alice, clientId, [
      details(1, 'Alice One', 'alice@demo.local'),
      details(2, 'Alice Two', 'alice@demo.local'),
    ]);
    const before = await newestSeq(db);
    const bobBefore = await userRow(db, bob.user.id);

    const pushed = await push(server, bob, { clientId, mutations: [details(3, 'Bob Hijack', 'bob@demo.local')] });
    expect(pushed).toEqual({
      status: 403,
      body: { code: 'client_not_yours', message: 'This sync client belongs to another user.' },
    });
    expect(await userRow(db, bob.user.id)).toEqual(bobBefore);
    expect(await changesAfter(db, before)).toEqual([]);
    expect(await clientRow(db, clientId)).toMatchObject({ userId: alice.user.id, lastMutationId: 2 });

    // Pull does not claim clients; for someone else's client it answers as for a new one.
    const cursor = await cursorNow(db);
    const pulled = await pullOk(server, bob, clientId, cursor);
    expect(pulled.lastMutationId).toBe(0);
    expect((await clientRow(db, clientId))?.userId).toBe(alice.user.id);
    expect((await pullOk(server, alice, clientId, cursor)).lastMutationId).toBe(2);
  });

  test('a push body without a client id is refused with invalid_input and writes nothing', async () => {
    const server = await start();
    const { alice } = await people(server);
    const db = server.app.db;
    const before = await newestSeq(db);

    const missing = await push(server, alice, { mutations: [details(1, 'X', 'alice@demo.local')] });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'invalid_input', message: expect.any(String) as unknown });
    const notUuid = await push(server, alice, {
      clientId: 'not-a-uuid',
      mutations: [details(1, 'X', 'alice@demo.local')],
    });
    expect(notUuid.status).toBe(400);
    expect(notUuid.body).toMatchObject({ code: 'invalid_input', message: 'Must be a UUID' });

    expect(await db.select().from(syncClients)).toEqual([]);
    expect(await changesAfter(db, before)).toEqual([]);
  });

  test('a batch with non-contiguous ids is processed up to the gap', async () => {
    const server = await start();
    const { alice } = await people(server);
    const db = server.app.db;
    const clientId = uuidv7();

    const answer = await pushOk(server, alice, clientId, [
      details(1, 'One', 'alice@demo.local'),
      details(2, 'Two', 'alice@demo.local'),
      details(4, 'Four', 'alice@demo.local'),
      details(5, 'Five', 'alice@demo.local'),
    ]);

    expect(answer.outcomes.map((o) => [o.id, o.status])).toEqual([
      [1, 'applied'],
      [2, 'applied'],
    ]);
    expect(answer.lastMutationId).toBe(2);
    expect((await userRow(db, alice.user.id)).name).toBe('Two');
    expect((await clientRow(db, clientId))?.lastMutationId).toBe(2);
  });

  test('a batch of more than the maximum mutations is refused whole, the maximum is accepted', async () => {
    const server = await start();
    const { alice } = await people(server);
    const db = server.app.db;
    const before = await newestSeq(db);
    const batch = (n: number) =>
      Array.from({ length: n }, (_, i) => details(i + 1, `Alice ${i + 1}`, 'alice@demo.local'));

    const tooMany = await push(server, alice, { clientId: uuidv7(), mutations: batch(limits.pushBatchMax + 1) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({ code: 'invalid_input' });
    expect(await changesAfter(db, before)).toEqual([]);
    expect(await db.select().from(syncClients)).toEqual([]);

    const clientId = uuidv7();
    const most = await pushOk(server, alice, clientId, batch(limits.pushBatchMax));
    expect(most.lastMutationId).toBe(limits.pushBatchMax);
    expect(most.outcomes.every((o) => o.status === 'applied')).toBe(true);
    expect(await changesAfter(db, before)).toHaveLength(limits.pushBatchMax);
    expect((await userRow(db, alice.user.id)).name).toBe(`Alice ${limits.pushBatchMax}`);
  });

  test('an empty batch, an unknown mutation name or malformed JSON is refused with 400', async () => {
    const server = await start();
    const { alice } = await people(server);
    const db = server.app.db;
    const before = await newestSeq(db);

    const empty = await push(server, alice, { clientId: uuidv7(), mutations: [] });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ code: 'invalid_input' });

    const unknown = await push(server, alice, {
      clientId: uuidv7(),
      mutations: [{ id: 1, name: 'user.delete', args: {}, at: new Date().toISOString() }],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: 'invalid_input', message: expect.any(String) as unknown });
    expect((unknown.body as { details: { path: string }[] }).details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'mutations.0.name' })]),
    );

    const res = await server.app.inject({
      method: 'POST',
      url: '/api/sync/push',
      headers: { ...bearer(alice.token), 'content-type': 'application/json' },
      payload: '{"clientId":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: 'malformed_json', message: 'The request body is not valid JSON.' });

    expect(await db.select().from(syncClients)).toEqual([]);
    expect(await changesAfter(db, before)).toEqual([]);
  });

  test('a server fault in the middle of a batch answers 503 and rolls the whole batch back; the retry applies it all', async () => {
    const server = await start();
    const { alice } = await people(server);
    const db = server.app.db;
    const clientId = uuidv7();
    const before = await newestSeq(db);
    const batch = [
      details(1, 'One', 'alice@demo.local'),
      details(2, 'Two', 'alice@demo.local'),
      details(3, 'Three', 'alice@demo.local'),
    ];
    const realRun = updateDetailsCommand.run.bind(updateDetailsCommand);
    const run = vi
      .spyOn(updateDetailsCommand, 'run')
      .mockImplementationOnce(realRun)
      .mockImplementationOnce(() => {
        throw new Error('SQLITE_IOERR: disk I/O error');
      });

    const failed = await push(server, alice, { clientId, mutations: batch });
    run.mockRestore();

    expect(failed).toEqual({
      status: 503,
      body: { code: 'unavailable', message: 'The server is busy or restarting. Please try again shortly.' },
    });
    // One transaction per batch: the first mutation, which ran fine, is gone with the rest.
    expect((await userRow(db, alice.user.id)).name).toBe('Alice Johnson');
    expect(await changesAfter(db, before)).toEqual([]);
    expect((await clientRow(db, clientId))?.lastMutationId).toBe(0);
    expect(await mutationRows(db, clientId)).toEqual([]);

    const retry = await pushOk(server, alice, clientId, batch);
    expect(retry).toEqual({
      outcomes: [
        { id: 1, status: 'applied' },
        { id: 2, status: 'applied' },
        { id: 3, status: 'applied' },
      ],
      lastMutationId: 3,
    });
    expect(await changesAfter(db, before)).toHaveLength(3);
    expect((await userRow(db, alice.user.id)).name).toBe('Three');
  });

  test('a pull with a missing client id or an out-of-range cursor or limit is refused with invalid_input', async () => {
    const server = await start();
    const { bob } = await people(server);
    const clientId = uuidv7();

    for (const query of [
      { cursor: 0 },
      { clientId: 'not-a-uuid', cursor: 0 },
      { clientId, cursor: -1 },
      { clientId, cursor: 'soon' },
      { clientId, cursor: '1:2:3' },
      { clientId, cursor: '0', limit: 0 },
      { clientId, cursor: '0', limit: limits.pullPageMax + 1 },
    ]) {
      const answer = await pull(server, bob, query);
      expect(answer.status, JSON.stringify(query)).toBe(400);
      expect(answer.body, JSON.stringify(query)).toMatchObject({ code: 'invalid_input' });
    }
    expect((await pullOk(server, bob, clientId, '0', limits.pullPageMax)).reset).toBe(true);
  });

  test('push and pull without a token answer 401 and write nothing', async () => {
    const server = await start();
    const db = server.app.db;
    const before = await newestSeq(db);
    const clientId = uuidv7();

    const pushed = await push(server, null, { clientId, mutations: [details(1, 'X', 'alice@demo.local')] });
    expect(pushed).toEqual({ status: 401, body: { code: 'unauthenticated', message: 'Please sign in to continue.' } });
    const pulled = await pull(server, null, { clientId, cursor: 0 });
    expect(pulled).toEqual({ status: 401, body: { code: 'unauthenticated', message: 'Please sign in to continue.' } });

    expect(await db.select().from(syncClients)).toEqual([]);
    expect(await changesAfter(db, before)).toEqual([]);
  });
});

describe('GET /api/sync/pull', () => {
  test('cursor 0 bootstraps every active user without secrets, up to the newest change', async () => {
    const server = await start();
    const { bob } = await people(server);
    const db = server.app.db;

    const answer = await pullOk(server, bob, uuidv7(), '0');

    expect(answer.reset).toBe(true);
    expect(answer.more).toBe(false);
    expect(compareCursors(answer.cursor, await cursorOfChange(db, await newestSeq(db)))).toBeGreaterThanOrEqual(0);
    expect(answer.cursor).not.toBe('0');
    expect(answer.lastMutationId).toBe(0);
    const active = await db.select().from(users);
    const userChanges = answer.changes.filter((c) => c.entity === 'user');
    expect(userChanges.map((c) => c.id).sort()).toEqual(active.map((u) => u.id).sort());
    for (const change of userChanges) {
      expect(change).toMatchObject({ entity: 'user', op: 'put' });
      if (change.op !== 'put') continue;
      expect(change.data.id).toBe(change.id);
      expect(change.data._id).toBe(change.id);
      // Exactly the wire fields: no password, hash, Google subject or token version.
      expect(Object.keys(change.data).sort()).toEqual(Object.keys(userSchema.shape).sort());
    }
    expect(JSON.stringify(answer)).not.toMatch(/password|hash|googleSub|tokenVersion|\$argon2/i);
  });

  test('an incremental pull returns just the changes after the cursor, as current state', async () => {
    const server = await start();
    const { alice, bob } = await people(server);
    const bobClient = uuidv7();
    const { cursor } = await pullOk(server, bob, bobClient, '0');

    const nothing = await pullOk(server, bob, bobClient, cursor);
    expect(nothing).toMatchObject({ changes: [], more: false, reset: false, bootstrap: null, lastMutationId: 0 });
    // Further only when something else committed meanwhile (on PostgreSQL a transaction without changes moves it).
    expect(compareCursors(nothing.cursor, cursor)).toBeGreaterThanOrEqual(0);

    await pushOk(server, alice, uuidv7(), [details(1, 'Alice Renamed', 'alice.renamed@demo.local')]);
    const answer = await pullOk(server, bob, bobClient, cursor);

    expect(answer).toMatchObject({ more: false, reset: false, bootstrap: null, lastMutationId: 0 });
    expect(compareCursors(answer.cursor, cursor)).toBeGreaterThan(0);
    expect(await pullOk(server, bob, bobClient, answer.cursor)).toMatchObject({ changes: [], cursor: answer.cursor });
    expect(answer.changes).toEqual([
      {
        entity: 'user',
        op: 'put',
        id: alice.user.id,
        data: expect.objectContaining({
          id: alice.user.id,
          name: 'Alice Renamed',
          email: 'alice.renamed@demo.local',
          version: (await userRow(server.app.db, alice.user.id)).version,
        }) as unknown,
      },
    ]);
  });

  test('a small limit pages through the changes one at a time with increasing cursors', async () => {
    const server = await start();
    const { alice, bob, carol } = await people(server);
    const reader = uuidv7();
    const { cursor: start0 } = await pullOk(server, carol, reader, '0');
    await pushOk(server, alice, uuidv7(), [details(1, 'Alice Paged', 'alice@demo.local')]);
    await pushOk(server, bob, uuidv7(), [details(1, 'Bob Paged', 'bob@demo.local')]);
    await pushOk(server, carol, uuidv7(), [details(1, 'Carol Paged', 'carol@demo.local')]);

    const pages: PullResponse[] = [];
    let cursor = start0;
    for (let i = 0; i < 3; i++) {
      const page = await pullOk(server, carol, reader, cursor, 1);
      pages.push(page);
      cursor = page.cursor;
    }

    expect(pages.map((p) => p.more)).toEqual([true, true, false]);
    const cursors = [start0, ...pages.map((p) => p.cursor)];
    for (let i = 1; i < cursors.length; i++)
      expect(compareCursors(cursors[i] ?? '0', cursors[i - 1] ?? '0')).toBeGreaterThan(0);
    expect(pages.map((p) => p.reset)).toEqual([false, false, false]);
    expect(
      pages.map((p) => p.changes.map((c) => [c.id, c.op === 'put' && c.entity === 'user' ? c.data.name : null])),
    ).toEqual([[[alice.user.id, 'Alice Paged']], [[bob.user.id, 'Bob Paged']], [[carol.user.id, 'Carol Paged']]]);
    expect(await pullOk(server, carol, reader, cursor, 1)).toMatchObject({ changes: [], cursor, more: false });
  });

  test("a pull answers the last mutation id of the client it names, and only that client's", async () => {
    const server = await start();
    const { alice } = await people(server);
    const clientId = uuidv7();
    await pushOk(server, alice, clientId, [
      details(1, 'A', 'alice@demo.local'),
      details(2, 'B', 'alice@demo.local'),
      details(3, 'C', 'alice@demo.local'),
    ]);

    expect((await pullOk(server, alice, clientId, '0')).lastMutationId).toBe(3);
    const { cursor } = await pullOk(server, alice, clientId, '0');
    expect((await pullOk(server, alice, clientId, cursor)).lastMutationId).toBe(3);
    expect((await pullOk(server, alice, uuidv7(), cursor)).lastMutationId).toBe(0);
  });

  test('a deactivated user comes back as a delete in an incremental pull and is absent from a bootstrap', async () => {
    const server = await start();
    const { bob, carol } = await people(server);
    const db = server.app.db;
    const bobClient = uuidv7();
    const { cursor } = await pullOk(server, bob, bobClient, '0');

    const seq = await transaction(db, async (tx) => {
      await tx.update(users).set({ deactivatedAt: new Date().toISOString() }).where(eq(users.id, carol.user.id));
      return (await recordChange(tx, { entity: 'user', id: carol.user.id, op: 'delete', audience: ['team'] })).seq;
    });

    const incremental = await pullOk(server, bob, bobClient, cursor);
    expect(incremental).toMatchObject({
      changes: [{ entity: 'user', op: 'delete', id: carol.user.id }],
      more: false,
      reset: false,
      bootstrap: null,
      lastMutationId: 0,
    });
    expect(compareCursors(incremental.cursor, await cursorOfChange(db, seq))).toBeGreaterThanOrEqual(0);

    const bootstrap = await pullOk(server, bob, bobClient, '0');
    expect(bootstrap.reset).toBe(true);
    expect(bootstrap.changes.map((c) => c.id)).not.toContain(carol.user.id);
    expect(bootstrap.changes.filter((c) => c.entity === 'user')).toHaveLength(
      (await db.select().from(users)).length - 1,
    );
  });

  test('a change pulls only to the principals in its audience', async () => {
    const server = await start();
    const { alice, bob, carol } = await people(server);
    const db = server.app.db;
    const bobClient = uuidv7();
    const carolClient = uuidv7();
    const { cursor } = await pullOk(server, bob, bobClient, '0');

    const seq = await transaction(
      db,
      async (tx) =>
        (await recordChange(tx, { entity: 'user', id: alice.user.id, op: 'put', audience: [`user:${bob.user.id}`] }))
          .seq,
    );
    // One principal is on the change's own row; several are rows of change_audience.
    expect((await db.select().from(changeLog).where(eq(changeLog.seq, seq)))[0]?.principal).toBe(`user:${bob.user.id}`);
    expect(await db.select().from(changeAudience).where(eq(changeAudience.seq, seq))).toEqual([]);

    const bobs = await pullOk(server, bob, bobClient, cursor);
    expect(bobs.changes).toEqual([expect.objectContaining({ entity: 'user', op: 'put', id: alice.user.id })]);
    const afterSeq = await cursorOfChange(db, seq);
    expect(compareCursors(bobs.cursor, afterSeq)).toBeGreaterThanOrEqual(0);

    const carols = await pullOk(server, carol, carolClient, cursor);
    expect(carols).toMatchObject({ changes: [], more: false, reset: false, bootstrap: null, lastMutationId: 0 });
    expect(compareCursors(carols.cursor, afterSeq)).toBeGreaterThanOrEqual(0);

    const both = await transaction(
      db,
      async (tx) =>
        (
          await recordChange(tx, {
            entity: 'user',
            id: bob.user.id,
            op: 'put',
            audience: [`user:${carol.user.id}`, `user:${bob.user.id}`],
          })
        ).seq,
    );
    expect((await db.select().from(changeLog).where(eq(changeLog.seq, both)))[0]?.principal).toBeNull();
    expect(
      (await db.select().from(changeAudience).where(eq(changeAudience.seq, both))).map((row) => row.principal).sort(),
    ).toEqual([`user:${bob.user.id}`, `user:${carol.user.id}`].sort());
    // Bob is in both audiences (his own and the change's): the change comes once.
    for (const [session, client] of [
      [bob, bobClient],
      [carol, carolClient],
    ] as const) {
      const pulled = await pullOk(server, session, client, afterSeq);
      expect(pulled.changes).toEqual([expect.objectContaining({ entity: 'user', op: 'put', id: bob.user.id })]);
      expect(compareCursors(pulled.cursor, await cursorOfChange(db, both))).toBeGreaterThanOrEqual(0);
    }
    const alices = await pullOk(server, alice, uuidv7(), afterSeq);
    expect(alices.changes).toEqual([]);
  });

  test('a cursor older than the log keeps is answered with a bootstrap', async () => {
    const server = await start();
    const { alice, bob } = await people(server);
    const db = server.app.db;
    const bobClient = uuidv7();
    const { cursor: old } = await pullOk(server, bob, bobClient, '0');
    const before = await newestSeq(db);
    await pushOk(server, alice, uuidv7(), [details(1, 'Alice One', 'alice@demo.local')]);
    await pushOk(server, alice, uuidv7(), [details(1, 'Alice Two', 'alice@demo.local')]);
    // The floor is the first of the two changes: the second stays.
    const floor = await positionOfChange(db, before + 1);
    const [first, second] = [await cursorOfChange(db, before + 1), await cursorOfChange(db, before + 2)];

    await compactChangeLog(db, floor);
    expect((await db.select().from(changeLog)).map((row) => row.seq)).toEqual([before + 2]);
    expect((await db.select().from(changeAudience)).filter((row) => row.seq <= before + 1)).toEqual([]);

    const stale = await pullOk(server, bob, bobClient, old);
    expect(stale).toMatchObject({ reset: true, more: false });
    expect(compareCursors(stale.cursor, second)).toBeGreaterThanOrEqual(0);
    expect(stale.changes.filter((c) => c.entity === 'user')).toHaveLength((await db.select().from(users)).length);
    expect(stale.changes).toContainEqual(
      expect.objectContaining({ id: alice.user.id, data: expect.objectContaining({ name: 'Alice Two' }) as unknown }),
    );

    const atFloor = await pullOk(server, bob, bobClient, first);
    expect(atFloor).toMatchObject({ reset: false });
    expect(atFloor.changes.map((c) => c.id)).toEqual([alice.user.id]);
  });

  test('after the whole log is compacted, a bootstrap still answers the version reached', async () => {
    const server = await start();
    const { alice, bob } = await people(server);
    const db = server.app.db;
    await pushOk(server, alice, uuidv7(), [details(1, 'Alice One', 'alice@demo.local')]);
    const head = await readablePosition(db);

    await compactChangeLog(db, head);
    expect(await db.select().from(changeLog)).toEqual([]);

    const bobClient = uuidv7();
    const bootstrap = await pullOk(server, bob, bobClient, '0');
    expect(bootstrap).toMatchObject({ reset: true });
    expect(compareCursors(bootstrap.cursor, formatPosition(head))).toBeGreaterThanOrEqual(0);
    // From there the client pulls incrementally rather than bootstrapping again.
    const again = await pullOk(server, bob, bobClient, bootstrap.cursor);
    expect(again).toMatchObject({ reset: false, changes: [] });

    await pushOk(server, alice, uuidv7(), [details(1, 'Alice Two', 'alice@demo.local')]);
    const incremental = await pullOk(server, bob, bobClient, again.cursor);
    expect(incremental).toMatchObject({ reset: false });
    expect(compareCursors(incremental.cursor, await cursorOfChange(db, await newestSeq(db)))).toBeGreaterThanOrEqual(0);
    expect(incremental.changes.map((c) => c.id)).toEqual([alice.user.id]);
  });

  test('a bootstrap honours limit: pages of at most `limit`, a token to go on, the cursor on the last page', async () => {
    const server = await start();
    const { bob } = await people(server);
    const db = server.app.db;
    const head = await cursorNow(db);
    const whole = await pullOk(server, bob, uuidv7(), '0');
    expect(whole.bootstrap).toMatchObject({ next: null, done: whole.changes.length, total: whole.changes.length });

    const clientId = uuidv7();
    const pages: PullResponse[] = [await pullOk(server, bob, clientId, '0', 7)];
    while (pages.at(-1)?.bootstrap?.next) {
      const token = pages.at(-1)?.bootstrap?.next ?? '';
      pages.push(await pullPage(server, bob, { clientId, cursor: '0', limit: 7, snapshot: token }));
    }
    expect(pages.length).toBe(Math.ceil(whole.changes.length / 7));
    expect(pages.map((page) => page.reset)).toEqual(pages.map((_, i) => i === 0));
    for (const page of pages.slice(0, -1)) {
      expect(page.changes).toHaveLength(7);
      expect(page).toMatchObject({ cursor: '0', more: true });
    }
    expect(pages.at(-1)).toMatchObject({ more: false, bootstrap: { next: null } });
    expect(compareCursors(pages.at(-1)?.cursor ?? '0', head)).toBeGreaterThanOrEqual(0);
    expect(pages.map((page) => page.bootstrap?.done)).toEqual(
      pages.map((_, i) => Math.min(whole.changes.length, (i + 1) * 7)),
    );
    expect(pages.flatMap((page) => page.changes)).toEqual(whole.changes);
    // Newest chat messages first: the chat and the dashboard fill from the top while older ones arrive.
    const chats = whole.changes.filter((c) => c.entity === 'chatMessage').map((c) => c.id);
    expect(chats).toEqual([...chats].sort().reverse());
  });

  test('an interrupted bootstrap resumes from its token; what changed meanwhile comes with the pull from its cursor', async () => {
    const server = await start();
    const { alice, bob } = await people(server);
    const db = server.app.db;
    const clientId = uuidv7();
    const held = new Map<string, Change>();
    const apply = (page: PullResponse) => {
      if (page.reset) held.clear();
      for (const change of page.changes) {
        const key = `${change.entity}:${change.id}`;
        const current = held.get(key);
        if (change.op === 'delete') held.delete(key);
        else if (current?.op !== 'put' || current.data.version <= change.data.version) held.set(key, change);
      }
    };
    const first = await pullOk(server, bob, clientId, '0', 10);
    apply(first);
    const token = first.bootstrap?.next;
    if (!token) throw new Error('one page held everything');

    // The link drops; meanwhile Alice renames herself (sent already) and writes in the chat (not sent yet).
    await pushOk(server, alice, uuidv7(), [details(1, 'Alice Meanwhile', 'alice@demo.local')]);
    const chat = await server.app.inject({
      method: 'POST',
      url: '/api/messages',
      headers: bearer(alice.token),
      payload: { text: 'Written during the bootstrap' },
    });
    expect(chat.statusCode).toBe(201);

    let page = await pullPage(server, bob, { clientId, cursor: '0', limit: 10, snapshot: token });
    expect(page.reset).toBe(false);
    apply(page);
    while (page.bootstrap?.next) {
      page = await pullPage(server, bob, { clientId, cursor: '0', limit: 10, snapshot: page.bootstrap.next });
      apply(page);
    }
    expect(page.more).toBe(true);
    const catchUp = await pullOk(server, bob, clientId, page.cursor);
    apply(catchUp);
    expect(compareCursors(catchUp.cursor, await cursorOfChange(db, await newestSeq(db)))).toBeGreaterThanOrEqual(0);

    const fresh = await pullOk(server, bob, uuidv7(), '0');
    const sorted = (changes: Iterable<Change>) =>
      [...changes].sort((a, b) => `${a.entity}:${a.id}`.localeCompare(`${b.entity}:${b.id}`));
    expect(sorted(held.values())).toEqual(sorted(fresh.changes));
    expect(held.get(`user:${alice.user.id}`)).toMatchObject({ data: { name: 'Alice Meanwhile' } });
  });

  test('a bootstrap token from before a compaction starts over; a malformed one is refused', async () => {
    const server = await start();
    const { alice, bob } = await people(server);
    const db = server.app.db;
    const clientId = uuidv7();
    const first = await pullOk(server, bob, clientId, '0', 5);
    const token = first.bootstrap?.next ?? '';
    await pushOk(server, alice, uuidv7(), [details(1, 'Alice Compacted', 'alice@demo.local')]);
    await compactChangeLog(db, await readablePosition(db));

    const restarted = await pullPage(server, bob, { clientId, cursor: '0', limit: 5, snapshot: token });
    expect(restarted).toMatchObject({ reset: true, bootstrap: { done: 5 } });
    for (const snapshot of ['x', '1.2.3', '1.0.not-an-id!.0.0']) {
      const { status, body } = await pull(server, bob, { clientId, cursor: '0', snapshot });
      expect(status, snapshot).toBe(400);
      expect(body).toMatchObject({ code: 'invalid_input' });
    }
  });

  test('compaction never lowers the floor nor raises it past what can be read; a device at the floor pulls on', async () => {
    const server = await start();
    const { alice, bob } = await people(server);
    const db = server.app.db;
    const bobClient = uuidv7();
    const earlier = await readablePosition(db);
    const before = await newestSeq(db);
    await pushOk(server, alice, uuidv7(), [details(1, 'Alice Before', 'alice@demo.local')]);
    const last = await positionOfChange(db, before + 1);

    await compactChangeLog(db, await readablePosition(db));
    await compactChangeLog(db, earlier);
    // The floor is the last change dropped: a device at or after it misses nothing.
    expect(comparePositions(await changeLogFloor(db), last)).toBe(0);
    const stale = await pullOk(server, bob, bobClient, formatPosition(earlier));
    expect(stale.reset).toBe(true);
    expect(compareCursors(stale.cursor, formatPosition(last))).toBeGreaterThanOrEqual(0);

    // Past anything that could be read yet (SQLite: a sequence number to come; PostgreSQL: a transaction to come).
    const head = await readablePosition(db);
    const beyond: LogPosition = { xid: head.xid === 0n ? 0n : head.xid + 10n, seq: head.seq + 10 };
    await compactChangeLog(db, beyond);
    expect(comparePositions(await changeLogFloor(db), last)).toBe(0);
    await pushOk(server, alice, uuidv7(), [details(1, 'Alice After', 'alice@demo.local')]);
    const incremental = await pullOk(server, bob, bobClient, formatPosition(last));
    expect(incremental).toMatchObject({ reset: false });
    expect(compareCursors(incremental.cursor, await cursorOfChange(db, before + 2))).toBeGreaterThanOrEqual(0);
    expect(incremental.changes.map((c) => c.id)).toEqual([alice.user.id]);
  });
});

describe('durability', () => {
  test('a server restart between a push and its retry loses nothing and applies nothing twice', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'office-sync-restart-'));
    dirs.push(dataDir);
    const clientId = uuidv7();
    const mutations = [
      details(1, 'Alice One', 'alice.one@demo.local'),
      details(2, 'Alice Two', 'alice.two@demo.local'),
    ];

    const first = await startTestServer({ dataDir });
    const alice = await signIn(first.app, 'alice@demo.local');
    const before = await newestSeq(first.app.db);
    try {
      expect((await pushOk(first, alice, clientId, mutations.slice(0, 1))).outcomes).toEqual([
        { id: 1, status: 'applied' },
      ]);
    } finally {
      await first.close();
    }

    const second = await start({ dataDir, seed: false });
    const db = second.app.db;
    const answer = await pushOk(second, alice, clientId, mutations);

    expect(answer).toEqual({
      outcomes: [
        { id: 1, status: 'duplicate', original: 'applied' },
        { id: 2, status: 'applied' },
      ],
      lastMutationId: 2,
    });
    expect(await userRow(db, alice.user.id)).toMatchObject({
      name: 'Alice Two',
      email: 'alice.two@demo.local',
    });
    expect((await changesAfter(db, before)).map((row) => [row.entityId, row.op])).toEqual([
      [alice.user.id, 'put'],
      [alice.user.id, 'put'],
    ]);
    expect((await clientRow(db, clientId))?.lastMutationId).toBe(2);
    expect(await db.select().from(users)).toHaveLength(5);
  });
});

describe('realtime', () => {
  test("after alice's push applies, bob's socket receives the change and a pull from his cursor holds the same change", async () => {
    const server = await start();
    const { alice, bob } = await people(server);
    const bobClient = uuidv7();
    const { cursor } = await pullOk(server, bob, bobClient, '0');
    const socket = await connectSocket(server.url, bob.token);
    sockets.push(socket);

    const received = nextEvent(socket, 'sync.change');
    await pushOk(server, alice, uuidv7(), [details(1, 'Alice Live', 'alice@demo.local')]);
    const event = await received;

    const seq = await newestSeq(server.app.db);
    expect(event.cursor).toBe(await cursorOfChange(server.app.db, seq));
    expect(event.change).toMatchObject({ entity: 'user', op: 'put', id: alice.user.id });
    expect(event.change.op === 'put' && event.change.entity === 'user' && event.change.data.name).toBe('Alice Live');

    const pulled = await pullOk(server, bob, bobClient, cursor);
    expect(compareCursors(pulled.cursor, event.cursor)).toBeGreaterThanOrEqual(0);
    expect(pulled.changes).toEqual([event.change]);
    expect(
      (
        await server.app.db
          .select()
          .from(changeLog)
          .where(and(eq(changeLog.seq, seq), eq(changeLog.entityId, alice.user.id)))
      )[0],
    ).toBeDefined();
  });

  test('a change nobody connected may see is not encoded for sockets; once someone is connected, it is', async () => {
    const server = await start();
    const { alice, bob } = await people(server);
    const broadcast = vi.spyOn(server.app.realtime.io.of('/').adapter, 'broadcast');
    const liveChanges = () =>
      broadcast.mock.calls.filter(([packet]) => (packet as { data: unknown[] }).data[0] === 'sync.change').length;
    const chat = (id: number, text: string): Mutation => ({
      id,
      name: 'chat.send',
      args: { id: uuidv7(), text },
      at: new Date().toISOString(),
    });
    const aliceClient = uuidv7();
    await pushOk(server, alice, aliceClient, [chat(1, 'Nobody is connected')]);
    // Its turn in the live feed comes before Bob connects (with several nodes the feed reads the log on its own).
    await server.app.realtime.caughtUp();

    const socket = await connectSocket(server.url, bob.token);
    sockets.push(socket);
    const received = nextEvent(socket, 'sync.change');
    await pushOk(server, alice, aliceClient, [chat(2, 'Bob is connected')]);
    const event = await received;

    // Changes go out in commit order: the first message's turn came before this one's.
    expect(event.change.op === 'put' && event.change.entity === 'chatMessage' && event.change.data.text).toBe(
      'Bob is connected',
    );
    expect(liveChanges()).toBe(1);
  });

  test('a batch that changes one task three times sends it once, at its last change, with all three comments', async () => {
    const server = await start();
    const { alice } = await people(server);
    const [task] = await server.app.db.select().from(tasks).where(eq(tasks.assignedTo, alice.user.id));
    if (!task) throw new Error('alice has no task');
    const socket = await connectSocket(server.url, alice.token);
    sockets.push(socket);
    const events = recordEvents(socket, 'sync.change');

    const comment = (id: number, text: string): Mutation => ({
      id,
      name: 'task.comment',
      args: { taskId: task.id, id: uuidv7(), text },
      at: new Date().toISOString(),
    });
    await pushOk(server, alice, uuidv7(), [
      comment(1, 'First'),
      comment(2, 'Second'),
      comment(3, 'Third'),
      details(4, 'Alice After', 'alice@demo.local'),
    ]);
    // The last change of the batch arrives after any of the batch's others.
    await waitUntil(() => events.some((event) => event.change.entity === 'user'));

    const taskEvents = events.filter((event) => event.change.entity === 'task');
    const taskSeqs = (await changesAfter(server.app.db, 0))
      .filter((row) => row.entity === 'task' && row.entityId === task.id)
      .map((row) => row.seq);
    expect(taskEvents).toHaveLength(1);
    expect(taskEvents[0]?.cursor).toBe(await cursorOfChange(server.app.db, taskSeqs.at(-1) ?? 0));
    const sent = taskEvents[0]?.change;
    expect(sent?.op === 'put' && sent.entity === 'task' && sent.data.comments.map((c) => c.text).slice(-3)).toEqual([
      'First',
      'Second',
      'Third',
    ]);
  });
});
