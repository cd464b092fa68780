import { eq, max } from 'drizzle-orm';
import type { EntityName, PutChange } from '@office/sync-protocol';
import type { Tx, Db } from '../db/client';
import { changeLog, meta } from '../db/schema';
import { prepared } from '../db/prepared';
import { appendChange } from '../db/change-log-append';

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
export async function recordChange(tx: Tx, change: Omit<ChangeRef, 'seq'>): Promise<ChangeRef> {
  const seq = await appendChange(tx, {
    entity: change.entity,
    entityId: change.id,
    op: change.op,
    principals: [...new Set([...change.audience, ...(change.formerAudience ?? [])])],
  });
  return { ...change, seq };
}

/** The `meta` key of the change-log floor: every sequence number at or below it has been compacted away. */
export const CHANGE_LOG_FLOOR_KEY = 'change_log_floor';

/** The oldest cursor the log can still serve incrementally; older ones get a bootstrap. */
export async function changeLogFloor(db: Db | Tx): Promise<number> {
  const [row] = await prepared(db, 'changeLog.floor', (handle) =>
    handle.select().from(meta).where(eq(meta.key, CHANGE_LOG_FLOOR_KEY)).prepare(),
  ).execute();
  return row ? Number(row.value) : 0;
}

/**
 * The newest change-log sequence number: the version a client reaches by pulling everything.
 * Compaction may have emptied the log; the floor still counts, so the version never goes back.
 */
export async function currentVersion(db: Db | Tx): Promise<number> {
  const [newest] = await prepared(db, 'changeLog.head', (handle) =>
    handle
      .select({ v: max(changeLog.seq) })
      .from(changeLog)
      .prepare(),
  ).execute();
  return Math.max(newest?.v ?? 0, await changeLogFloor(db));
}
