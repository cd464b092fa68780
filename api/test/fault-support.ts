import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { get as httpGet, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll } from 'vitest';
import { inDays, sleep } from './support';
import { uuidv7, type Mutation, type PushResponse, type User } from '@office/sync-protocol';
import { DEMO_PASSWORD } from '../src/db/seed';
import {
  bundleServerCopy,
  removeDataDir,
  startServerProcess,
  stopServerProcess,
  type ServerProcess,
  type ServerProcessOptions,
} from '../server-process';

/**
 * Child servers for one test file: the bundle is built before its tests; every process started
 * through `start` is killed, and every data dir from `newDataDir` removed, after them, even when one
 * failed. A test that timed out runs on in the background: a start it began is awaited and stopped,
 * and later starts are refused.
 */
export function useChildServers() {
  let bundle: string | undefined;
  let over = false;
  const processes: ServerProcess[] = [];
  const starting = new Set<Promise<ServerProcess>>();
  const dataDirs: string[] = [];

  beforeAll(async () => {
    bundle = await bundleServerCopy();
  });
  afterAll(async () => {
    over = true;
    await Promise.allSettled(starting);
    await Promise.all(processes.splice(0).map((server) => stopServerProcess(server)));
    for (const dir of dataDirs) removeDataDir(dir);
    if (bundle) rmSync(bundle, { force: true });
  });

  return {
    /** A fresh data dir, removed after the file's tests. */
    newDataDir(): string {
      const dir = mkdtempSync(join(tmpdir(), 'office-fault-'));
      dataDirs.push(dir);
      return dir;
    },
    async start(options: Omit<ServerProcessOptions, 'bundle'>): Promise<ServerProcess> {
      if (!bundle || over) throw new Error('child servers start only during the tests of their file');
      const started = startServerProcess({ ...options, bundle });
      starting.add(started);
      try {
        const server = await started;
        processes.push(server);
        return server;
      } finally {
        starting.delete(started);
      }
    },
  };
}

/** An HTTP answer from a child server: status, headers and the body (see `parseBody`). */
export interface HttpAnswer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** One JSON request against a child server; rejects only on network errors (a killed server). */
export async function callJson<T = unknown>(
  baseUrl: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  options: { token?: string; body?: unknown } = {},
): Promise<HttpAnswer<T>> {
  const headers: Record<string, string> = {};
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, headers: res.headers, body: parseBody(await res.text()) as T };
}

