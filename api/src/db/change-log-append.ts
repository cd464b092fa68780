import { eq, sql } from 'drizzle-orm';
import type { EntityName } from '@office/sync-protocol';
import type { Tx } from './client';
import { advisoryLocks } from './advisory-locks';
import { dialect } from './dialect';
import { queryNamed } from './postgres-transaction';
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
 * The append on PostgreSQL: one statement (the row, its audience and the version stamp), which takes the change-log
 * lock again (a no-op for the transaction holding it since its start, see postgres-transaction.ts) so that no append
 * can run outside its turn.
 */
async function appendOnPostgres(tx: Tx, change: ChangeToAppend): Promise<number> {
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
      INSERT INTO ${changeLog} (entity, entity_id, op)
      SELECT ${sql.placeholder('entity')}, ${sql.placeholder('entityId')}, ${sql.placeholder('op')} FROM ordered
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
      op: change.op,
      principals: JSON.stringify(change.principals),
    },
  );
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
