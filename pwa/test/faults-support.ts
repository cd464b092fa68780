import Database from 'better-sqlite3';
import { decodeJwt, SignJWT } from 'jose';
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { cpSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import webpush from 'web-push';
import {
  entityNames,
  teamChatKey,
  uuidv7,
  type EntityName,
  type MutationOutcome,
  type PullQuery,
  type PullResponse,
  type PushRequest,
  type PushResponse,
  type UploadOutcomeResponse,
  type User,
  type WindowCounts,
  type WindowCountsQuery,
} from '@office/sync-protocol';
import { removeDataDir, startServerProcess, stopServerProcess, type ServerProcess } from '../../api/server-process';
import { createTestDatabase, dropTestDatabase, queryPostgres } from '../../api/test/postgres';
import { ApiError } from '../src/api/http';
import { entityTables, type OutboxEntry, type WorkspaceDb } from '../src/data/db';
import { uploadForm, type SyncTransport, type WindowCountsSource } from '../src/sync/transport';
import { rangeOrWhole, spansHold } from '../src/sync/window';
import { seededRandom } from '../../api/seeded-random';

/** Seeded choices, so a seed replays the same run. */
export class Random {
  readonly next: () => number;

  constructor(seed: number) {
    this.next = seededRandom(seed);
  }

  /** A whole number in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T | undefined {
    return items[this.int(items.length)];
  }

  /** One of the keys, drawn in proportion to its weight. */
  weighted<K extends string>(weights: Partial<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][];
    let draw = this.next() * entries.reduce((sum, [, weight]) => sum + weight, 0);
    for (const [key, weight] of entries) {
      draw -= weight;
      if (draw < 0) return key;
    }
    const last = entries.at(-1);
    if (!last) throw new Error('weighted() needs at least one key');
    return last[0];
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The faults a seed injects; the test asserts each kind keeps happening. */
export const faultKinds = [
  'offline',
  'droppedAnswer',
  'duplicatePush',
  'outOfOrderBatch',
  'serverCrash',
  'expiredToken',
] as const;
export type FaultKind = (typeof faultKinds)[number];

/** What happened in one seed, in order, with milliseconds since its start; printed when the seed fails. */
export class Trace {
  readonly lines: string[] = [];
  private readonly start = performance.now();

  add(line: string): void {
    this.lines.push(`${String(Math.round(performance.now() - this.start)).padStart(5)} ms  ${line}`);
  }
}

/** Ids in the trace: the last 6 characters tell them apart and keep lines short. */
export const short = (id: string): string => id.slice(-6);

const describeOutcome = (outcome: MutationOutcome): string =>
  outcome.status === 'duplicate'
    ? `${outcome.id} dup-${outcome.original}`
    : outcome.status === 'rejected'
      ? `${outcome.id} rejected(${outcome.code})`
      : `${outcome.id} applied`;

const idRange = (ids: number[]): string => (ids.length > 1 ? `${ids[0]}..${ids.at(-1)}` : `${ids[0]}`);

/** Every answer the server gave about each mutation, whether or not the client received it. */
export class Ledger {
  /** client name → mutation id → what the server said, in order. */
  readonly answers = new Map<string, Map<number, { outcome: MutationOutcome; delivered: boolean }[]>>();

  record(client: string, outcomes: MutationOutcome[], delivered: boolean): void {
    const byId = this.answers.get(client) ?? new Map<number, { outcome: MutationOutcome; delivered: boolean }[]>();
    this.answers.set(client, byId);
    for (const outcome of outcomes) byId.set(outcome.id, [...(byId.get(outcome.id) ?? []), { outcome, delivered }]);
  }
}

/** The JWT secret of server-process.ts's children. */
const TEST_JWT_SECRET = 'test-secret-'.padEnd(48, 'x');

/** The same claims as a real token, signed with the server's secret, expired a minute ago. */
export async function expiredTokenLike(token: string): Promise<string> {
  const { sub, sid } = decodeJwt(token);
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sid })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub ?? '')
    .setIssuedAt(now - 3600)
    .setExpirationTime(now - 60)
    .sign(new TextEncoder().encode(TEST_JWT_SECRET));
}

