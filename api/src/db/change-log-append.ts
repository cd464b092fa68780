import { eq, sql } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type { EntityName } from '@office/sync-protocol';
import type { Tx } from './client';
import { advisoryLocks } from './advisory-locks';
import { dialect, runStatement } from './dialect';
import { prepared } from './prepared';
import { changeAudience, changeLog } from './schema';
import { syncedTables } from './synced-tables';

/** One change-log row as a command records it. */
export interface ChangeToAppend {
  entity: EntityName;
  entityId: string;
  op: 'put' | 'delete';
  /** Who may read it (and who may no longer): `team`, `role:<role>`, `user:<id>`. */
  principals: string[];
}

/**
 * Appends a change in the caller's transaction, with its audience, and stamps a put entity's version with the
 * change's sequence number; resolves with that number.
 */
export function appendChange(tx: Tx, change: ChangeToAppend): Promise<number> {
  return dialect === 'postgres' ? appendOnPostgres(tx, change) : appendOnSqlite(tx, change);
}

/**
 * On PostgreSQL a sequence hands out numbers in the order transactions ask, not the order they commit: a reader
 * could see change 12 committed while 11 is still open and move its cursor past 11 for good. So transactions that
 * record changes take turns, on every node: each takes this transaction-level advisory lock at its start, before
 * any read (transaction(..., { recordsChanges: true })), and holds it to its commit. Taken at the start, not at the
 * first append, it also means that
 * - a command's reads (who may do this, who may see it) see every write that committed before it: under READ
 *   COMMITTED a task read before a reassignment committed sent the change to its old audience;
 * - no transaction holds a row lock while it waits for the lock: taken mid-transaction, it deadlocked with one
 *   holding it and waiting for that row.
 * SQLite runs one write transaction at a time already.
 */
export async function takeChangeLogTurn(tx: Tx): Promise<void> {
  if (dialect === 'postgres') await runStatement(tx, sql`SELECT pg_advisory_xact_lock(${advisoryLocks.changeLog})`);
}

/**
 * The append on PostgreSQL: one statement (the row, its audience and the version stamp), which takes the lock
 * again (a no-op for the transaction holding it) so that no append can run outside its turn.
 */
async function appendOnPostgres(tx: Tx, change: ChangeToAppend): Promise<number> {
  const table = syncedTables[change.entity];
  const stamp =
    change.op === 'put'
      ? sql`, stamped AS (UPDATE ${table} SET version = appended.seq FROM appended WHERE ${table.id} = ${change.entityId})`
      : sql``;
  const { rows } = await (tx as unknown as NodePgDatabase).execute<{ seq: string }>(sql`
    WITH ordered AS (SELECT pg_advisory_xact_lock(${advisoryLocks.changeLog})),
    appended AS (
      INSERT INTO ${changeLog} (entity, entity_id, op)
      SELECT ${change.entity}, ${change.entityId}, ${change.op} FROM ordered
      RETURNING seq
    ),
    audience AS (
      INSERT INTO ${changeAudience} (principal, seq)
      SELECT principal, appended.seq FROM appended, json_array_elements_text(${JSON.stringify(change.principals)}::json) AS principal
    )${stamp}
    SELECT seq FROM appended`);
  const [row] = rows;
  if (!row) throw new Error('change_log insert returned nothing');
  return Number(row.seq);
}

/** SQLite runs one write transaction at a time: numbers commit in order as they are, and each statement is a call. */
async function appendOnSqlite(tx: Tx, change: ChangeToAppend): Promise<number> {
  const [row] = await prepared(tx, 'changeLog.insert', (handle) =>
    handle
      .insert(changeLog)
      .values({ entity: sql.placeholder('entity'), entityId: sql.placeholder('entityId'), op: sql.placeholder('op') })
      .returning({ seq: changeLog.seq })
      .prepare(),
  ).execute({ entity: change.entity, entityId: change.entityId, op: change.op });
  if (!row) throw new Error('change_log insert returned nothing');
  const insertAudience = prepared(tx, 'changeAudience.insert', (handle) =>
    handle
      .insert(changeAudience)
      .values({ principal: sql.placeholder('principal'), seq: sql.placeholder('seq') })
      .prepare(),
  );
  for (const principal of change.principals) await insertAudience.execute({ principal, seq: row.seq });
  if (change.op === 'put') {
    const table = syncedTables[change.entity];
    await prepared(tx, `${change.entity}.setVersion`, (handle) =>
      handle
        .update(table)
        .set({ version: sql`${sql.placeholder('version')}` })
        .where(eq(table.id, sql.placeholder('id')))
        .prepare(),
    ).execute({ version: row.seq, id: change.entityId });
  }
  return row.seq;
}
