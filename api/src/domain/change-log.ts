import { and, eq, gt, max, min, type SQL } from 'drizzle-orm';
import type { EntityName, PutChange } from '@office/sync-protocol';
import type { Tx, Db } from '../db/client';
import { changeLog, meta } from '../db/schema';
import { prepared } from '../db/prepared';
import { appendChange, continueChangeNumbersAfter } from '../db/change-log-append';
import { transaction } from '../db/transaction';

/** A change committed by a command: who may see the entity now, and who saw it before and may not any more. */
export interface ChangeRef {
  entity: EntityName;
  id: string;
  op: 'put' | 'delete';
  /** The put made the entity (see ChangeToAppend). */
  created?: boolean;
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
    ...(change.created ? { created: true } : {}),
    principals: [...new Set([...change.audience, ...(change.formerAudience ?? [])])],
  });
  return { ...change, seq };
}

/** The `meta` key of the change-log floor: every sequence number at or below it has been compacted away. */
export const CHANGE_LOG_FLOOR_KEY = 'change_log_floor';

/**
 * The `meta` key of the push queue's team chat cursor: every new team chat message up to this change-log number has
 * been expanded into pushes. Compaction stops before the first create after it (compactableUpTo).
 */
const PUSH_CHAT_CURSOR_KEY = 'push_chat_through';

/** How far the push queue has expanded the team chat (0 before it ever has). */
export async function pushChatCursor(db: Db | Tx): Promise<number> {
  const [row] = await db.select({ value: meta.value }).from(meta).where(eq(meta.key, PUSH_CHAT_CURSOR_KEY));
  return row ? Number(row.value) : 0;
}

/** The change-log rows of team chat messages made after `seq` (read through change_log_principal). */
export const teamChatCreatedAfter = (seq: number): SQL | undefined =>
  and(
    eq(changeLog.principal, 'team'),
    eq(changeLog.entity, 'chatMessage'),
    eq(changeLog.op, 'create'),
    gt(changeLog.seq, seq),
  );

/** The push queue has expanded the team chat up to `seq`. */
export async function moveChatCursor(db: Db | Tx, seq: number): Promise<void> {
  const value = String(seq);
  await db
    .insert(meta)
    .values({ key: PUSH_CHAT_CURSOR_KEY, value })
    .onConflictDoUpdate({ target: meta.key, set: { value } });
}

/** A seeded history is not news: the push queue starts after it. */
export async function skipTeamChatHistory(db: Db): Promise<void> {
  await moveChatCursor(db, await currentVersion(db));
}

/**
 * The newest change-log number compaction may drop up to: just before the first team chat message the push queue
 * has not expanded yet (the queue finds them by their changes).
 */
export async function compactableUpTo(db: Db | Tx): Promise<number> {
  const [first] = await db
    .select({ seq: min(changeLog.seq) })
    .from(changeLog)
    .where(teamChatCreatedAfter(await pushChatCursor(db)));
  return first?.seq == null ? await currentVersion(db) : first.seq - 1;
}

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

/** The `meta` key of the floor the last restore set: a cursor below it was handed out before that restore. */
const RESTORED_BELOW_KEY = 'restored_below';

/** Cursors below this number were handed out before the workspace was restored from a backup (0: never restored). */
export async function restoredBelow(db: Db | Tx): Promise<number> {
  const [row] = await db.select({ value: meta.value }).from(meta).where(eq(meta.key, RESTORED_BELOW_KEY));
  return row ? Number(row.value) : 0;
}

/**
 * After a restore, moves the change log's numbers `jump` past the restored head: a device may have pulled changes
 * the replaced server made after the backup, so its cursor names a place in a history that no longer exists. Every
 * cursor then lies below the new floor and its device downloads the workspace again; new changes number after the
 * floor, and the push queue starts after the restored history (old news). Resolves with the new floor.
 */
export async function moveChangeLogPast(db: Db, jump: number): Promise<number> {
  return transaction(
    db,
    async (tx) => {
      const floor = (await currentVersion(tx)) + jump;
      const value = String(floor);
      await tx
        .insert(meta)
        .values({ key: CHANGE_LOG_FLOOR_KEY, value })
        .onConflictDoUpdate({ target: meta.key, set: { value } });
      await tx
        .insert(meta)
        .values({ key: RESTORED_BELOW_KEY, value })
        .onConflictDoUpdate({ target: meta.key, set: { value } });
      await moveChatCursor(tx, floor);
      await continueChangeNumbersAfter(tx, floor);
      return floor;
    },
    { recordsChanges: true },
  );
}
