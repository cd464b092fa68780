import { fillPlaceholders, sql, type SQL } from 'drizzle-orm';
import { NodePgSession, NodePgTransaction, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import type { PgDialect } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import type { Db, Tx } from './client';
import { LOG_WRITERS_QUERY, type LogWriters } from './change-feed';
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
  /** A snapshot transaction's change log writers, read before its snapshot (see change-feed.ts). */
  logWriters: Promise<LogWriters> | null;
}

const connections = new WeakMap<Tx, Connection>();

/**
 * A transaction on one connection of the pool (drizzle's own, but with fewer round trips): bookkeeping statements
 * whose answer nothing reads (BEGIN, a savepoint, a row lock) are sent ahead without waiting (`sendAhead`): the
 * pool's connections pipeline, so they travel with the statement that follows; their answers are awaited with the
 * COMMIT, which is thus never sent after an unnoticed failure. Writers of every node run at the same time: readers of
 * the change log stay below the visibility horizon (change-feed.ts), and a command locks the rows it reads to write
 * (row-locks.ts).
 */
export async function postgresTransaction<T>(
  db: Db,
  work: (tx: Tx) => Promise<T>,
  options: { snapshot?: boolean },
): Promise<T> {
  const session = (db as unknown as NodePgDatabase)._.session as unknown as PoolSession;
  const client = await session.client.connect();
  const connection: Connection = { client, dialect: session.dialect, unanswered: [], logWriters: null };
  const tx = new NodePgTransaction(
    session.dialect,
    new NodePgSession(client, session.dialect, session.schema, session.options),
    session.schema,
  ) as unknown as Tx;
  connections.set(tx, connection);
  // A connection whose ROLLBACK failed is closed, not given back to the pool.
  let broken: Error | undefined;
  // A connection lost while lent out (PostgreSQL ended the session at a timeout, the link was cut) fails the
  // statements under way; its 'error' event, which the pool does not hear for a lent connection, must not end the
  // process: the connection is closed instead of given back.
  const lost = (error: Error) => {
    broken = error;
  };
  client.on('error', lost);
  try {
    if (options.snapshot) {
      // Pipelined: PostgreSQL answers it before the transaction's first statement takes the snapshot.
      const { sql: text, params } = session.dialect.sqlToQuery(LOG_WRITERS_QUERY);
      connection.logWriters = client.query<LogWriters>(text, params).then(({ rows: [row] }) => {
        if (!row) throw new Error('reading the change log writers read nothing');
        return row;
      });
      connection.logWriters.catch(() => undefined);
    }
    await sendAhead(tx, options.snapshot ? 'BEGIN ISOLATION LEVEL REPEATABLE READ' : 'BEGIN');
    // Before the transaction has an id: readers of the change log count it among the writers from then on.
    await sendAhead(tx, 'LOCK TABLE change_log IN ROW EXCLUSIVE MODE');
    const result = await work(tx);
    await Promise.all([...connection.unanswered, client.query('COMMIT')]);
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((failure: unknown) => {
      broken = failure instanceof Error ? failure : new Error(String(failure));
    });
    throw error;
  } finally {
    client.off('error', lost);
    client.release(broken);
  }
}

/** The change log writers a snapshot transaction read before its snapshot; null for any other handle. */
export function logWritersBeforeSnapshot(tx: Tx): Promise<LogWriters> | null {
  return connections.get(tx)?.logWriters ?? null;
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
 * `sendAhead` for a statement drizzle builds (its parameters bound as PostgreSQL's `$1`...). `tx` must be one of
 * `postgresTransaction`'s.
 */
export async function sendAheadQuery(tx: Tx, statement: SQL): Promise<void> {
  const connection = connections.get(tx);
  if (!connection) throw new Error('sendAheadQuery outside a PostgreSQL transaction');
  const { sql: text, params } = connection.dialect.sqlToQuery(statement);
  await sendAhead(tx, () => connection.client.query(text, params));
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
