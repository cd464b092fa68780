import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eq, type InferInsertModel, type InferSelectModel, type Table } from 'drizzle-orm';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import * as drizzleKit from 'drizzle-kit/api';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openDatabase, type Db } from './client';
import type * as sqliteSchema from './schema-sqlite';
import * as pgSchema from './schema-pg';
import { startTestPostgres, type TestPostgres } from '../../test/postgres';

// schema-pg.ts is the PostgreSQL twin of schema-sqlite.ts: the committed migrations of each dialect must build the same
// tables, and drizzle must give the domain rows of the same types from either.

/**
 * PostgreSQL's own columns, by table: the change feed's visibility horizon (ARCHITECTURE.md, "Scale-out") needs each
 * change's transaction id and the transaction that acknowledged a client's mutations. SQLite has one writer: its
 * sequence numbers commit in order, and it has none of them.
 */
const postgresOnlyColumns = {
  change_log: ['xid'],
  change_audience: ['xid'],
  sync_clients: ['last_mutation_xid', 'settled_mutation_id'],
} as const;
/** The same, by drizzle's table and column keys. */
interface PostgresOnlyKeys {
  changeLog: 'xid';
  changeAudience: 'xid';
  syncClients: 'lastMutationXid' | 'settledMutationId';
}
/** PostgreSQL's own indexes (reading in `(xid, seq)` order), and the key columns of one both have (see above). */
const postgresOnlyIndexes = new Set(['change_log_position', 'change_audience_position']);
const postgresIndexColumns: Record<string, (string | null)[]> = {
  change_log_principal: ['principal', 'xid', 'seq'],
};

// Compile time (tsc -p api): every table's row, and what an insert takes, has the same type on both dialects.
type TablesOf<S> = { [K in keyof S as S[K] extends Table ? K : never]: S[K] };
type Rows<S> = { [K in keyof TablesOf<S>]: TablesOf<S>[K] extends Table ? InferSelectModel<TablesOf<S>[K]> : never };
type NewRows<S> = {
  [K in keyof TablesOf<S>]: TablesOf<S>[K] extends Table ? InferInsertModel<TablesOf<S>[K]> : never;
};
type WithoutPostgresOnly<R> = {
  [K in keyof R]: K extends keyof PostgresOnlyKeys ? Omit<R[K], PostgresOnlyKeys[K]> : R[K];
};
type SqliteRows = Rows<typeof sqliteSchema>;
type PgRows = WithoutPostgresOnly<Rows<typeof pgSchema>>;
type SqliteNewRows = NewRows<typeof sqliteSchema>;
type PgNewRows = WithoutPostgresOnly<NewRows<typeof pgSchema>>;
// Never called: these compile only while each side is assignable to the other (same tables, columns, types).
const _sameRows = (sqlite: SqliteRows, pg: PgRows): [PgRows, SqliteRows] => [sqlite, pg];
const _sameNewRows = (sqlite: SqliteNewRows, pg: PgNewRows): [PgNewRows, SqliteNewRows] => [sqlite, pg];

const pgMigrations = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'drizzle-pg');

interface Column {
  name: string;
  /** SQLite's storage class; PostgreSQL's integer, bigint and boolean are SQLite integers. */
  type: string;
  notNull: boolean;
  hasDefault: boolean;
}
interface Index {
  name: string;
  unique: boolean;
  /** Key columns in order; null for an expression. */
  columns: (string | null)[];
  /** A partial index's condition, spelled alike for both dialects. */
  where: string | null;
}
interface ForeignKey {
  columns: string[];
  references: string;
  referencedColumns: string[];
  onDelete: string;
  onUpdate: string;
}
interface Shape {
  columns: Column[];
  primaryKey: string[];
  indexes: Index[];
  foreignKeys: ForeignKey[];
}
type Shapes = Record<string, Shape>;

/** Tables of PostgreSQL-only migrations, for the libraries that share state across nodes. */
const clusterTables = new Set(['socket_io_attachments', 'rate_limits']);
/**
 * Full-text search is each dialect's own: FTS5 tables (and their shadow tables) on SQLite, GIN indexes on
 * PostgreSQL, all named `<table>_search` (full-text.ts).
 */
const isSearchIndex = (name: string) => /_search(_(data|idx|docsize|config|content))?$/.test(name);
/** The domain's tables: not drizzle's bookkeeping, SQLite's own, the cluster libraries' or the search indexes. */
const isOurs = (table: string) =>
  !table.startsWith('__drizzle') && !table.startsWith('sqlite_') && !clusterTables.has(table) && !isSearchIndex(table);
