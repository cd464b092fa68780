import { setTimeout as sleep } from 'node:timers/promises';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import type { PostgresTimeouts } from '../config';
import type { Db } from './client';
import { advisoryLocks } from './advisory-locks';
import { dialect } from './dialect';
import { migrationsFolder } from './migrations-folder';
import * as schema from './schema-pg';

/** Connections one node keeps open: enough for the writes of one node's event loop, and its reads beside them. */
const POOL_SIZE = 10;
/** Longer than any query a closing node still runs; shorter than anyone would wait for a node to stop. */
const STRAY_CLIENT_GRACE_MS = 250;
/** How long a node waits for a connection of its pool (a new one, or a busy pool's next free one). */
const CONNECT_TIMEOUT_MS = 5_000;
/** Quiet time on a connection before TCP asks whether the other end is still there (both ends ask). */
const KEEPALIVE_IDLE_MS = 10_000;
/** PostgreSQL's side of TCP keepalives: probes this far apart, this many unanswered before it drops the client. */
const SERVER_KEEPALIVE = { intervalSeconds: 2, count: 3 };
/** On top of the statement timeout: PostgreSQL's own answer to a statement that ran out of time travels back. */
const ANSWER_GRACE_MS = 5_000;

/**
 * How long a starting node waits for another to finish migrating or seeding: a migration that rewrites a large table
 * takes minutes; a node that held the lock longer than this is stuck, and the one waiting says so and exits.
 */
const STARTUP_LOCK_WAIT_MS = 10 * 60_000;
/** How often a starting node asks again for the startup lock. */
const STARTUP_LOCK_POLL_MS = 200;

/** The first PostgreSQL version with `transaction_timeout` (its server_version_num). */
const TRANSACTION_TIMEOUT_SINCE = 170_000;

/**
 * The settings a node's sessions start with (pg's `options`): commits durable whatever the server's default, and
 * every wait bounded (see PostgresTimeouts). `transaction_timeout` only where the server knows it: an older one
 * would refuse the connection.
 */
function sessionOptions(timeouts: PostgresTimeouts, serverVersion: number): string {
  const settings: Record<string, number | string> = {
    // Whatever the server's default, a commit returns once it is on disk.
    synchronous_commit: 'on',
    statement_timeout: timeouts.statementMs,
    lock_timeout: timeouts.lockMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
    tcp_keepalives_idle: KEEPALIVE_IDLE_MS / 1000,
    tcp_keepalives_interval: SERVER_KEEPALIVE.intervalSeconds,
    tcp_keepalives_count: SERVER_KEEPALIVE.count,
  };
  if (serverVersion >= TRANSACTION_TIMEOUT_SINCE) settings.transaction_timeout = timeouts.transactionMs;
  return Object.entries(settings)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
}

/** The server's version number (170002 for 17.2): asked once, before the pool is made. */
async function serverVersionOf(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version_num: string }>('SHOW server_version_num');
    return Number(rows[0]?.server_version_num ?? 0);
  } finally {
    await client.end();
  }
}

/**
 * Takes the startup lock on `client`'s session. It asks again and again instead of waiting in one statement, which
 * the session's lock and statement timeouts would end long before another node's migration or seed has finished.
 */
async function takeStartupLock(client: pg.ClientBase): Promise<void> {
  const deadline = Date.now() + STARTUP_LOCK_WAIT_MS;
  for (;;) {
    const { rows } = await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1) AS taken', [
      advisoryLocks.startup,
    ]);
    if (rows[0]?.taken) return;
    if (Date.now() > deadline) {
      throw new Error(
        `Another node has been migrating or seeding this database for ${STARTUP_LOCK_WAIT_MS / 60_000} minutes; ` +
          'it may be stuck (see pg_locks for the session holding the startup lock).',
      );
    }
    await sleep(STARTUP_LOCK_POLL_MS);
  }
}

/**
 * Applies the committed migrations on a connection of their own, outside the pool's bounds (a migration may rewrite
 * a large table), while holding the startup lock: nodes that start together migrate one after the other, and the
 * later ones find nothing left to do. The lock goes with the session.
 */
