import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { asc, eq, gt, sql } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { isoToday, type ClientToServerEvents, type ServerToClientEvents, type User } from '@office/sync-protocol';
import { buildApp, type BuildOptions } from '../src/app';
import { defaultPostgresTimeouts, loadConfig, type Config } from '../src/config';
import type { Db } from '../src/db/client';
import { dialect } from '../src/db/dialect';
import { formatPosition, readablePosition, type LogPosition } from '../src/db/change-feed';
import { openWorkspaceDatabase, type WorkspaceDatabase } from '../src/db/open';
import { createTestDatabase, dropTestDatabase } from './postgres';
import { changeAudience, changeLog } from '../src/db/schema';
import { DEMO_PASSWORD, seedDemo } from '../src/db/seed';
import { UploadStore } from '../src/domain/chat/uploads';

export interface TestServer {
  app: FastifyInstance;
  config: Config;
  url: string;
  close(): Promise<void>;
}

/** The database made for each data folder on PostgreSQL: a server started again on a folder finds its data. */
const databaseOfDataDir = new Map<string, string>();

/** On PostgreSQL, the server DATABASE_URL names (see db/pg-test-setup.ts); null on SQLite. */
const testPostgresUrl = (): string | null => (dialect === 'postgres' ? (process.env.DATABASE_URL ?? null) : null);

/**
 * On PostgreSQL, the database of a test server on `dataDir`: a new one the first time, so test files and servers
 * stay independent as they are on SQLite.
 */
async function testDatabaseFor(dataDir: string): Promise<string | null> {
  const serverUrl = testPostgresUrl();
  if (!serverUrl) return null;
  let url = databaseOfDataDir.get(dataDir);
  if (!url) {
    url = await createTestDatabase(serverUrl, { migrated: true });
    databaseOfDataDir.set(dataDir, url);
  }
  return url;
}

/** Drops the database of a data folder that is gone. */
async function dropDatabaseOf(dataDir: string): Promise<void> {
  const serverUrl = testPostgresUrl();
  const url = databaseOfDataDir.get(dataDir);
  if (!serverUrl || !url) return;
  databaseOfDataDir.delete(dataDir);
  await dropTestDatabase(serverUrl, url);
}

/**
 * The workspace database alone, as the app would open it on `dataDir`: for tests of the domain without a server.
 * Closing it drops it on PostgreSQL (the caller removes the folder).
 */
export async function openTestDatabase(dataDir: string): Promise<WorkspaceDatabase> {
  const workspace = await openWorkspaceDatabase({
    dataDir,
    databaseUrl: await testDatabaseFor(dataDir),
    postgresTimeouts: defaultPostgresTimeouts,
  });
  return {
    ...workspace,
    close: async () => {
      await workspace.close();
      await dropDatabaseOf(dataDir);
    },
  };
}

/**
 * The real app on a real database, listening on a free loopback port: a SQLite file in a fresh temp dir or, when
 * the dialect is PostgreSQL and the config names no database, a fresh database on the test PostgreSQL.
 */
export async function startTestServer(
  options: { seed?: boolean; config?: Partial<Config>; dataDir?: string } & Omit<BuildOptions, 'config'> = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'office-api-'));
  const databaseUrl = options.config?.databaseUrl ?? (await testDatabaseFor(dataDir));
  const config = loadConfig(
    {},
    {
      dataDir,
      port: 0,
      host: '127.0.0.1',
      jwtSecret: 'test-secret-'.padEnd(48, 'x'),
      // A test file is many people on one IP; the abuse tests turn the limits on.
      rateLimitPerUser: 0,
      rateLimitPerIp: 0,
      ...options.config,
      databaseUrl,
    },
  );
  const app = await buildApp({ ...options, config, logger: false });
  if (options.seed !== false) await seedDemo(app.db, app.flush, { uploads: new UploadStore(dataDir) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    app,
    config,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await app.close();
      // A data folder of the caller's may be started on again; one of our own goes, and its database with it.
      if (options.dataDir) return;
      rmSync(dataDir, { recursive: true, force: true });
      await dropDatabaseOf(dataDir);
    },
  };
}

/** The shared server of a test file, readable from its tests and hooks; see `useTestServer`. */
export interface SharedTestServer extends Omit<TestServer, 'close'> {
  /** A real socket signed in with the token, closed after the test that opened it. */
  connect(token: string): Promise<TestSocket>;
}

/** One server per test file, started before its tests and closed after; `connect` sockets close after each test. */
export function useTestServer(
  options: Parameters<typeof startTestServer>[0] & {
    /** After each test, wait until the server has seen every socket go. */
    awaitOffline?: boolean;
  } = {},
): SharedTestServer {
  const { awaitOffline = false, ...startOptions } = options;
  let started: TestServer | undefined;
  const sockets: TestSocket[] = [];
  const current = (): TestServer => {
    if (!started) throw new Error('the shared test server runs only during the tests and hooks of its file');
    return started;
  };

  beforeAll(async () => {
    started = await startTestServer(startOptions);
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.close();
    if (awaitOffline) {
      const { presence } = current().app.realtime;
      await waitUntil(() => presence.onlineUserIds().length === 0);
      await presence.settled();
    }
  });
  afterAll(async () => {
    await started?.close();
    started = undefined;
  });

  return {
    get app() {
      return current().app;
    },
    get config() {
      return current().config;
    },
    get url() {
      return current().url;
    },
    async connect(token) {
      const socket = await connectSocket(current().url, token);
      sockets.push(socket);
      // The server stores the person online as the socket connects: the test starts from that state.
      await current().app.realtime.presence.settled();
      return socket;
    },
  };
}

