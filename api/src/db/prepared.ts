import { sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Db, Tx } from './client';
import { dialect } from './dialect';

/**
 * The queries every write runs (a change-log row, a chat message, a push bookkeeping row), built once per
 * connection. Drizzle builds a query's SQL text on every call, and that building was most of the time a queued
 * chat message took on the push path; a prepared query keeps its text and SQLite's statement, and takes its
 * values through `sql.placeholder`.
 *
 * On SQLite a database and every transaction and savepoint opened on it share drizzle's session, which runs each
 * statement on the one better-sqlite3 connection: a query prepared through any of them serves all of them. On
 * PostgreSQL each transaction has a session of its own on a connection of the pool (postgres-transaction.ts): a
 * query prepared in one serves every later transaction on the same connection.
 */
const preparedByConnection = new WeakMap<object, Map<string, unknown>>();

/**
 * What a query prepared through `handle` runs on: drizzle's session (SQLite), or the pool or pool connection of
 * its session (PostgreSQL). Sessions are not in drizzle's public types; stable in 0.45.
 */
function connectionOf(handle: Db | Tx): object {
  const { session } = handle as unknown as { session?: { client?: object } };
  if (!session) throw new Error('drizzle handle without a session');
  return dialect === 'postgres' && session.client ? session.client : session;
}

/**
 * The query `name` of this connection, built by `build` on first use. `build` must take every varying value
 * through a placeholder: whatever else it reads is frozen into the statement.
 */
export function prepared<Query>(handle: Db | Tx, name: string, build: (handle: Db | Tx) => Query): Query {
  const connection = connectionOf(handle);
  let queries = preparedByConnection.get(connection);
  if (!queries) {
    queries = new Map();
    preparedByConnection.set(connection, queries);
  }
  if (queries.has(name)) return queries.get(name) as Query;
  const query = build(handle);
  if (dialect === 'postgres') nameStatements(query, name);
  queries.set(name, query);
  return query;
}

/** The query configuration node-postgres receives from a drizzle prepared query (internal, stable in 0.45). */
interface PostgresQueryConfigs {
  rawQueryConfig: { name?: string };
  queryConfig: { name?: string };
}

const isPostgresPrepared = (value: unknown): value is PostgresQueryConfigs =>
  typeof value === 'object' && value !== null && 'rawQueryConfig' in value && 'queryConfig' in value;

/**
 * On PostgreSQL a named statement is parsed and planned once per connection of the pool instead of on every run.
 * `query` is one prepared query or an object of them (named `name.key`).
 */
function nameStatements(query: unknown, name: string): void {
  if (isPostgresPrepared(query)) {
    query.rawQueryConfig.name = name;
    query.queryConfig.name = name;
  } else if (typeof query === 'object' && query !== null)
    for (const [key, value] of Object.entries(query))
      if (isPostgresPrepared(value)) nameStatements(value, `${name}.${key}`);
}

/**
 * `column IN` the ids passed as one JSON array through the placeholder `ids` (see `idsParam`): one statement
 * text for any number of ids, so a query reading by ids is prepared once, and no slicing under SQLite's
 * bound-variable limit is needed.
 */
export const inIdsParam = (column: AnyColumn): SQL =>
  dialect === 'postgres'
    ? sql`${column} in (select json_array_elements_text(${sql.placeholder('ids')}::json))`
    : sql`${column} in (select value from json_each(${sql.placeholder('ids')}))`;

/** The value of `inIdsParam`'s placeholder. */
export const idsParam = (ids: Iterable<string>): { ids: string } => ({ ids: JSON.stringify([...ids]) });