const byName = <T extends { name: string }>(a: T, b: T) => a.name.localeCompare(b.name);
const byKey = (fk: ForeignKey) => `${fk.columns.join()}>${fk.references}`;

/**
 * A partial index's condition without quotes, qualifiers, parentheses or PostgreSQL's casts of a literal
 * (`'completed'::text`); `= 1` and `= true` are one test.
 */
function normalisedCondition(condition: string | null): string | null {
  if (condition === null) return null;
  return condition
    .replace(/"/g, '')
    .replace(/::\w+/g, '')
    .replace(/\b\w+\.(?=\w)/g, '')
    .replace(/[()]/g, '')
    .replace(/\s+/g, ' ')
    .replace(/ = (1|true)\b/gi, '')
    .trim()
    .toLowerCase();
}

function sqliteShapes(db: Db): Shapes {
  const sqlite = db.$client;
  const all = <T>(query: string, ...params: string[]) => sqlite.prepare(query).all(...params) as T[];
  const tables = all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").filter((t) =>
    isOurs(t.name),
  );
  const shapes: Shapes = {};
  for (const { name: table } of tables) {
    const columns = all<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>(
      'SELECT * FROM pragma_table_info(?)',
      table,
    );
    const indexes = all<{ name: string; unique: number; origin: string }>('SELECT * FROM pragma_index_list(?)', table)
      .filter((index) => index.origin === 'c')
      .map((index): Index => {
        const definition = all<{ sql: string }>('SELECT sql FROM sqlite_master WHERE name = ?', index.name)[0]?.sql;
        const where = definition?.match(/\bWHERE\b(.*)$/is)?.[1] ?? null;
        return {
          name: index.name,
          unique: index.unique === 1,
          columns: all<{ name: string | null }>('SELECT name FROM pragma_index_info(?) ORDER BY seqno', index.name).map(
            (key) => key.name,
          ),
          where: normalisedCondition(where),
        };
      });
    const references = all<{
      id: number;
      table: string;
      from: string;
      to: string;
      on_delete: string;
      on_update: string;
    }>('SELECT * FROM pragma_foreign_key_list(?) ORDER BY id, seq', table);
    const foreignKeys = [...new Set(references.map((r) => r.id))].map((id): ForeignKey => {
      const parts = references.filter((r) => r.id === id);
      const first = parts[0];
      if (!first) throw new Error(`foreign key ${id} of ${table} has no columns`);
      return {
        columns: parts.map((r) => r.from),
        references: first.table,
        referencedColumns: parts.map((r) => r.to),
        onDelete: first.on_delete.toLowerCase(),
        onUpdate: first.on_update.toLowerCase(),
      };
    });
    shapes[table] = {
      columns: columns
        .map((c) => ({
          name: c.name,
          type: c.type.toLowerCase(),
          notNull: c.notnull === 1,
          hasDefault: c.dflt_value !== null,
        }))
        .sort(byName),
      primaryKey: columns
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name),
      indexes: indexes.sort(byName),
      foreignKeys: foreignKeys.sort((a, b) => byKey(a).localeCompare(byKey(b))),
    };
  }
  return shapes;
}

const PG_ACTIONS: Record<string, string> = {
  a: 'no action',
  r: 'restrict',
  c: 'cascade',
  n: 'set null',
  d: 'set default',
};
const SQLITE_TYPE_OF: Record<string, string> = {
  text: 'text',
  integer: 'integer',
  bigint: 'integer',
  boolean: 'integer',
};

