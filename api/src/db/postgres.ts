import { setTimeout as sleep } from 'node:timers/promises';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import type { Db } from './client';
import { advisoryLocks } from './advisory-locks';
import { dialect } from './dialect';
import { migrationsFolder } from './migrations-folder';
import * as schema from './schema-pg';

/** Connections one node keeps open: enough for the writes of one node's event loop, and its reads beside them. */
const POOL_SIZE = 10;
/** Longer than any query a closing node still runs; shorter than anyone would wait for a node to stop. */
const STRAY_CLIENT_GRACE_MS = 250;

/**
 * Connects to the PostgreSQL of DATABASE_URL and applies the committed migrations of api/drizzle-pg. Nodes that
 * start together migrate one after the other (an advisory lock); the later ones find nothing left to do. A write
 * is acknowledged once PostgreSQL has committed it to disk: `synchronous_commit` is on for every connection.
 *
 * The handle is typed as the SQLite one: the domain's queries are written once, against the tables of schema.ts,
 * which are the PostgreSQL ones in this process (see dialect.ts).
 */
export async function openPostgres(url: string): Promise<{ db: Db; close: () => Promise<void> }> {
  // Whatever the server's default, a commit returns once it is on disk.
  // Pipelined: statements a transaction sends ahead travel together (see postgres-transaction.ts).
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    options: '-c synchronous_commit=on',
    pipeline: true,
  });
  const checkedOut = new Set<pg.PoolClient>();
  pool.on('acquire', (client) => checkedOut.add(client));
  pool.on('release', (_error, client) => checkedOut.delete(client));
  // pool.end() resolves once it has asked each connection to end, not once they have: one still ending may hear
  // PostgreSQL's own goodbye (a shutdown's FATAL) with nobody listening. A closing pool listens on every connection,
  // also one that finishes connecting while it closes.
  let closing = false;
  const ignoreError = () => undefined;
  const connected = new Set<pg.PoolClient>();
  pool.on('connect', (client) => {
    connected.add(client);
    if (closing) client.on('error', ignoreError);
  });
  pool.on('remove', (client) => connected.delete(client));
  // An idle connection PostgreSQL ends (a restart, a failover, an administrator) is reported on the pool, which has
  // already dropped it: the next query opens another. Unheard, that report would end the process.
  pool.on('error', (error) => {
    if (!closing) process.emitWarning(`PostgreSQL ended an idle connection: ${error.message}`);
  });
  const db = drizzle({ client: pool, schema, casing: 'snake_case' });
  await withStartupLock(pool, () => migrate(db, { migrationsFolder: migrationsFolder('drizzle-pg') }));
  return {
    db: db as unknown as Db,
    // Called last, once realtime and the push queue have stopped. A query still running then (a last Socket.IO
    // notify) gives its connection back on its own, and releasing it for it would release it twice. A connection
    // still checked out after STRAY_CLIENT_GRACE_MS is one nobody gives back (the Socket.IO adapter's listener,
    // when the node closes while it is still connecting), and the pool would wait for it for ever.
    close: async () => {
      closing = true;
      for (const client of connected) client.on('error', ignoreError);
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
  try {
    await client.query('SELECT pg_advisory_lock($1)', [advisoryLocks.startup]);
    try {
      return await work();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [advisoryLocks.startup]);
    }
  } finally {
    client.release();
  }
}

/** The connection pool behind a PostgreSQL handle (realtime across nodes shares it); null on SQLite. */
export const poolOf = (db: Db): pg.Pool | null => (dialect === 'postgres' ? (db.$client as unknown as pg.Pool) : null);
