import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { startServerProcess, stopServerProcess, type ServerProcess } from '../api/server-process';
import { percentiles, type Measure } from './measure';
import { call, signInAll, type BenchSession } from './session';
import type { SeededUser } from './seed-org';

/** The freeze: node B stopped this long in the middle of a write; node A's p99 during it at most 1 s. */
const FREEZE_MS = 30_000;
const QUICK_FREEZE_MS = 10_000;
const FROZEN_P99_TARGET_MS = 1_000;
/** Chat POSTs in flight on the node that freezes (as in the issue), and on the node that goes on. */
const IN_FLIGHT_ON_B = 16;
const IN_FLIGHT_ON_A = 8;
/** Longer than any transaction of a node in good health: one still open after it is caught by the freeze. */
const CAUGHT_MS = 300;
/** Node B writes all the time: if it is not caught inside a transaction by then, something else is wrong. */
const CATCH_WITHIN_MS = 30_000;

export interface NodeFreezeOptions {
  bundle: string;
  /** The nodes' environment (DATABASE_URL through the bench's delaying link, the shared secrets). */
  env: Record<string, string>;
  /** The database itself, for the checks and for watching node B's open transactions. */
  databaseUrl: string;
  /** Uploads' folder the two nodes share. */
  dataDir: string;
  users: SeededUser[];
  quick: boolean;
  log: (line: string) => void;
}

interface Post {
  id: string;
  startedAt: number;
  ms: number;
  status: number;
}

/** Chat POSTs, `inFlight` at a time, on `url` by `sessions` in turn until stopped; every answer is kept. */
function postChat(url: string, sessions: BenchSession[], inFlight: number) {
  const posts: Post[] = [];
  let stopped = false;
  let next = 0;
  const loop = async () => {
    while (!stopped) {
      const session = sessions[next++ % sessions.length] as BenchSession;
      const id = randomUUID();
      const startedAt = Date.now();
      let status = 0;
      try {
        status = (await call(url, session.token, 'POST', '/api/messages', { id, text: `Freeze ${id}` })).status;
      } catch {
        // The request was never answered (a frozen node's connection closed): a client retries it by its id.
      }
      posts.push({ id, startedAt, ms: Date.now() - startedAt, status });
    }
  };
  const loops = Array.from({ length: inFlight }, loop);
  return {
    posts,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/** Node B's transactions open right now that have written. */
async function openWritesOfB(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'bench-node-b' AND backend_xid IS NOT NULL",
  );
  return rows[0]?.n ?? 0;
}

/** Stops B while a transaction of its has written: one that committed between the look and the stop is let go. */
async function freezeMidWrite(b: ServerProcess, client: pg.Client): Promise<void> {
  const deadline = Date.now() + CATCH_WITHIN_MS;
  for (let attempt = 1; attempt <= 50; attempt++) {
    while ((await openWritesOfB(client)) === 0) {
      if (Date.now() > deadline) throw new Error(`node B had no transaction open within ${CATCH_WITHIN_MS / 1000} s`);
      await sleep(5);
    }
    process.kill(b.pid, 'SIGSTOP');
    await sleep(CAUGHT_MS);
    if ((await openWritesOfB(client)) > 0) return;
    process.kill(b.pid, 'SIGCONT');
  }
  throw new Error('node B was never caught inside a transaction of its');
}

/**
 * Two nodes take chat POSTs; node B is frozen (SIGSTOP) in the middle of a write for 30 s, as a long GC pause or a
 * stopped VM looks to PostgreSQL. Measures node A's answers during the freeze, and checks once B thaws that every
 * acknowledged message is stored once.
 */
export async function measureNodeFreeze({
  bundle,
  env,
  databaseUrl,
  dataDir,
  users,
  quick,
  log,
}: NodeFreezeOptions): Promise<Measure[]> {
  const freezeMs = quick ? QUICK_FREEZE_MS : FREEZE_MS;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const nodes: ServerProcess[] = [];
  try {
    // PGAPPNAME names each node's sessions in pg_stat_activity (node-postgres reads it).
    const a = await startServerProcess({ bundle, dataDir, env: { ...env, PGAPPNAME: 'bench-node-a' } });
    nodes.push(a);
    const b = await startServerProcess({ bundle, dataDir, env: { ...env, PGAPPNAME: 'bench-node-b' } });
    nodes.push(b);
    const sessions = await signInAll(a.url, users);
    // A person works on one node: B's writers and A's are different people, so no row of one waits for the other.
    const half = Math.ceil(sessions.length / 2);
    const onB = postChat(b.url, sessions.slice(0, half), IN_FLIGHT_ON_B);
    await sleep(2_000);
    log(`node freeze: B stopped mid-write for ${freezeMs / 1000} s`);
    await freezeMidWrite(b, client);
    const frozenAt = Date.now();
    const onA = postChat(a.url, sessions.slice(half), IN_FLIGHT_ON_A);
    await sleep(freezeMs - CAUGHT_MS);
    process.kill(b.pid, 'SIGCONT');
    const thawedAt = Date.now();
    await sleep(3_000);
    await Promise.all([onA.stop(), onB.stop()]);

    const duringFreeze = onA.posts.filter((post) => post.startedAt >= frozenAt && post.startedAt < thawedAt);
    const latency = percentiles(duringFreeze.map((post) => post.ms));
    const failedOnA = duringFreeze.filter((post) => post.status !== 201).length;
    const acknowledged = [...onA.posts, ...onB.posts].filter((post) => post.status === 201).map((post) => post.id);
    const { rows } = await client.query<{ id: string; n: number }>(
      'SELECT id::text, count(*)::int AS n FROM chat_messages WHERE id = ANY($1) GROUP BY id',
      [acknowledged],
    );
    const once = rows.filter((row) => row.n === 1).length;
    const refusedOnB = onB.posts.filter((post) => post.status !== 201).length;
    return [
      {
        name: `A node frozen (SIGSTOP) mid-write for ${freezeMs / 1000} s: the other node's chat POSTs during the freeze (${IN_FLIGHT_ON_A} in flight)`,
        target: `p99 ≤ ${FROZEN_P99_TARGET_MS} ms, none failed`,
        result: `p50 ${latency.p50} / p95 ${latency.p95} / p99 ${latency.p99} / max ${latency.max} ms; ${duringFreeze.length - failedOnA} acknowledged, ${failedOnA} failed`,
        met: latency.p99 <= FROZEN_P99_TARGET_MS && failedOnA === 0 && duringFreeze.length > 0,
        values: { ...latency, acknowledged: duringFreeze.length - failedOnA, failed: failedOnA, freezeMs },
        note: `Node B took ${IN_FLIGHT_ON_B} chat POSTs in flight and was stopped while one of its transactions had written; PostgreSQL ends that transaction after PG_IDLE_IN_TRANSACTION_TIMEOUT_MS (5 s by default). The nodes share 2 cores with PostgreSQL and the load generator.`,
      },
      {
        name: 'After the thaw: every acknowledged chat message of both nodes is stored once',
        target: 'all, once',
        result: `${once} of ${acknowledged.length} stored once; node B refused or dropped ${refusedOnB} (a client retries those by their id)`,
        met: once === acknowledged.length && rows.length === acknowledged.length,
        values: { acknowledged: acknowledged.length, storedOnce: once, refusedOnB },
      },
    ];
  } finally {
    for (const node of nodes) process.kill(node.pid, 'SIGCONT');
    await Promise.all(nodes.map((node) => stopServerProcess(node, 'SIGTERM')));
    await client.end();
  }
}