export interface Session {
  token: string;
  expiredToken: string;
  user: User;
}

/**
 * What a server keeps: its data dir (uploads, and on SQLite the database file) and, on PostgreSQL, its
 * database on the test cluster.
 */
export interface Workspace {
  dataDir: string;
  postgres: { serverUrl: string; databaseUrl: string } | null;
}

/**
 * A fresh data dir on tmpfs when there is one: `kill -9` loses nothing the page cache holds, so the
 * crashes mean the same, without the fsync of every commit (synchronous = FULL) on a shared disk.
 */
function newDataDir(): string {
  return mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'office-faults-'));
}

/** An empty workspace: on SQLite a data dir, on PostgreSQL a new database on `postgresServerUrl` too. */
export async function newWorkspace(postgresServerUrl: string | null): Promise<Workspace> {
  const dataDir = newDataDir();
  if (!postgresServerUrl) return { dataDir, postgres: null };
  return {
    dataDir,
    postgres: { serverUrl: postgresServerUrl, databaseUrl: await createTestDatabase(postgresServerUrl) },
  };
}

/** A copy of a stopped server's workspace: its data dir, and its database as a template of a new one. */
export async function copyWorkspace(template: Workspace): Promise<Workspace> {
  const dataDir = newDataDir();
  cpSync(template.dataDir, dataDir, { recursive: true });
  if (!template.postgres) return { dataDir, postgres: null };
  const { serverUrl, databaseUrl } = template.postgres;
  const copy = new URL(serverUrl);
  copy.pathname = `/office_${randomBytes(6).toString('hex')}`;
  // PostgreSQL copies a template only while nobody is connected to it: its server has stopped.
  await queryPostgres(
    serverUrl,
    `CREATE DATABASE ${copy.pathname.slice(1)} TEMPLATE ${new URL(databaseUrl).pathname.slice(1)}`,
  );
  return { dataDir, postgres: { serverUrl, databaseUrl: copy.toString() } };
}

/** Removes a workspace no server uses any more: the cluster's folder (in memory) stays small. */
export async function removeWorkspace({ dataDir, postgres }: Workspace): Promise<void> {
  removeDataDir(dataDir);
  if (postgres) await dropTestDatabase(postgres.serverUrl, postgres.databaseUrl);
}

/** The keys every node on one PostgreSQL must share (config.ts): generated here, the same for every start. */
const vapidKeys = webpush.generateVAPIDKeys();

/**
 * Issue 46: the servers under test hold devices to a small window of the history, so a seed's few writes pass its
 * edges and the devices' window keepers move them and evict.
 */
const smallWindowEnv = {
  HISTORY_TEAM_CHAT_MESSAGES: '6',
  HISTORY_DIRECT_MESSAGES: '3',
  HISTORY_NOTIFICATIONS: '4',
};

/**
 * How many nodes (server processes) serve a workspace: two on PostgreSQL, whose writers overlap without a cluster-wide
 * lock (issue 42); one on SQLite, which has one writer.
 */
const nodeCountFor = ({ postgres }: Workspace): number => (postgres ? 2 : 1);

/**
 * One node of the workspace: the bundled server as a child process on its own port, restarted in place after each
 * `kill -9` while the other nodes keep serving. Rate limits are off: one test process plays many clients from one IP
 * address.
 */
export class ServerNode {
  private process: ServerProcess;
  private restarting: Promise<void> | null = null;

  private constructor(
    readonly index: number,
    private readonly bundle: string,
    private readonly workspace: Workspace,
    process: ServerProcess,
    readonly port: number,
  ) {
    this.process = process;
  }