/** A JSON body parsed, an empty one as null, anything else as its text (so a test shows it). */
function parseBody(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A GET on a connection of its own (node:http without an agent): surely a new client, not a pooled connection. */
export function getOnNewConnection(
  url: string,
  token?: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, {
      agent: false,
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parseBody(text) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer from ${url} in 10 s`)));
  });
}

export interface HttpSession {
  token: string;
  user: User;
}

/** Signs a demo user in over HTTP. */
export async function signInOverHttp(baseUrl: string, email: string): Promise<HttpSession> {
  const res = await callJson<HttpSession>(baseUrl, 'POST', '/api/auth/login', {
    body: { email, password: DEMO_PASSWORD },
  });
  if (res.status !== 200) throw new Error(`sign-in of ${email} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Opens the server's SQLite file read-only for `read`, then closes it. */
export function readDatabase<T>(dataDir: string, read: (db: Database.Database) => T): T {
  const db = new Database(join(dataDir, 'workspace.db'), { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** `PRAGMA integrity_check`: 'ok', or SQLite's list of problems. */
export const integrityCheck = (dataDir: string): string =>
  readDatabase(dataDir, (db) =>
    (db.pragma('integrity_check') as { integrity_check: string }[]).map((row) => row.integrity_check).join('; '),
  );

/** Every write a server acknowledged with a 2xx, by kind, and what else the writers saw. */
export interface WriteLog {
  chatMessageIds: string[];
  taskIds: string[];
  /** Acknowledged sync mutations: the client, mutation id and the unique text of the message it sends. */
  syncMutations: { clientId: string; mutationId: number; text: string }[];
  /** Re-pushed mutations the server answered as duplicates: it had committed them before a crash. */
  syncDuplicates: number;
  /** Answers that were neither 2xx nor a network error, as "status body". */
  refusals: string[];
  networkErrors: number;
}

export const emptyWriteLog = (): WriteLog => ({
  chatMessageIds: [],
  taskIds: [],
  syncMutations: [],
  syncDuplicates: 0,
  refusals: [],
  networkErrors: 0,
});

/**
 * A sync client's outbox that survives server restarts, like the PWA's: mutations stay queued until
 * a push answer acknowledges them (applied, or a duplicate of an applied one), and are pushed again otherwise.
 */
export class SyncOutbox {
  readonly clientId = uuidv7();
  private nextMutationId = 1;
  private readonly queued: (Mutation & { text: string })[] = [];

  constructor(private readonly label: string) {}

  /** Tops the queue up to `size` new chat messages and returns the batch to push. */
  batch(size: number): (Mutation & { text: string })[] {
    while (this.queued.length < size) {
      const id = this.nextMutationId++;
      const text = `${this.label} ${this.clientId} mutation ${id}`;
      this.queued.push({ id, name: 'chat.send', args: { id: uuidv7(), text }, at: new Date().toISOString(), text });
    }
    return this.queued.slice(0, size);
  }

  /** Up to `size` of the queued mutations, adding none. */
  pending(size: number): (Mutation & { text: string })[] {
    return this.queued.slice(0, size);
  }

  /** Drops what the answer acknowledged; returns those acknowledged and any outcome that is not applied. */
  settle(answer: PushResponse): {
    acknowledged: { mutationId: number; text: string; duplicate: boolean }[];
    unexpected: string[];
  } {
    const acknowledged: { mutationId: number; text: string; duplicate: boolean }[] = [];
    const unexpected: string[] = [];
    for (const outcome of answer.outcomes) {
      const index = this.queued.findIndex((mutation) => mutation.id === outcome.id);
      const mutation = this.queued[index];
      if (!mutation) continue;
      const applied =
        outcome.status === 'applied' || (outcome.status === 'duplicate' && outcome.original === 'applied');
      if (applied)
        acknowledged.push({ mutationId: mutation.id, text: mutation.text, duplicate: outcome.status !== 'applied' });
      else unexpected.push(JSON.stringify(outcome));
      this.queued.splice(index, 1);
    }
    return { acknowledged, unexpected };
  }
}

/** Who writes: chat authors, a manager creating tasks for an assignee, and sync clients pushing batches. */
export interface WriterSessions {
  chatAuthors: HttpSession[];
  manager: HttpSession;
  assignee: HttpSession;
  syncClients: { session: HttpSession; outbox: SyncOutbox }[];
}

/**
 * Concurrent writers against one server until `stop()`: each loops on its own kind of write and logs
 * what got a 2xx. After a network error or a refusal it backs off briefly, as a client would.
 */
export function startWriters(
  baseUrl: string,
  sessions: WriterSessions,
  { log = emptyWriteLog(), syncBatchSize = 2 }: { log?: WriteLog; syncBatchSize?: number } = {},
) {
  let stopped = false;
  let inFlight = 0;
  const backOffMs = 20;

  /** Each writer's count of 2xx answers, by its index in `writes`. */
  const acknowledgedBy: number[] = [];

  async function loop(writer: number, write: () => Promise<boolean>): Promise<void> {
    acknowledgedBy[writer] = 0;
    while (!stopped) {
      let ok = false;
      inFlight += 1;
      try {
        ok = await write();
      } catch {
        log.networkErrors += 1;
      } finally {
        inFlight -= 1;
      }
      if (ok) acknowledgedBy[writer] = (acknowledgedBy[writer] ?? 0) + 1;
      else if (!stopped) await sleep(backOffMs);
    }
  }

  const refused = (res: HttpAnswer) => {
    log.refusals.push(`${res.status} ${JSON.stringify(res.body)}`);
    return false;
  };

  const chat = (author: HttpSession) => async () => {
    const id = uuidv7();
    const res = await callJson(baseUrl, 'POST', '/api/messages', {
      token: author.token,
      body: { id, text: `durable chat ${id}` },
    });
    if (res.status !== 201) return refused(res);
    log.chatMessageIds.push(id);
    return true;
  };

  const task = async () => {
    const id = uuidv7();
    const res = await callJson(baseUrl, 'POST', '/api/tasks', {
      token: sessions.manager.token,
      body: { id, title: `Durable task ${id}`, assignedTo: sessions.assignee.user.id, dueDate: inDays(7) },
    });
    if (res.status !== 201) return refused(res);
    log.taskIds.push(id);
    return true;
  };

  const push = (session: HttpSession, outbox: SyncOutbox) => async () => {
    const mutations = outbox.batch(syncBatchSize).map(({ text: _text, ...mutation }) => mutation);
    const res = await callJson<PushResponse>(baseUrl, 'POST', '/api/sync/push', {
      token: session.token,
      body: { clientId: outbox.clientId, mutations },
    });
    if (res.status !== 200) return refused(res);
    const { acknowledged, unexpected } = outbox.settle(res.body);
    for (const { mutationId, text, duplicate } of acknowledged) {
      log.syncMutations.push({ clientId: outbox.clientId, mutationId, text });
      if (duplicate) log.syncDuplicates += 1;
    }
    log.refusals.push(...unexpected);
    return true;
  };

  const writes = [
    ...sessions.chatAuthors.map(chat),
    task,
    ...sessions.syncClients.map(({ session, outbox }) => push(session, outbox)),
  ];
  const running = writes.map((write, writer) => loop(writer, write));

  return {
    log,
    /** How many writes have been sent and not yet answered. */
    inFlight: () => inFlight,
    /** Whether every writer has had at least one write acknowledged. */
    allAcknowledged: () => acknowledgedBy.every((count) => count > 0),
    /** Stops starting new writes and resolves once each writer's last request has settled. */
    async stop(): Promise<WriteLog> {
      stopped = true;
      await Promise.all(running);
      return log;
    },
  };
}

/** The acknowledged writes missing from the database, and sync mutations that took effect other than once. */
export function lostWrites(dataDir: string, log: WriteLog): string[] {
  return readDatabase(dataDir, (db) => {
    const ids = (sql: string) =>
      new Set(
        db
          .prepare<[], { id: string }>(sql)
          .all()
          .map((row) => row.id),
      );
    const chat = ids('SELECT id FROM chat_messages');
    const tasks = ids('SELECT id FROM tasks');
    const problems = [
      ...log.chatMessageIds.filter((id) => !chat.has(id)).map((id) => `chat message ${id} is missing`),
      ...log.taskIds.filter((id) => !tasks.has(id)).map((id) => `task ${id} is missing`),
    ];
    // Applied: at or below the client's last mutation id, with no refusal stored.
    const progress = db.prepare<[string], { last: number }>(
      'SELECT last_mutation_id AS last FROM sync_clients WHERE client_id = ?',
    );
    const refusal = db.prepare<[string, number], { code: string | null }>(
      'SELECT code FROM sync_mutations WHERE client_id = ? AND mutation_id = ?',
    );
    const textCounts = new Map(
      db
        .prepare<[], { text: string; n: number }>('SELECT text, count(*) AS n FROM chat_messages GROUP BY text')
        .all()
        .map((row) => [row.text, row.n]),
    );
    for (const { clientId, mutationId, text } of log.syncMutations) {
      const last = progress.get(clientId)?.last ?? 0;
      const refused = refusal.get(clientId, mutationId);
      if (mutationId > last || refused)
        problems.push(
          `sync mutation ${clientId}/${mutationId} is not recorded as applied (last id ${last}, refusal ${JSON.stringify(refused)})`,
        );
      const times = textCounts.get(text) ?? 0;
      if (times !== 1) problems.push(`sync mutation ${clientId}/${mutationId} took effect ${times} times`);
    }
    return problems;
  });
}

/** A file part whose bytes are generated while sending, so neither side needs them whole in memory. */
export interface StreamedFile {
  name: string;
  type: string;
  size: number;
  /** The bytes the file starts with (its format's signature), before the random ones. */
  head?: Uint8Array;
}

export interface StreamedUpload<T = unknown> {
  status: number;
  body: T;
  /** SHA-256 of the file bytes sent, to compare with what the server stored. */
  sha256: string;
}

/**
 * Sends a multipart upload with node:http, generating the file's bytes chunk by chunk. With
 * `durationMs` the body is spread over about that long (a slow client). If the server answers before
 * the body is all sent (413), sending stops.
 */
export function streamMultipartUpload<T = unknown>(options: {
  url: string;
  token: string;
  file: StreamedFile;
  fields?: Record<string, string>;
  fileField?: string;
  durationMs?: number;
  chunkBytes?: number;
}): Promise<StreamedUpload<T>> {
  const { file, fields = {}, fileField = 'files', durationMs = 0, chunkBytes = 64 * 1024 } = options;
  const boundary = `----fault-${randomBytes(12).toString('hex')}`;
  const fieldParts = Object.entries(fields)
    .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
    .join('');
  const head = Buffer.from(
    `${fieldParts}--${boundary}\r\nContent-Disposition: form-data; name="${fileField}"; filename="${file.name}"\r\n` +
      `Content-Type: ${file.type}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const hash = createHash('sha256');
  const chunks = Math.max(1, Math.ceil(file.size / chunkBytes));
  const pauseMs = durationMs / chunks;

  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(options.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${options.token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': head.length + file.size + tail.length,
      },
    });
    req.on('response', (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: parseBody(text) as T, sha256: hash.digest('hex') }),
      );
      res.on('error', reject);
    });
    // After an early answer the server may close the connection while we still write: not a failure.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });

    const writeBody = async () => {
      const drained = () =>
        new Promise<void>((wake) => {
          const done = () => {
            req.off('drain', done).off('close', done);
            wake();
          };
          req.on('drain', done).on('close', done);
        });
      if (!req.write(head)) await drained();
      let sent = 0;
      for (let i = 0; i < chunks && !answered && !req.destroyed; i++) {
        const chunk = randomBytes(Math.min(chunkBytes, file.size - sent));
        if (i === 0 && file.head) chunk.set(file.head.subarray(0, chunk.length));
        hash.update(chunk);
        sent += chunk.length;
        if (!req.write(chunk)) await drained();
        if (pauseMs > 0) await sleep(pauseMs);
      }
      if (!answered && !req.destroyed) req.end(tail);
    };
    writeBody().catch(reject);
  });
}

export { seededRandom } from '../seeded-random';