async function migrateExclusively(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  await client.connect();
  try {
    await takeStartupLock(client);
    await migrate(drizzle({ client, casing: 'snake_case' }), { migrationsFolder: migrationsFolder('drizzle-pg') });
  } finally {
    await client.end();
  }
}

/**
 * Connects to the PostgreSQL of DATABASE_URL and applies the committed migrations of api/drizzle-pg (see
 * migrateExclusively). A write is acknowledged once PostgreSQL has committed it to disk: `synchronous_commit` is on
 * for every connection. Every session is bounded by `timeouts` and TCP keepalives, and the node gives up on an answer
 * that has not come a while after the statement timeout (a connection cut without a reset): a frozen or cut-off node
 * holds nothing for long, and its own requests fail (503) instead of hanging.
 *
 * The handle is typed as the SQLite one: the domain's queries are written once, against the tables of schema.ts,
 * which are the PostgreSQL ones in this process (see dialect.ts).
 */
export async function openPostgres(
  url: string,
  timeouts: PostgresTimeouts,
): Promise<{ db: Db; close: () => Promise<void> }> {
  await migrateExclusively(url);
  const options = sessionOptions(timeouts, await serverVersionOf(url));
  // Pipelined: statements a transaction sends ahead travel together (see postgres-transaction.ts). A timed-out answer
  // of a pipelined connection ends the connection (pg cannot tell the answers that follow apart).
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    options,
    pipeline: true,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    ...(timeouts.statementMs ? { query_timeout: timeouts.statementMs + ANSWER_GRACE_MS } : {}),
  });
  const checkedOut = new Set<pg.PoolClient>();
  pool.on('acquire', (client) => checkedOut.add(client));
  pool.on('release', (_error, client) => checkedOut.delete(client));
  // A connection reports its end on itself, where nobody may listen: one lent out (the Socket.IO adapter's LISTEN,
  // a leader's lock) when PostgreSQL restarts, or one still ending after pool.end(), which resolves once it has asked
  // each connection to end, not once they have (a shutdown's FATAL). Unheard, that report would end the process. Every
  // connection is listened to: its holder's queries fail on their own, and the adapter connects again on its end.
  let closing = false;
  pool.on('connect', (client) => {
    client.on('error', (error) => {
      if (!closing && checkedOut.has(client))
        process.emitWarning(`PostgreSQL ended a connection in use: ${error.message}`);
    });
  });
  // An idle connection PostgreSQL ends (a restart, a failover, an administrator) is reported on the pool, which has
  // already dropped it: the next query opens another. Unheard, that report would end the process.
  pool.on('error', (error) => {
    if (!closing) process.emitWarning(`PostgreSQL ended an idle connection: ${error.message}`);
  });
  const db = drizzle({ client: pool, schema, casing: 'snake_case' });
  return {
    db: db as unknown as Db,
    // Called last, once realtime and the push queue have stopped. A query still running then (a last Socket.IO
    // notify) gives its connection back on its own, and releasing it for it would release it twice. A connection
    // still checked out after STRAY_CLIENT_GRACE_MS is one nobody gives back (the Socket.IO adapter's listener,
    // when the node closes while it is still connecting), and the pool would wait for it for ever.
    close: async () => {
      closing = true;
      const ended = pool.end();
      const settled = await Promise.race([ended.then(() => true), sleep(STRAY_CLIENT_GRACE_MS, false, { ref: false })]);
      if (!settled) for (const client of checkedOut) client.release(true);
      await ended;
    },
  };
}

export type PoolClient = pg.PoolClient;

/** Runs `work` while holding the startup lock on one connection of the pool. */
export async function withStartupLock<T>(pool: { connect(): Promise<PoolClient> }, work: () => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A connection lost while held fails the statements; its 'error' event must not end the process.
  let lost: Error | undefined;
  const onLost = (error: Error) => {
    lost = error;
  };
  client.on('error', onLost);
  try {
    await takeStartupLock(client);
    try {
      return await work();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [advisoryLocks.startup]);
    }
  } finally {
    client.off('error', onLost);
    client.release(lost);
  }
}

/** The connection pool behind a PostgreSQL handle (realtime across nodes shares it); null on SQLite. */
export const poolOf = (db: Db): pg.Pool | null => (dialect === 'postgres' ? (db.$client as unknown as pg.Pool) : null);