  /**
   * Node 0 seeds an empty workspace; the others never seed (they start once node 0 has). All get the same secrets:
   * the JWT secret of server-process.ts and, on PostgreSQL, the VAPID keys.
   */
  private static envFor({ postgres }: Workspace, index: number): Record<string, string> {
    return {
      ...smallWindowEnv,
      SEED_DEMO: index === 0 ? '1' : '0',
      RATE_LIMIT_PER_USER: '0',
      RATE_LIMIT_PER_IP: '0',
      // Only the child gets DATABASE_URL: this process must not switch to PostgreSQL (api/src/db/dialect.ts).
      ...(postgres && {
        DATABASE_URL: postgres.databaseUrl,
        VAPID_PUBLIC_KEY: vapidKeys.publicKey,
        VAPID_PRIVATE_KEY: vapidKeys.privateKey,
      }),
    };
  }

  static async start(bundle: string, workspace: Workspace, index: number): Promise<ServerNode> {
    const process = await startServerProcess({
      bundle,
      dataDir: workspace.dataDir,
      env: ServerNode.envFor(workspace, index),
    });
    return new ServerNode(index, bundle, workspace, process, Number(new URL(process.url).port));
  }

  /** "node 1", as the traces name it. */
  get name(): string {
    return `node ${this.index}`;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** `kill -9`, then the same node again on the same port and workspace. One crash at a time. */
  async killAndRestart(): Promise<void> {
    while (this.restarting) await this.restarting;
    this.restarting = (async () => {
      await stopServerProcess(this.process, 'SIGKILL');
      this.process = await this.startInPlace();
    })();
    try {
      await this.restarting;
    } finally {
      this.restarting = null;
    }
  }

  private async startInPlace(): Promise<ServerProcess> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await startServerProcess({
          bundle: this.bundle,
          dataDir: this.workspace.dataDir,
          port: this.port,
          env: ServerNode.envFor(this.workspace, this.index),
        });
      } catch (error) {
        // The killed process's port is normally free at once; give the kernel a moment if not.
        if (attempt >= 5) throw error;
        await sleep(100 * attempt);
      }
    }
  }

  /** Resolves once no restart is under way. */
  async ready(): Promise<void> {
    while (this.restarting) await this.restarting;
  }

  /** Stops the process: SIGTERM lets it finish and disconnect from the database, SIGKILL does not. */
  async stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    await this.ready();
    await stopServerProcess(this.process, signal);
  }
}

/**
 * The workspace as its nodes serve it (`nodeCountFor`), all on one workspace: the data dir (uploads), and on
 * PostgreSQL one database. The checks read what the server says through node 0.
 */
export class ServerUnderTest {
  /** The checks' one connection to a PostgreSQL workspace, opened at their first read: a connection costs ~10 ms. */
  private postgresReader: pg.Pool | null = null;

  private constructor(
    readonly workspace: Workspace,
    readonly nodes: readonly [ServerNode, ...ServerNode[]],
  ) {}

  /**
   * Starts on a workspace: an empty one seeds the demo workspace, a copy of a stopped server's starts as it was.
   * Node 0 starts first (it migrates and seeds), the other nodes once it listens.
   */
  static async start(bundle: string, workspace: Workspace): Promise<ServerUnderTest> {
    const first = await ServerNode.start(bundle, workspace, 0);
    const others = await Promise.all(
      Array.from({ length: nodeCountFor(workspace) - 1 }, (_, i) => ServerNode.start(bundle, workspace, i + 1)),
    );
    return new ServerUnderTest(workspace, [first, ...others]);
  }

  /** Where the checks ask what the server says: node 0. */
  get url(): string {
    return this.nodes[0].url;
  }