/** The ISO date `days` days from today (negative: in the past). */
export const inDays = (days: number): string => isoToday(new Date(Date.now() + days * 86_400_000));

let uniqueCount = 0;
/** `what` with a number no earlier call has used, as `what #n`: a text, title or name a test can find again. */
export const uniqueText = (what: string) => `${what} #${++uniqueCount}`;

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls a condition every 10 ms until it holds; rejects once `timeoutMs` has passed. */
export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

/**
 * Waits until every change committed so far can be read (PostgreSQL: its transaction is below the visibility horizon;
 * another writer of this test's database still open holds it back for a moment).
 * A test that pulls right after a write waits here, so that the pull brings the write; SQLite reads every commit.
 */
export async function everyCommitReadable(db: Db): Promise<void> {
  if (dialect !== 'postgres') return;
  await waitUntil(async () => {
    const readable = await readablePosition(db);
    const { rows } = await (db as unknown as NodePgDatabase).execute<{ newest: string }>(
      sql`SELECT xid::text AS newest FROM change_log ORDER BY xid DESC LIMIT 1`,
    );
    const newest = rows[0]?.newest;
    return newest === undefined || BigInt(newest) < readable.xid;
  }, 10_000);
}

/** A pull's cursor from which it brings every change committed from now on, whichever the dialect. */
export async function cursorNow(db: Db): Promise<string> {
  return formatPosition(await readablePosition(db));
}

/** The place in the change log of the change numbered `seq`: a pull from there brings what comes after it. */
export async function positionOfChange(db: Db, seq: number): Promise<LogPosition> {
  if (dialect !== 'postgres') return { xid: 0n, seq };
  const { rows } = await (db as unknown as NodePgDatabase).execute<{ xid: string }>(
    sql`SELECT xid::text AS xid FROM change_log WHERE seq = ${seq}`,
  );
  const [row] = rows;
  if (!row) throw new Error(`no change ${seq}`);
  return { xid: BigInt(row.xid), seq };
}

/**
 * The version an entity has after the change numbered `seq`, when it had `previous` before: the change's number on
 * SQLite (one writer), the next of its own on PostgreSQL (writers overlap, see change-log-append.ts).
 */
export const versionAfter = (previous: number, seq: number): number => (dialect === 'postgres' ? previous + 1 : seq);

/** The cursor of the change numbered `seq` (positionOfChange). */
export const cursorOfChange = async (db: Db, seq: number): Promise<string> =>
  formatPosition(await positionOfChange(db, seq));

/** Change-log rows after `seq` as [entity, entityId, op, audience], in commit order. */
export async function changesWithAudienceAfter(db: Db, seq: number): Promise<[string, string, string, string[]][]> {
  const rows = await db.select().from(changeLog).where(gt(changeLog.seq, seq)).orderBy(asc(changeLog.seq));
  const changes: [string, string, string, string[]][] = [];
  for (const row of rows) {
    const audience = await db.select().from(changeAudience).where(eq(changeAudience.seq, row.seq));
    const principals = row.principal === null ? audience.map((a) => a.principal) : [row.principal];
    changes.push([row.entity, row.entityId, row.op, principals.sort()]);
  }
  return changes;
}

/** Signs a demo user in over HTTP; returns their token and user. */
export async function signIn(
  app: FastifyInstance,
  email: string,
  password = DEMO_PASSWORD,
): Promise<{ token: string; user: User }> {
  const res = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
  if (res.statusCode !== 200) throw new Error(`sign-in of ${email} failed: ${res.statusCode} ${res.body}`);
  return res.json<{ token: string; user: User }>();
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export type TestSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** A real Socket.IO client; resolves once connected, rejects with the server's refusal. */
export function connectSocket(url: string, token?: string): Promise<TestSocket> {
  const socket: TestSocket = connect(url, {
    path: '/socket.io',
    transports: ['websocket'],
    reconnection: false,
    ...(token === undefined ? {} : { auth: { token } }),
  });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (error) => {
      socket.close();
      reject(error);
    });
  });
}

/** Resolves with the next payload of an event, or rejects after a timeout. */
export function nextEvent<E extends keyof ServerToClientEvents>(
  socket: TestSocket,
  event: E,
  timeoutMs = 3000,
): Promise<Parameters<ServerToClientEvents[E]>[0]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${timeoutMs} ms`)), timeoutMs);
    // socket.io-client's typed `once` cannot express a generic event's listener; the cast keeps the payload type.
    (socket.once as (e: string, fn: (payload: unknown) => void) => void)(event, (payload) => {
      clearTimeout(timer);
      resolve(payload as Parameters<ServerToClientEvents[E]>[0]);
    });
  });
}

/** The payload type of a server-to-client event. */
export type EventPayload<E extends keyof ServerToClientEvents> = Parameters<ServerToClientEvents[E]>[0];

/** Every payload of an event from now on, in arrival order. */
export function recordEvents<E extends keyof ServerToClientEvents>(socket: TestSocket, event: E): EventPayload<E>[] {
  const seen: EventPayload<E>[] = [];
  // socket.io-client's typed `on` cannot express a generic event's listener; the cast keeps the payload type.
  (socket.on as (e: string, fn: (payload: unknown) => void) => void)(event, (payload) =>
    seen.push(payload as EventPayload<E>),
  );
  return seen;
}

/** The first payload of an event that matches, skipping others; rejects after a timeout. */
export async function nextEventWhere<E extends keyof ServerToClientEvents>(
  socket: TestSocket,
  event: E,
  matches: (payload: EventPayload<E>) => boolean,
  timeoutMs = 3000,
): Promise<EventPayload<E>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const payload = await nextEvent(socket, event, Math.max(1, deadline - Date.now()));
    if (matches(payload)) return payload;
  }
}
