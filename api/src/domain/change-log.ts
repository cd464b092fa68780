import { eq, inArray, max, sql } from 'drizzle-orm';
import type { EntityName, PutChange } from '@office/sync-protocol';
import type { Tx, Db } from '../db/client';
import { changeAudience, changeLog, meta } from '../db/schema';
import { prepared } from '../db/prepared';
import { syncedTables } from '../db/synced-tables';

/** A change committed by a command: who may see the entity now, and who saw it before and may not any more. */
export interface ChangeRef {
  entity: EntityName;
  id: string;
  op: 'put' | 'delete';
  audience: string[];
  formerAudience?: string[];
  seq: number;
  /**
   * The entity as this change left it, when the command loaded it anyway (to answer with it): publishing
   * sends it instead of loading it again.
   */
  state?: PutChange;
}

/** Appends one change-log row in the caller's transaction and stamps the entity's version with its sequence. */
export function recordChange(tx: Tx, change: Omit<ChangeRef, 'seq'>): ChangeRef {
  const row = prepared(tx, 'changeLog.insert', (handle) =>
    handle
      .insert(changeLog)
      .values({ entity: sql.placeholder('entity'), entityId: sql.placeholder('entityId'), op: sql.placeholder('op') })
      .returning({ seq: changeLog.seq })
      .prepare(),
  ).get({ entity: change.entity, entityId: change.id, op: change.op });
  if (!row) throw new Error('change_log insert returned nothing');
  const insertAudience = prepared(tx, 'changeAudience.insert', (handle) =>
    handle
      .insert(changeAudience)
      .values({ principal: sql.placeholder('principal'), seq: sql.placeholder('seq') })
      .prepare(),
  );
  for (const principal of new Set([...change.audience, ...(change.formerAudience ?? [])]))
    insertAudience.run({ principal, seq: row.seq });
  if (change.op === 'put') {
    const table = syncedTables[change.entity];
    prepared(tx, `${change.entity}.setVersion`, (handle) =>
      handle
        .update(table)
        .set({ version: sql`${sql.placeholder('version')}` })
        .where(eq(table.id, sql.placeholder('id')))
        .prepare(),
    ).run({ version: row.seq, id: change.id });
  }
  return { ...change, seq: row.seq };
}

/** Rows per statement when many changes are recorded at once: well under SQLite's bound-variable limit. */
const ROWS_PER_STATEMENT = 500;

/**
 * Appends many change-log rows in the caller's transaction, in order, with a few statements instead of
 * three per change: the same rows `recordChange` leaves one by one. A chat message notifies every
 * other member; recorded one by one, those notifications were most of the time of a send.
 */
export function recordChanges(tx: Tx, changes: Omit<ChangeRef, 'seq'>[]): ChangeRef[] {
  const refs: ChangeRef[] = [];
  for (let start = 0; start < changes.length; start += ROWS_PER_STATEMENT) {
    const part = changes.slice(start, start + ROWS_PER_STATEMENT);
    // One writer: a multi-row insert takes consecutive sequence numbers in the order of its rows.
    // RETURNING's order is not guaranteed, so the numbers are sorted back into that order.
    const seqs = tx
      .insert(changeLog)
      .values(part.map((change) => ({ entity: change.entity, entityId: change.id, op: change.op })))
      .returning({ seq: changeLog.seq })
      .all()
      .map((row) => row.seq)
      .sort((a, b) => a - b);
    if (seqs.length !== part.length) throw new Error('change_log insert returned fewer rows than it was given');
    refs.push(...part.map((change, i) => ({ ...change, seq: seqs[i] as number })));
  }
  const audience = refs.flatMap((ref) =>
    [...new Set([...ref.audience, ...(ref.formerAudience ?? [])])].map((principal) => ({ principal, seq: ref.seq })),
  );
  for (let start = 0; start < audience.length; start += ROWS_PER_STATEMENT) {
    tx.insert(changeAudience)
      .values(audience.slice(start, start + ROWS_PER_STATEMENT))
      .run();
  }
  // Each entity's version is the sequence number of its newest change here.
  const newest = new Map<EntityName, Map<string, number>>();
  for (const ref of refs) {
    if (ref.op !== 'put') continue;
    const versions = newest.get(ref.entity) ?? new Map<string, number>();
    versions.set(ref.id, ref.seq);
    newest.set(ref.entity, versions);
  }
  for (const [entity, versions] of newest) {
    const table = syncedTables[entity];
    const entries = [...versions];
    for (let start = 0; start < entries.length; start += ROWS_PER_STATEMENT) {
      const part = entries.slice(start, start + ROWS_PER_STATEMENT);
      const cases = part.map(([id, seq]) => sql`when ${id} then ${seq}`);
      tx.update(table)
        .set({ version: sql`case ${table.id} ${sql.join(cases, sql` `)} end` })
        .where(
          inArray(
            table.id,
            part.map(([id]) => id),
          ),
        )
        .run();
    }
  }
  return refs;
}

/** The `meta` key of the change-log floor: every sequence number at or below it has been compacted away. */
export const CHANGE_LOG_FLOOR_KEY = 'change_log_floor';

/** The oldest cursor the log can still serve incrementally; older ones get a bootstrap. */
export function changeLogFloor(db: Db | Tx): number {
  const row = db.select().from(meta).where(eq(meta.key, CHANGE_LOG_FLOOR_KEY)).get();
  return row ? Number(row.value) : 0;
}

/**
 * The newest change-log sequence number: the version a client reaches by pulling everything.
 * Compaction may have emptied the log; the floor still counts, so the version never goes back.
 */
export function currentVersion(db: Db | Tx): number {
  const newest =
    db
      .select({ v: max(changeLog.seq) })
      .from(changeLog)
      .get()?.v ?? 0;
  return Math.max(newest, changeLogFloor(db));
}