  /** Resolves once no node is restarting. */
  async ready(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.ready()));
  }

  async signIn(email: string): Promise<Session> {
    const response = await fetch(`${this.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'demo1234' }),
    });
    if (!response.ok) throw new Error(`sign-in of ${email} failed: ${response.status} ${await response.text()}`);
    const { token, user } = (await response.json()) as { token: string; user: User };
    return { token, user, expiredToken: await expiredTokenLike(token) };
  }

  /** What the server says this user may see: a bootstrap for a client it has never met, all its pages in one. */
  async bootstrapFor(token: string): Promise<PullResponse> {
    const clientId = uuidv7();
    const changes: PullResponse['changes'] = [];
    let snapshot: string | null = null;
    for (;;) {
      const query = `clientId=${clientId}&cursor=0&limit=1000${snapshot ? `&snapshot=${snapshot}` : ''}`;
      const response = await fetch(`${this.url}/api/sync/pull?${query}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      if (!response.ok) throw new Error(`bootstrap failed: ${response.status} ${await response.text()}`);
      const page = (await response.json()) as PullResponse;
      changes.push(...page.changes);
      snapshot = page.bootstrap?.next ?? null;
      if (!snapshot) return { ...page, changes, reset: true };
    }
  }

  /**
   * The server's current state of a message the device holds outside the server's window (its cache), as its page
   * around it answers; null when the server holds it no more (or the person may not see it).
   */
  async currentMessage(token: string, entity: 'chatMessage' | 'directMessage', row: Row): Promise<Row | null> {
    const id = String(row.id);
    const path =
      entity === 'chatMessage'
        ? `/api/messages?around=${id}&limit=1`
        : `/api/direct-messages/conversations/${String(row.conversationId)}/messages?around=${id}&limit=1`;
    const response = await fetch(`${this.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    if (!response.ok) return null;
    const page = (await response.json()) as { messages: Row[] };
    const found = page.messages.find((message) => message.id === id);
    if (!found) return null;
    const { readBy: _readBy, ...message } = found;
    return entity === 'directMessage' ? message : found;
  }

  /** The server's database, read-only, for the exactly-once checks. */
  async openDatabase(): Promise<ServerDatabase> {
    const { postgres, dataDir } = this.workspace;
    if (!postgres) return openSqliteReader(dataDir);
    this.postgresReader ??= new pg.Pool({ connectionString: postgres.databaseUrl, max: 1, types: numericInt8 });
    return postgresReader(await this.postgresReader.connect());
  }

  /**
   * Stops every node; `keepData` stops them cleanly (SIGTERM) so the workspace can be copied: PostgreSQL copies a
   * database only while nobody is connected to it.
   */
  async close({ keepData = false } = {}): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.stop(keepData ? 'SIGTERM' : 'SIGKILL')));
    await this.postgresReader?.end();
    if (!keepData) await removeWorkspace(this.workspace);
  }
}

/** Read-only SQL on a server's database: the same statements on SQLite and on PostgreSQL. */
export interface ServerDatabase {
  /** Runs one statement with `?` placeholders; counts and bigint columns come back as numbers. */
  query<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** A field of a JSON object stored as text, the one expression the dialects spell differently. */
  jsonField(column: string, field: string): string;
  /** ORDER BY terms for sync_mutations in the order the server wrote them. */
  readonly writeOrder: string;
  /** Done reading: closes the SQLite file, or gives the PostgreSQL connection back for the next check. */
  close(): Promise<void>;
}

function openSqliteReader(dataDir: string): ServerDatabase {
  const db = new Database(join(dataDir, 'workspace.db'), { readonly: true, fileMustExist: true });
  return {
    query: async <T>(sql: string, params: readonly unknown[] = []) => db.prepare(sql).all(...params) as T[],
    jsonField: (column, field) => `json_extract(${column}, '$.${field}')`,
    writeOrder: 'rowid',
    close: async () => {
      db.close();
    },
  };
}

/** int8 (count(*), the bigint ids) as a number, not pg's default string: the values here are small. */
const numericInt8 = new pg.TypeOverrides();
numericInt8.setTypeParser(pg.types.builtins.INT8, Number);

function postgresReader(client: pg.PoolClient): ServerDatabase {
  return {
    query: async <T>(sql: string, params: readonly unknown[] = []) => {
      let placeholder = 0;
      const text = sql.replace(/\?/g, () => `$${++placeholder}`);
      return (await client.query(text, [...params])).rows as T[];
    },
    jsonField: (column, field) => `(${column}::jsonb ->> '${field}')`,
    // No rowid: the time each was processed (to the millisecond, statement_timestamp), then the id.
    writeOrder: 'processed_at, mutation_id',
    close: async () => client.release(),
  };
}

/** What a client's network does to its next requests. */
export interface ClientFaults {
  online: boolean;
  tokenExpired: boolean;
  /** A one-shot fault for the next push that reaches the server. */
  nextPush: PushFault | null;
  /** `kill -9` its node during the next request (a push, or a pull when there is nothing to push). */
  crashNextRequest: boolean;
}
export type PushFault = 'dropAnswer' | 'duplicate' | 'outOfOrder';

export interface FaultTransportDeps {
  client: string;
  /** The node this client's requests go to. */
  node: ServerNode;
  /** Where a load balancer sends a retry that races the original: another node when there is one. */
  retryNode: ServerNode;
  session: Session;
  /** Its own generator: how often the transport draws depends on timing, the seed's steps must not. */
  random: Random;
  trace: Trace;
  ledger: Ledger;
  injected(kind: FaultKind): void;
}

const networkError = (why: string) => new ApiError(0, 'network', why);

/**
 * The engine's wire calls to the real server, like `networkTransport` in engine-server.test.ts, with
 * faults: offline, an expired token, and for the next push an answer lost after the commit, the
 * request sent twice, a later slice of the batch sent before the earlier one, or its node killed.
 */
export class FaultTransport implements SyncTransport, WindowCountsSource {
  readonly faults: ClientFaults = { online: true, tokenExpired: false, nextPush: null, crashNextRequest: false };
  /** The client and its node in the trace's lines of requests, "alice@node1". */
  private readonly who: string;

  constructor(private readonly deps: FaultTransportDeps) {
    this.who = this.via(deps.node);
  }

  private via(node: ServerNode): string {
    return `${this.deps.client}@node${node.index}`;
  }

  private async call<T>(path: string, init: RequestInit, body?: string, node = this.deps.node): Promise<T> {
    const { session } = this.deps;
    const who = this.via(node);
    if (!this.faults.online) {
      this.deps.injected('offline');
      throw networkError('offline');
    }
    const token = this.faults.tokenExpired ? session.expiredToken : session.token;
    let response: Response;
    let answer: T & { code?: string; message?: string };
    try {
      response = await fetch(`${node.url}/api${path}`, {
        ...init,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body }),
      });
      answer = (await response.json()) as T & { code?: string; message?: string };
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      const why = `${error instanceof Error ? error.message : String(error)}${cause}`;
      this.deps.trace.add(`${who} ${path.split('?')[0]} → no answer (${why})`);
      throw networkError(why);
    }
    if (!response.ok) {
      if (response.status === 401 && this.faults.tokenExpired) this.deps.injected('expiredToken');
      this.deps.trace.add(`${who} ${path.split('?')[0]} → ${response.status} ${answer.code}`);
      throw new ApiError(response.status, answer.code ?? 'internal', answer.message ?? '');
    }
    return answer;
  }

  private send(request: PushRequest, node = this.deps.node): Promise<PushResponse> {
    return this.call<PushResponse>('/sync/push', { method: 'POST' }, JSON.stringify(request), node);
  }

  private heard(
    request: PushRequest,
    answer: PushResponse,
    how: string,
    delivered: boolean,
    node = this.deps.node,
  ): void {
    this.deps.ledger.record(this.deps.client, answer.outcomes, delivered);
    const outcomes = answer.outcomes.map(describeOutcome).join(', ') || 'gap, nothing applied';
    this.deps.trace.add(
      `${this.via(node)} push [${idRange(request.mutations.map((m) => m.id))}]${how} → ${outcomes}` +
        ` (last ${answer.lastMutationId})${delivered ? '' : ', answer lost'}`,
    );
  }

  /**
   * Starts the request, kills this client's node 0–15 ms later, restarts it, and lets the request end as it will;
   * the other nodes serve their clients meanwhile.
   */
  private async crashDuring<T>(what: string, sending: Promise<T>): Promise<T> {
    this.faults.crashNextRequest = false;
    let answered = false;
    sending.then(
      () => (answered = true),
      () => undefined,
    );
    const delay = this.deps.random.int(16);
    await sleep(delay);
    const { node, client } = this.deps;
    await node.killAndRestart();
    this.deps.injected('serverCrash');
    this.deps.trace.add(
      `${node.name} killed -9 ${delay} ms into ${client}'s ${what} (${answered ? 'after' : 'before'} its answer), restarted`,
    );
    return sending;
  }

  async push(request: PushRequest): Promise<PushResponse> {
    const { random } = this.deps;
    if (this.faults.crashNextRequest && this.faults.online) {
      const ids = `[${idRange(request.mutations.map((m) => m.id))}]`;
      const answer = await this.crashDuring(`push ${ids}`, this.send(request));
      this.heard(request, answer, ' (survived the crash)', true);
      return answer;
    }
    // A fault waits for a push that reaches the server; out of order needs two mutations to reorder.
    const fault = this.faults.online ? this.faults.nextPush : null;
    if (fault === 'outOfOrder' && request.mutations.length < 2) return this.plainPush(request);
    if (fault) this.faults.nextPush = null;
    switch (fault) {
      case null:
        return this.plainPush(request);
      case 'dropAnswer': {
        const answer = await this.send(request);
        this.deps.injected('droppedAnswer');
        this.heard(request, answer, '', false);
        throw networkError('connection reset after the server committed');
      }
      case 'duplicate': {
        // The same request twice at once, as a retry racing the original; a load balancer sends the retry to
        // another node, so the two copies meet in the database, each in a transaction of its own node.
        const copies = [this.deps.node, this.deps.retryNode];
        const [first, second] = await Promise.allSettled(
          copies.map(async (node) => ({ node, answer: await this.send(request, node) })),
        );
        const answers = [first, second].flatMap((result) => (result?.status === 'fulfilled' ? [result.value] : []));
        if (answers.length > 0) this.deps.injected('duplicatePush');
        const kept = random.int(answers.length);
        answers.forEach(({ answer, node }, index) =>
          this.heard(request, answer, ' (sent twice)', index === kept, node),
        );
        const delivered = answers[kept]?.answer;
        if (delivered) return delivered;
        throw first?.status === 'rejected' ? first.reason : networkError('both copies failed');
      }
      case 'outOfOrder': {
        // A later slice of the batch overtakes the earlier one; the server must answer it with a gap.
        const split = 1 + random.int(request.mutations.length - 1);
        const later = { ...request, mutations: request.mutations.slice(split) };
        const earlier = { ...request, mutations: request.mutations.slice(0, split) };
        const overtaking = await this.send(later);
        this.deps.injected('outOfOrderBatch');
        this.heard(later, overtaking, ' (out of order)', false);
        const answer = await this.send(earlier);
        this.heard(earlier, answer, ' (after the overtaking slice)', true);
        return answer;
      }
    }
  }

  private async plainPush(request: PushRequest): Promise<PushResponse> {
    const answer = await this.send(request);
    this.heard(request, answer, '', true);
    return answer;
  }

  async pull({ clientId, cursor, limit, snapshot }: PullQuery): Promise<PullResponse> {
    const resume = snapshot ? `&snapshot=${snapshot}` : '';
    const sending = this.call<PullResponse>(
      `/sync/pull?clientId=${clientId}&cursor=${cursor}&limit=${limit}${resume}`,
      {
        method: 'GET',
      },
    );
    const crash = this.faults.crashNextRequest && this.faults.online;
    const page = await (crash ? this.crashDuring(`pull from ${cursor}`, sending) : sending);
    this.deps.trace.add(
      `${this.who} pull from ${cursor} → ${page.changes.length} changes${page.reset ? ' (bootstrap)' : ''},` +
        ` cursor ${page.cursor}, last mutation ${page.lastMutationId}`,
    );
    return page;
  }

  /** What lies before a device's window, for its window keeper (issue 46): through the same faults as a pull. */
  windowCounts(query: WindowCountsQuery): Promise<WindowCounts> {
    return this.call<WindowCounts>('/sync/window-counts', { method: 'POST' }, JSON.stringify(query));
  }

  async upload(clientId: string, entry: OutboxEntry): Promise<MutationOutcome | 'gap'> {
    if (!this.faults.online) {
      this.deps.injected('offline');
      throw networkError('offline');
    }
    const form = uploadForm(clientId, entry);
    const token = this.faults.tokenExpired ? this.deps.session.expiredToken : this.deps.session.token;
    let response: Response;
    let body: UploadOutcomeResponse & { code?: string; message?: string };
    try {
      response = await fetch(`${this.deps.node.url}/api/messages/upload`, {
        method: 'POST',
        body: form,
        headers: { authorization: `Bearer ${token}` },
      });
      body = (await response.json()) as typeof body;
    } catch (error) {
      throw networkError(error instanceof Error ? error.message : String(error));
    }
    if (!response.ok) {
      if (response.status === 401 && this.faults.tokenExpired) this.deps.injected('expiredToken');
      this.deps.trace.add(`${this.who} upload #${entry.id} → ${response.status} ${body.code}`);
      throw new ApiError(response.status, body.code ?? 'internal', body.message ?? '');
    }
    const drop = this.faults.nextPush === 'dropAnswer';
    if (drop) this.faults.nextPush = null;
    if (body.outcome !== 'gap') this.deps.ledger.record(this.deps.client, [body.outcome], !drop);
    this.deps.trace.add(
      `${this.who} upload #${entry.id} → ${body.outcome === 'gap' ? 'gap' : describeOutcome(body.outcome)}` +
        `${drop ? ', answer lost' : ''}`,
    );
    if (drop) {
      this.deps.injected('droppedAnswer');
      throw networkError('connection reset after the server committed');
    }
    return body.outcome;
  }
}