async function pgShapes(pool: pg.Pool): Promise<Shapes> {
  const rows = async <T extends pg.QueryResultRow>(query: string) => (await pool.query<T>(query)).rows;
  const columns = await rows<{
    table_name: string;
    column_name: string;
    data_type: string;
    is_nullable: 'YES' | 'NO';
    column_default: string | null;
  }>(
    `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
     WHERE table_schema = 'public'`,
  );
  const primaryKeys = await rows<{ table_name: string; columns: string[] }>(
    `SELECT t.relname AS table_name,
       array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(attnum, n)
             JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.n) AS columns
     FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
     WHERE c.contype = 'p' AND c.connamespace = 'public'::regnamespace`,
  );
  // Indexes made by CREATE INDEX: not those behind a primary key or a unique constraint.
  const indexes = await rows<{
    table_name: string;
    name: string;
    unique: boolean;
    columns: (string | null)[];
    where: string | null;
  }>(
    `SELECT t.relname AS table_name, x.relname AS name, i.indisunique AS unique,
       array(SELECT a.attname::text FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, n)
             LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum ORDER BY k.n) AS columns,
       pg_get_expr(i.indpred, i.indrelid) AS where
     FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
     WHERE t.relnamespace = 'public'::regnamespace
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid AND c.contype IN ('p', 'u', 'x'))`,
  );
  const foreignKeys = await rows<{
    table_name: string;
    references: string;
    columns: string[];
    referenced_columns: string[];
    on_delete: string;
    on_update: string;
  }>(
    `SELECT t.relname AS table_name, r.relname AS references, c.confdeltype AS on_delete, c.confupdtype AS on_update,
       array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(attnum, n)
             JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.n) AS columns,
       array(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(attnum, n)
             JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.n) AS referenced_columns
     FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid
     WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace`,
  );
  const tables = [...new Set(columns.map((c) => c.table_name))].filter(isOurs);
  return Object.fromEntries(
    tables.map((table): [string, Shape] => [
      table,
      {
        columns: columns
          .filter((c) => c.table_name === table)
          .map((c) => ({
            name: c.column_name,
            type: SQLITE_TYPE_OF[c.data_type] ?? c.data_type,
            notNull: c.is_nullable === 'NO',
            hasDefault: c.column_default !== null,
          }))
          .sort(byName),
        primaryKey: primaryKeys.find((p) => p.table_name === table)?.columns ?? [],
        indexes: indexes
          .filter((i) => i.table_name === table && !isSearchIndex(i.name))
          .map((i) => ({ name: i.name, unique: i.unique, columns: i.columns, where: normalisedCondition(i.where) }))
          .sort(byName),
        foreignKeys: foreignKeys
          .filter((f) => f.table_name === table)
          .map((f) => ({
            columns: f.columns,
            references: f.references,
            referencedColumns: f.referenced_columns,
            onDelete: PG_ACTIONS[f.on_delete] ?? f.on_delete,
            onUpdate: PG_ACTIONS[f.on_update] ?? f.on_update,
          }))
          .sort((a, b) => byKey(a).localeCompare(byKey(b))),
      },
    ]),
  );
}

/** A drizzle-kit snapshot of the PostgreSQL schema, as stored in drizzle-pg/meta. */
type Snapshot = { id: string } & Record<string, unknown>;
// drizzle-kit/api's own declarations lean on packages we do not install (pglite, zod 3): its types do not resolve.
const kit = drizzleKit as unknown as {
  generateDrizzleJson(
    schema: Record<string, unknown>,
    prevId: string,
    filters: undefined,
    casing: 'snake_case',
  ): Snapshot;
  generateMigration(previous: Snapshot, current: Snapshot): Promise<string[]>;
};

/** The snapshot drizzle-kit wrote with the newest committed migration: schema-pg.ts as the migrations know it. */
function newestSnapshot(): Snapshot {
  const journal = JSON.parse(readFileSync(join(pgMigrations, 'meta', '_journal.json'), 'utf8')) as {
    entries: { idx: number }[];
  };
  const newest = Math.max(...journal.entries.map((entry) => entry.idx));
  const file = join(pgMigrations, 'meta', `${String(newest).padStart(4, '0')}_snapshot.json`);
  return JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
}

/**
 * The shapes without PostgreSQL's own columns and indexes, and with its key columns of a shared index as SQLite's
 * (see postgresOnlyColumns): what remains must match SQLite exactly.
 */
function withoutPostgresOnly(shapes: Shapes): Shapes {
  return Object.fromEntries(
    Object.entries(shapes).map(([table, shape]): [string, Shape] => {
      const own: readonly string[] = postgresOnlyColumns[table as keyof typeof postgresOnlyColumns] ?? [];
      return [
        table,
        {
          ...shape,
          columns: shape.columns.filter((column) => !own.includes(column.name)),
          indexes: shape.indexes
            .filter((index) => !postgresOnlyIndexes.has(index.name))
            .map((index) =>
              postgresIndexColumns[index.name]?.join() === index.columns.join()
                ? { ...index, columns: index.columns.filter((column) => column === null || !own.includes(column)) }
                : index,
            ),
        },
      ];
    }),
  );
}

