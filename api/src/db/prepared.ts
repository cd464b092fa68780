import Database from 'better-sqlite3';
import { is, Param, Placeholder, sql, type AnyColumn, type SQL } from 'drizzle-orm';
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

/** A query drizzle builds, as its SQL text and the parameters it binds (placeholders, constants). */
interface BuiltQuery {
  toSQL(): { sql: string; params: unknown[] };
}

/**
 * A statement drizzle built once, run by better-sqlite3 itself: the writes every command makes (its change-log row,
 * a chat message, a pushed mutation's outcome) cost less than drizzle's per-call work around them (placeholders
 * filled by instanceof walks, rows mapped, a promise per statement). `args` binds a call's values the way drizzle
 * does: each placeholder by name, through its column's encoder (a boolean becomes 0 or 1), and constants as built.
 */
export interface SqliteStatement {
  statement: Database.Statement;
  args(values: Record<string, unknown>): unknown[];
}

export function sqliteStatement(client: Database.Database, query: BuiltQuery): SqliteStatement {
  const { text, args } = sqliteBinding(query);
  return { statement: client.prepare(text), args };
}

/** A query's SQL text, and how a call's values become its arguments (see SqliteStatement). */
function sqliteBinding(query: BuiltQuery): { text: string; args: SqliteStatement['args'] } {
  const { sql: text, params } = query.toSQL();
  const binders = params.map((param): ((values: Record<string, unknown>) => unknown) => {
    const encode = is(param, Param) ? (value: unknown) => param.encoder?.mapToDriverValue(value) ?? value : null;
    const bound = is(param, Param) ? param.value : param;
    if (is(bound, Placeholder)) {
      const { name } = bound;
      return encode ? (values) => encode(values[name]) : (values) => values[name];
    }
    const constant = encode ? encode(bound) : bound;
    return () => constant;
  });
  return { text, args: (values) => binders.map((bind) => bind(values)) };
}

/** A write prepared once per connection; resolves with the number of rows it changed. */
type PreparedWrite = (values: Record<string, unknown>) => Promise<number>;

/**
 * The write `name` of this connection, built by `build` on first use (see `prepared`), for writes whose answer is
 * only how many rows they changed: on SQLite better-sqlite3 runs drizzle's statement itself (see SqliteStatement),
 * on PostgreSQL it is a named prepared query.
 */
export function preparedWrite(
  handle: Db | Tx,
  name: string,
  build: (handle: Db | Tx) => BuiltQuery & { prepare(): { execute(values?: Record<string, unknown>): unknown } },
): PreparedWrite {
  return prepared(handle, name, (builder): PreparedWrite => {
    if (dialect === 'postgres') {
      const query = build(builder).prepare();
      nameStatements(query, name);
      return async (values) => ((await query.execute(values)) as { rowCount?: number | null }).rowCount ?? 0;
    }
    const write = sqliteStatement(builder.$client, build(builder));
    return async (values) => write.statement.run(...write.args(values)).changes;
  });
}

/** What a select of plain columns, prepared by drizzle, answers. */
type RowsOf<Select> = Select extends { prepare(): { execute(...args: never[]): infer Rows } } ? Awaited<Rows> : never;

/**
 * The read `name` of this connection (see `prepared`): a select of the plain columns `fields`, built by `build` from
 * them, answering what drizzle's prepared query would. On SQLite better-sqlite3 runs it on a statement of its own
 * and the rows are made from its values by position, each through its column's decoder: the reads every request or
 * write makes (its session, its author) cost less than drizzle's walk over each row. On PostgreSQL it is drizzle's
 * named prepared query.
 */
export function preparedSelect<Fields extends Record<string, AnyColumn>, Select extends BuiltQuery>(
  handle: Db | Tx,
  name: string,
  fields: Fields,
  build: (
    handle: Db | Tx,
    fields: Fields,
  ) => Select & { prepare(): { execute(values?: Record<string, unknown>): unknown } },
): (values: Record<string, unknown>) => Promise<RowsOf<Select>> {
  return prepared(handle, name, (builder) => {
    const query = build(builder, fields);
    if (dialect === 'postgres') {
      const statement = query.prepare();
      nameStatements(statement, name);
      return async (values: Record<string, unknown>) => (await statement.execute(values)) as RowsOf<Select>;
    }
    const { text, args } = sqliteBinding(query);
    // A statement of its own: the connection's cache (client.ts) hands shared ones to drizzle, which sets their mode.
    const statement = Database.prototype.prepare.call(builder.$client, text).raw(true);
    const columns = Object.entries(fields);
    return async (values: Record<string, unknown>) =>
      (statement.all(...args(values)) as unknown[][]).map((row) =>
        Object.fromEntries(
          columns.map(([key, column], i) => [key, row[i] === null ? null : column.mapFromDriverValue(row[i])]),
        ),
      ) as RowsOf<Select>;
  });
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
