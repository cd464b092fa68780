import type Database from 'better-sqlite3';
import { eq, sql } from 'drizzle-orm';
import type { EntityName } from '@office/sync-protocol';
import type { Tx } from './client';
import { advisoryLocks } from './advisory-locks';
import { dialect, runStatement } from './dialect';
import { queryNamed } from './postgres-transaction';
import { sqliteStatement, type SqliteStatement } from './prepared';
import { changeAudience, changeLog } from './schema';
import type { StoredChangeOp } from './schema-sqlite';
import { syncedTables } from './synced-tables';

/** One change-log row as a command records it. */
export interface ChangeToAppend {
  entity: EntityName;
  entityId: string;
  op: 'put' | 'delete';
  /** A put that made the entity: stored as `create` (the push queue finds new team chat messages by it). */
  created?: boolean;
  /** Who may read it (and who may no longer): `team`, `role:<role>`, `user:<id>`. */
  principals: string[];
}

/**
 * Appends a change in the caller's transaction, with its audience, and stamps a put entity's version with the
 * change's sequence number; resolves with that number. An audience of one principal goes on the change's own
 * row; a larger one, one change_audience row per principal.
 */
export async function appendChange(tx: Tx, change: ChangeToAppend): Promise<number> {
  return dialect === 'postgres' ? appendOnPostgres(tx, change) : appendOnSqlite(tx, change);
}

/** The kind a change's row stores. */
const storedOp = (change: ChangeToAppend): StoredChangeOp => (change.created ? 'create' : change.op);

/** The principal of a change's own row (its only one), and those that go to change_audience. */
function splitAudience(principals: string[]): { principal: string | null; others: string[] } {
  const [only] = principals;
  return principals.length === 1 && only !== undefined
    ? { principal: only, others: [] }
    : { principal: null, others: principals };
}

/**
 * The append on PostgreSQL: one statement (the row, its audience and the version stamp), which takes the change-log
 * lock again (a no-op for the transaction holding it since its start, see postgres-transaction.ts) so that no append
 * can run outside its turn.
 */
async function appendOnPostgres(tx: Tx, change: ChangeToAppend): Promise<number> {
  const { principal, others } = splitAudience(change.principals);
  const table = syncedTables[change.entity];
  const rows = await queryNamed<{ seq: string }>(
    tx,
    `changeLog.append.${change.entity}.${change.op}`,
    () => {
      const stamp =
        change.op === 'put'
          ? sql`, stamped AS (UPDATE ${table} SET version = appended.seq FROM appended WHERE ${table.id} = ${sql.placeholder('entityId')})`
          : sql``;
      return sql`
    WITH ordered AS (SELECT pg_advisory_xact_lock(${advisoryLocks.changeLog})),
    appended AS (
      INSERT INTO ${changeLog} (entity, entity_id, op, principal)
      SELECT ${sql.placeholder('entity')}, ${sql.placeholder('entityId')}, ${sql.placeholder('op')}, ${sql.placeholder('principal')}::text
      FROM ordered
      RETURNING seq
    ),
    audience AS (
      INSERT INTO ${changeAudience} (principal, seq)
      SELECT principal, appended.seq FROM appended, json_array_elements_text(${sql.placeholder('principals')}::json) AS principal
    )${stamp}
    SELECT seq FROM appended`;
    },
    {
      entity: change.entity,
      entityId: change.entityId,
      op: storedOp(change),
      principal,
      principals: JSON.stringify(others),
    },
  );
  const [row] = rows;
  if (!row) throw new Error('change_log insert returned nothing');
  return Number(row.seq);
}

/** The append's statements on one SQLite connection (see SqliteStatement). */
interface SqliteAppend {
  insertChange: SqliteStatement;
  insertAudience: SqliteStatement;
  stampVersion: Partial<Record<EntityName, SqliteStatement>>;
}

const sqliteAppends = new WeakMap<Database.Database, SqliteAppend>();

function sqliteAppendOf(tx: Tx): SqliteAppend {
  const client = tx.$client;
  let append = sqliteAppends.get(client);
  if (!append) {
    append = {
      insertChange: sqliteStatement(
        client,
        tx.insert(changeLog).values({
          entity: sql.placeholder('entity'),
          entityId: sql.placeholder('entityId'),
          op: sql.placeholder('op'),
          principal: sql.placeholder('principal'),
        }),
      ),
      insertAudience: sqliteStatement(
        client,
        tx.insert(changeAudience).values({ principal: sql.placeholder('principal'), seq: sql.placeholder('seq') }),
      ),
      stampVersion: {},
    };
    sqliteAppends.set(client, append);
  }
  return append;
}

function stampVersionOnSqlite(tx: Tx, append: SqliteAppend, entity: EntityName): SqliteStatement {
  let statement = append.stampVersion[entity];
  if (!statement) {
    const table = syncedTables[entity];
    statement = sqliteStatement(
      tx.$client,
      tx
        .update(table)
        .set({ version: sql`${sql.placeholder('version')}` })
        .where(eq(table.id, sql.placeholder('id'))),
    );
    append.stampVersion[entity] = statement;
  }
  return statement;
}

/** SQLite runs one write transaction at a time: numbers commit in order as they are, and each statement is a call. */
function appendOnSqlite(tx: Tx, change: ChangeToAppend): number {
  const append = sqliteAppendOf(tx);
  const { insertChange, insertAudience } = append;
  const { principal, others } = splitAudience(change.principals);
  // The row's id is its sequence number: SQLite reports it without a RETURNING clause, which cost a third of the insert.
  const { lastInsertRowid } = insertChange.statement.run(
    ...insertChange.args({ entity: change.entity, entityId: change.entityId, op: storedOp(change), principal }),
  );
  const seq = Number(lastInsertRowid);
  for (const other of others) insertAudience.statement.run(...insertAudience.args({ principal: other, seq }));
  if (change.op === 'put') {
    const stamp = stampVersionOnSqlite(tx, append, change.entity);
    stamp.statement.run(...stamp.args({ version: seq, id: change.entityId }));
  }
  return seq;
}

/**
 * Makes the change log number its next change after `floor` (a restore moves the numbers on: see
 * moveChangeLogPast).
 */
export async function continueChangeNumbersAfter(tx: Tx, floor: number): Promise<void> {
  if (dialect === 'postgres') {
    await runStatement(tx, sql`SELECT setval(pg_get_serial_sequence('change_log', 'seq'), ${floor})`);
    return;
  }
  // change_log's numbers are AUTOINCREMENT: SQLite takes the next one after sqlite_sequence's.
  await runStatement(tx, sql`DELETE FROM sqlite_sequence WHERE name = 'change_log'`);
  await runStatement(tx, sql`INSERT INTO sqlite_sequence (name, seq) VALUES ('change_log', ${floor})`);
}