/** One part of every table's shape, by table name. */
const partOf = <K extends keyof Shape>(shapes: Shapes, part: K) =>
  Object.fromEntries(Object.entries(shapes).map(([table, shape]) => [table, shape[part]]));

describe('the PostgreSQL schema', () => {
  let postgres: TestPostgres;
  let pool: pg.Pool;
  let db: NodePgDatabase<typeof pgSchema>;
  let dir: string;
  let sqlite: Db;
  let onSqlite: Shapes;
  let onPostgres: Shapes;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'office-schema-pg-'));
    sqlite = openDatabase(join(dir, 'workspace.db'));
    onSqlite = sqliteShapes(sqlite);
    postgres = await startTestPostgres();
    pool = new pg.Pool({ connectionString: postgres.url });
    db = drizzle({ client: pool, schema: pgSchema, casing: 'snake_case' });
    await migrate(db, { migrationsFolder: pgMigrations });
    onPostgres = withoutPostgresOnly(await pgShapes(pool));
  });

  afterAll(async () => {
    await pool?.end();
    await postgres?.stop();
    sqlite?.$client.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('schema-pg.ts has nothing its committed migrations lack (npm run db:generate:pg)', async () => {
    const snapshot = newestSnapshot();
    const current = kit.generateDrizzleJson(pgSchema, snapshot.id, undefined, 'snake_case');
    expect(await kit.generateMigration(snapshot, current)).toEqual([]);
  });

  test('its migrations make the tables the SQLite migrations make', () => {
    expect(Object.keys(onSqlite).length).toBeGreaterThan(20);
    expect(Object.keys(onPostgres).sort()).toEqual(Object.keys(onSqlite).sort());
  });

  test('each table has the same columns, each as nullable, with a default where SQLite has one', () => {
    expect(partOf(onPostgres, 'columns')).toEqual(partOf(onSqlite, 'columns'));
  });

  test('each table has the same primary key', () => {
    expect(partOf(onPostgres, 'primaryKey')).toEqual(partOf(onSqlite, 'primaryKey'));
  });

  test('each table has the same indexes: names, uniqueness, key columns and partial conditions', () => {
    expect(partOf(onPostgres, 'indexes')).toEqual(partOf(onSqlite, 'indexes'));
  });

  test('each table has the same foreign keys, cascading where SQLite cascades', () => {
    expect(partOf(onPostgres, 'foreignKeys')).toEqual(partOf(onSqlite, 'foreignKeys'));
  });

  test('booleans, bigints, JSON text, identities and default times come back as the SQLite schema gives them', async () => {
    const beyondInt32 = 2 ** 40 + 3;
    const { users, chatMessages, changeLog, notifications } = pgSchema;
    const [author] = await db
      .insert(users)
      .values({ id: 'u1', name: 'Ann', email: 'ann@example.test', version: beyondInt32 })
      .returning();
    expect(author?.version).toBe(beyondInt32);
    expect(author?.createdAt).toBe(new Date(author?.createdAt ?? 0).toISOString());

    await db.insert(chatMessages).values({
      id: 'm1',
      userId: 'u1',
      text: 'Hello',
      edited: true,
      createdAt: '2026-11-26T09:00:00.000Z',
      updatedAt: '2026-11-26T09:00:00.000Z',
      version: beyondInt32 + 1,
    });
    const [message] = await db.select().from(chatMessages).where(eq(chatMessages.id, 'm1'));
    expect(message).toMatchObject({ edited: true, version: beyondInt32 + 1 });

    const [first, second] = await db
      .insert(changeLog)
      .values([
        { entity: 'chatMessage', entityId: 'm1', op: 'put' },
        { entity: 'chatMessage', entityId: 'm1', op: 'delete' },
      ])
      .returning({ seq: changeLog.seq });
    expect([typeof first?.seq, (second?.seq ?? 0) - (first?.seq ?? 0)]).toEqual(['number', 1]);

    await db.insert(notifications).values([
      { id: 'n1', recipientId: 'u1', type: 'direct_message', title: 'T', message: 'M', data: { messageId: 'm1' } },
      { id: 'n2', recipientId: 'u1', type: 'direct_message', title: 'T', message: 'M' },
    ]);
    const stored = await db.select({ id: notifications.id, data: notifications.data }).from(notifications);
    expect(stored.sort((a, b) => a.id.localeCompare(b.id))).toEqual([
      { id: 'n1', data: { messageId: 'm1' } },
      { id: 'n2', data: {} },
    ]);
  });
});