type Row = Record<string, unknown>;

/** Fields only the device keeps (data/db.ts): the mark of an unconfirmed write, the bell's index key. */
const localOnlyFields = new Set(['pending', 'unread', 'unreadAt']);

/** Stands for a person's name copied into a row of another entity. */
const copiedName = '(the users table names them)';

type Person = { name?: unknown } | null | undefined;
const unnamed = <P extends Person>(person: P): P =>
  person && typeof person === 'object' ? { ...person, name: copiedName } : person;
const each = <T>(list: unknown, map: (item: T) => T): unknown => (Array.isArray(list) ? list.map(map) : list);

/**
 * A row with the names it copies of people (a task's assignee, a message's author ...) left out. Every
 * screen names people from the users table by id (data/people.ts), so a rename shows at once although
 * other devices' copies keep the old name until the row changes; the users table itself is compared whole.
 */
function withoutCopiedNames(entity: string, row: Row): Row {
  switch (entity) {
    case 'task':
      return {
        ...row,
        assignedTo: unnamed(row.assignedTo as Person),
        assignedBy: unnamed(row.assignedBy as Person),
        comments: each<Row>(row.comments, (comment) => ({ ...comment, userName: copiedName })),
        statusHistory: each<Row>(row.statusHistory, (entry) => ({
          ...entry,
          updatedBy: unnamed(entry.updatedBy as Person),
        })),
      };
    case 'chatMessage':
      return { ...row, userId: unnamed(row.userId as Person), userName: copiedName };
    case 'directMessage':
      return { ...row, sender: unnamed(row.sender as Person) };
    case 'conversation': {
      const last = row.lastMessage as Row | null;
      return {
        ...row,
        participants: each<Person>(row.participants, unnamed),
        lastMessage: last ? withoutCopiedNames('directMessage', last) : last,
      };
    }
    case 'notification':
      return { ...row, sender: unnamed(row.sender as Person) };
    default:
      return row;
  }
}

