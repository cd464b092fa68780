import { eq, max } from 'drizzle-orm';
import type { EntityName } from '@office/sync-protocol';
import type { Tx, Db } from '../db/client';
import { changeAudience, changeLog } from '../db/schema';
import { syncedTables } from './sync/entities';

/** A change committed by a command: who may see the entity now, and who saw it before and may not any more. */
export interface ChangeRef {
  entity: EntityName;
  id: string;
  op: 'put' | 'delete';
  audience: string[];
  formerAudience?: string[];
  seq: number;
}

/** Appends one change-log row in the caller's transaction and stamps the entity's version with its sequence. */
export function recordChange(tx: Tx, change: Omit<ChangeRef, 'seq'>): ChangeRef {
  const [row] = tx
    .insert(changeLog)
    .values({ entity: change.entity, entityId: change.id, op: change.op })
    .returning({ seq: changeLog.seq })
    .all();
  if (!row) throw new Error('change_log insert returned nothing');
  const principals = new Set([...change.audience, ...(change.formerAudience ?? [])]);
  tx.insert(changeAudience)
    .values([...principals].map((principal) => ({ principal, seq: row.seq })))
    .run();
  if (change.op === 'put') {
    const table = syncedTables[change.entity];
    tx.update(table).set({ version: row.seq }).where(eq(table.id, change.id)).run();
  }
  return { ...change, seq: row.seq };
}

/** The newest change-log sequence number: the version a client reaches by pulling everything. */
export function currentVersion(db: Db | Tx): number {
  return db.select({ v: max(changeLog.seq) }).from(changeLog).get()?.v ?? 0;
}
