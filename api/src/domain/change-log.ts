import { max } from 'drizzle-orm';
import type { EntityName, PutChange } from '@office/sync-protocol';
import type { Tx, Db } from '../db/client';
import {
  CHANGE_LOG_FLOOR_KEY,
  comparePositions,
  firstTeamChatCreateAfter,
  justBefore,
  readablePosition,
  restoredFloor,
  storedPosition,
  storePosition,
  type LogPosition,
} from '../db/change-feed';
import { changeLog } from '../db/schema';
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
  /** The entity's version after this change (0 for a delete): devices keep the state with the higher one. */
  version: number;
  /**
   * The entity as this change left it, when the command loaded it anyway (to answer with it): publishing
   * sends it instead of loading it again.
   */
  state?: PutChange;
}

/** Appends one change-log row in the caller's transaction and moves a put entity's version on (appendChange). */
export async function recordChange(tx: Tx, change: Omit<ChangeRef, 'seq' | 'version'>): Promise<ChangeRef> {
  const { seq, version } = await appendChange(tx, {
    entity: change.entity,
    entityId: change.id,
    op: change.op,
    ...(change.created ? { created: true } : {}),
    principals: [...new Set([...change.audience, ...(change.formerAudience ?? [])])],
  });
  return { ...change, seq, version };
}

/**
 * The `meta` key of the push queue's team chat cursor: every new team chat message up to this place in the change
 * log has been expanded into pushes. Compaction stops before the first create after it (compactableUpTo).
 */
const PUSH_CHAT_CURSOR_KEY = 'push_chat_through';

/** How far the push queue has expanded the team chat (the log's start before it ever has). */
export const pushChatCursor = (db: Db | Tx): Promise<LogPosition> => storedPosition(db, PUSH_CHAT_CURSOR_KEY);

/** The push queue has expanded the team chat up to `position`. */
export const moveChatCursor = (db: Db | Tx, position: LogPosition): Promise<void> =>
  storePosition(db, PUSH_CHAT_CURSOR_KEY, position);

/** A seeded history is not news: the push queue starts after it. */
export async function skipTeamChatHistory(db: Db): Promise<void> {
  await moveChatCursor(db, await readablePosition(db));
}

/**
 * The latest place compaction may drop up to: what can be read now, but not the first team chat message the push
 * queue has not expanded yet (the queue finds them by their changes).
 */
export async function compactableUpTo(db: Db | Tx): Promise<LogPosition> {
  const readable = await readablePosition(db);
  const first = await firstTeamChatCreateAfter(db, await pushChatCursor(db));
  return first && comparePositions(justBefore(first), readable) < 0 ? justBefore(first) : readable;
}

/** The newest change-log sequence number (0 for an empty log): whether a command recorded anything. */
export async function newestSeq(db: Db | Tx): Promise<number> {
  const [newest] = await db.select({ v: max(changeLog.seq) }).from(changeLog);
  return newest?.v ?? 0;
}

/** The `meta` key of the floor the last restore set: a cursor below it was handed out before that restore. */
const RESTORED_BELOW_KEY = 'restored_below';

/** Cursors before this place were handed out before the workspace was restored from a backup (null: never restored). */
export async function restoredBelow(db: Db | Tx): Promise<LogPosition | null> {
  const position = await storedPosition(db, RESTORED_BELOW_KEY);
  return comparePositions(position, { xid: 0n, seq: 0 }) > 0 ? position : null;
}

/**
 * After a restore, moves the change log past the restored history (restoredFloor): a device may have pulled changes
 * the replaced server made after the backup, so its cursor names a place in a history that no longer exists. Every
 * cursor then lies before the new floor and its device downloads the workspace again; new changes come after the
 * floor, and the push queue starts after the restored history (old news). Resolves with the new floor.
 */
export async function moveChangeLogPast(db: Db, jump: number): Promise<LogPosition> {
  return transaction(db, async (tx) => {
    const floor = await restoredFloor(tx, jump);
    await storePosition(tx, CHANGE_LOG_FLOOR_KEY, floor);
    await storePosition(tx, RESTORED_BELOW_KEY, floor);
    await moveChatCursor(tx, floor);
    await continueChangeNumbersAfter(tx, floor.seq);
    return floor;
  });
}
