import { fillPlaceholders, sql, type SQL } from 'drizzle-orm';
import { NodePgSession, NodePgTransaction, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import type { PgDialect } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import type { Db, Tx } from './client';
import { advisoryLocks } from './advisory-locks';
import { runStatement } from './dialect';

/** What drizzle keeps of a database handle to open a transaction on one of its pool's connections. */
interface PoolSession {
  client: pg.Pool;
  dialect: PgDialect;
  schema: ConstructorParameters<typeof NodePgSession>[2];
  options: ConstructorParameters<typeof NodePgSession>[3];
}

/** An open transaction's connection, and the statements sent on it whose answers nobody has awaited yet. */
interface Connection {
  client: pg.PoolClient;
  dialect: PgDialect;
  unanswered: Promise<unknown>[];
}

const connections = new WeakMap<Tx, Connection>();

/**
 * A transaction on one connection of the pool (drizzle's own, but with fewer round trips).
 *
 * `recordsChanges`: a sequence hands out numbers in the order transactions ask, not the order they commit: a reader
 * could see change 12 committed while 11 is still open and move its cursor past 11 for good. So transactions that
 * record changes take turns, on every node: each takes a transaction-level advisory lock at its start, before any
 * read, and holds it to its commit (the append takes it again, see change-log-append.ts). Taken at the start, not at
 * the first append, it also means that
 * - a command's reads (who may do this, who may see it) see every write that committed before it: under READ
 *   COMMITTED a task read before a reassignment committed sent the change to its old audience;
 * - no transaction holds a row lock while it waits for the lock: taken mid-transaction, it deadlocked with one
 *   holding it and waiting for that row.
 * SQLite runs one write transaction at a time already.
 *
 * While such a transaction runs, every other writer of every node waits, so each round trip it makes is paid by all
 * of them:
 * - BEGIN and the lock go as one query (the lock's key is a constant, so no parameter is needed), sent ahead: the
 *   work's first statements follow it, so a transaction that waited for its turn runs them the moment it gets it,
 *   without first telling its node (should the lock fail, the transaction is aborted and they fail with it);
 * - bookkeeping statements whose answer nothing reads (a savepoint) are sent ahead without waiting (`sendAhead`):
 *   the pool's connections pipeline, so they travel with the statement that follows; their answers are awaited
 *   with the COMMIT, which is thus never sent after an unnoticed failure.
 */
export async function postgresTransaction<T>(
  db: Db,
  work: (tx: Tx) => Promise<T>,
  options: { snapshot?: boolean; recordsChanges?: boolean },
): Promise<T> {
  const session = (db as unknown as NodePgDatabase)._.session as unknown as PoolSession;
  const client = await session.client.connect();
  const connection: Connection = { client, dialect: session.dialect, unanswered: [] };
  const tx = new NodePgTransaction(
    session.dialect,
    new NodePgSession(client, session.dialect, session.schema, session.options),
    session.schema,
  ) as unknown as Tx;
  connections.set(tx, connection);
  // A connection whose ROLLBACK failed is closed, not given back to the pool.
  let broken: Error | undefined;
  try {
    const begin = options.snapshot ? 'BEGIN ISOLATION LEVEL REPEATABLE READ' : 'BEGIN';
    await sendAhead(
      tx,
      options.recordsChanges ? `${begin}; SELECT pg_advisory_xact_lock(${advisoryLocks.changeLog})` : begin,
    );
    const result = await work(tx);
    await Promise.all([...connection.unanswered, client.query('COMMIT')]);
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((failure: unknown) => {
      broken = failure instanceof Error ? failure : new Error(String(failure));
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * Sends a statement of the open transaction `tx` without waiting for its answer, when `tx` is one of
 * `postgresTransaction`'s; resolves at once then. `statement` is SQL text, or a query to start (its first call must
 * hand the query to the connection, as a drizzle query's `execute` does). Any other handle (SQLite's) runs it and
 * waits.
 */
export async function sendAhead(tx: Tx, statement: string | (() => Promise<unknown>)): Promise<void> {
  const connection = connections.get(tx);
  if (!connection) {
    await (typeof statement === 'string' ? runStatement(tx, sql.raw(statement)) : statement());
    return;
  }
  const answer = typeof statement === 'string' ? connection.client.query(statement) : statement();
  // Awaited with the COMMIT (or by `answersOfSentAhead`); a transaction that fails first has no use for it.
  answer.catch(() => undefined);
  connection.unanswered.push(answer);
}

/**
 * Waits for the answers of what was sent ahead on `tx` and throws the first failure. Before rolling back to a
 * savepoint: a failure sent ahead since then must fail the transaction, not be rolled back with the write that
 * follows it while its own write is taken for done.
 */
export async function answersOfSentAhead(tx: Tx): Promise<void> {
  const connection = connections.get(tx);
  if (!connection) return;
  const unanswered = connection.unanswered.splice(0);
  await Promise.all(unanswered);
}

/** The text and parameters (placeholders among them) of each named statement, built on its first run. */
const namedStatements = new Map<string, { text: string; params: unknown[] }>();

/**
 * Runs the statement `build` makes as the named statement `name` in the open transaction `tx`, with `values` for its
 * placeholders. It is built once per process and PostgreSQL parses and plans it once per connection of the pool, so
 * `build` must take every varying value through `sql.placeholder`. `tx` must be one of `postgresTransaction`'s.
 */
export async function queryNamed<Row extends Record<string, unknown>>(
  tx: Tx,
  name: string,
  build: () => SQL,
  values: Record<string, unknown>,
): Promise<Row[]> {
  const connection = connections.get(tx);
  if (!connection) throw new Error('queryNamed outside a PostgreSQL transaction');
  let statement = namedStatements.get(name);
  if (!statement) {
    const { sql: text, params } = connection.dialect.sqlToQuery(build());
    statement = { text, params };
    namedStatements.set(name, statement);
  }
  const query = { name, text: statement.text, values: fillPlaceholders(statement.params, values) };
  return (await connection.client.query<Row>(query)).rows;
}