/** The server's current state of a message outside its window, for a device that still holds it. */
export type CurrentMessage = (entity: 'chatMessage' | 'directMessage', row: Row) => Promise<Row | null>;

/**
 * One line per difference between a client's synced tables and the server's bootstrap for that user: the device
 * holds every row of the server's window as the server has it, but for messages of a time it does not claim to hold
 * (outside the spans it holds whole: a deleted message's place in the server's window is taken by an older one the
 * device had evicted). A message the device holds outside the window (the cache its window keeper has not evicted
 * yet) must be as the server has it now (`current`); any other row on the device only is a difference. Names copied
 * into other rows are not compared (`withoutCopiedNames`).
 */
export async function diffAgainstBootstrap(
  db: WorkspaceDb,
  bootstrap: PullResponse,
  current: CurrentMessage,
): Promise<string[]> {
  const differences: string[] = [];
  for (const entity of entityNames) {
    const table = entityTables[entity];
    const expected = new Map<string, Row>();
    for (const change of bootstrap.changes)
      if (change.entity === entity && change.op === 'put')
        expected.set(change.id, withoutCopiedNames(entity, change.data));
    const actual = new Map<string, Row>();
    for (const row of await db.table<Row, string>(table).toArray()) {
      const synced = Object.fromEntries(Object.entries(row).filter(([key]) => !localOnlyFields.has(key)));
      actual.set(String(row.id), withoutCopiedNames(entity, synced));
    }
    for (const [id, row] of actual) {
      const cached = entity === 'chatMessage' || entity === 'directMessage';
      const server = expected.get(id) ?? (cached ? await currentRow(entity, row, current) : undefined);
      if (!server) {
        differences.push(`${table} ${short(id)}: on the device only: ${clip(row)}`);
        continue;
      }
      if (isDeepStrictEqual(row, server)) continue;
      const keys = [...new Set([...Object.keys(row), ...Object.keys(server)])].filter(
        (key) => !isDeepStrictEqual(row[key], server[key]),
      );
      for (const key of keys)
        differences.push(`${table} ${short(id)}.${key}: device ${clip(row[key])}, server ${clip(server[key])}`);
    }
    for (const [id, row] of expected)
      if (!actual.has(id) && (await claimsToHold(db, entity, row)))
        differences.push(`${table} ${short(id)}: on the server only: ${clip(row)}`);
  }
  return differences;
}

/** Whether the device says it holds this row of the server's: a message only within the spans it holds whole. */
async function claimsToHold(db: WorkspaceDb, entity: EntityName, row: Row): Promise<boolean> {
  if (entity === 'chatMessage')
    return spansHold(rangeOrWhole(await db.historyRanges.get(teamChatKey), teamChatKey).spans, String(row.timestamp));
  if (entity === 'directMessage') {
    const key = String(row.conversationId);
    return spansHold(rangeOrWhole(await db.historyRanges.get(key), key).spans, String(row.createdAt));
  }
  return true;
}

async function currentRow(
  entity: 'chatMessage' | 'directMessage',
  row: Row,
  current: CurrentMessage,
): Promise<Row | undefined> {
  const server = await current(entity, row);
  return server ? withoutCopiedNames(entity, server) : undefined;
}

const clip = (value: unknown): string => {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};
