import type { Change, PullResponse } from '@office/sync-protocol';
import { entityTables, syncedTableNames, type LocalRow, type OutboxEntry, type WorkspaceDb } from '../data/db';
import { readCursor, writeCursor } from './meta';
import { applyMutator, type MutatorContext } from './mutators';

type VersionedRow = LocalRow & { id: string; version?: number };

const allTables = (db: WorkspaceDb) => [db.outbox, db.meta, ...syncedTableNames.map((name) => db.table(name))];

/**
 * Applies a page of changes, table by table with bulk reads and writes (a bootstrap holds tens of
 * thousands). Newer version wins: an older state of an entity never overwrites a newer one. A page
 * names each entity once, so grouping by table keeps every entity's outcome.
 */
async function applyChanges(db: WorkspaceDb, changes: readonly Change[], emptyTables: boolean): Promise<void> {
  const byTable = new Map<string, { puts: VersionedRow[]; deletes: string[] }>();
  for (const change of changes) {
    const name = entityTables[change.entity];
    const group = byTable.get(name) ?? { puts: [], deletes: [] };
    byTable.set(name, group);
    if (change.op === 'delete') group.deletes.push(change.id);
    else group.puts.push(change.data);
  }
  for (const [name, { puts, deletes }] of byTable) {
    const table = db.table<VersionedRow, string>(name);
    if (deletes.length) await table.bulkDelete(deletes);
    if (emptyTables) {
      await table.bulkPut(puts);
      continue;
    }
    const current = await table.bulkGet(puts.map((row) => row.id));
    await table.bulkPut(puts.filter((row, i) => (current[i]?.version ?? 0) <= (row.version ?? 0)));
  }
}

/**
 * Re-applies the writes still waiting in the outbox on top of the server's state:
 * a row is pending exactly while a queued write touches it.
 */
export async function rebase(db: WorkspaceDb, ctx: MutatorContext): Promise<void> {
  for (const name of syncedTableNames) {
    await db
      .table<VersionedRow, string>(name)
      .where('pending')
      .equals(1)
      .modify((row) => {
        delete row.pending;
      });
  }
  const pending = await db.outbox.where('status').equals('pending').sortBy('id');
  for (const entry of pending) await applyMutator(db, entry.name, entry.args, ctx);
}

/** Applies one pull page in one transaction: changes, cursor, acknowledged outbox entries, rebase. */
export async function applyPull(db: WorkspaceDb, ctx: MutatorContext, page: PullResponse): Promise<void> {
  await db.transaction('rw', allTables(db), async () => {
    if (page.reset) for (const name of syncedTableNames) await db.table(name).clear();
    await applyChanges(db, page.changes, page.reset);
    await writeCursor(db, page.reset ? page.cursor : Math.max(page.cursor, await readCursor(db)));
    await db.outbox
      .where('id')
      .belowOrEqual(page.lastMutationId)
      .filter((entry) => entry.status === 'pending')
      .delete();
    await rebase(db, ctx);
  });
}

/** Whether a queued write of this device touches the entity a change is about. */
async function hasPendingWrite(db: WorkspaceDb, change: Change): Promise<boolean> {
  const table = entityTables[change.entity];
  const pending = await db.outbox.where('status').equals('pending').toArray();
  return pending.some((entry) => entry.undo.some((undo) => undo.table === table && undo.key === change.id));
}

/**
 * Applies a change that arrived over Socket.IO. When it directly follows the cursor the cursor moves
 * on; otherwise something in between is missing and the caller pulls ('gap'). A change to a row this
 * device is still writing does not move the cursor either: the change may already contain that write,
 * which the rebase would then apply twice, so the pull after the push brings the row again, once the
 * server has said which writes it holds.
 */
export async function applyLiveChange(
  db: WorkspaceDb,
  ctx: MutatorContext,
  seq: number,
  change: Change,
): Promise<'applied' | 'gap'> {
  return db.transaction('rw', allTables(db), async () => {
    await applyChanges(db, [change], false);
    const overlapsPendingWrite = await hasPendingWrite(db, change);
    await rebase(db, ctx);
    const cursor = await readCursor(db);
    if (seq <= cursor) return 'applied';
    if (seq === cursor + 1 && !overlapsPendingWrite) {
      await writeCursor(db, seq);
      return 'applied';
    }
    return 'gap';
  });
}

/** The server refused a write: undo its optimistic change and keep it as failed, with the reason. */
export async function rejectEntry(
  db: WorkspaceDb,
  ctx: MutatorContext,
  entryId: number,
  error: { code: string; message: string },
): Promise<void> {
  await db.transaction('rw', allTables(db), async () => {
    const entry = await db.outbox.get(entryId);
    if (!entry) return;
    for (const undo of entry.undo.toReversed()) {
      const table = db.table<VersionedRow, string>(undo.table);
      const current = await table.get(undo.key);
      if (undo.row === null) await table.delete(undo.key);
      else if (!current || (current.version ?? 0) <= (undo.row.version ?? 0))
        await table.put({ ...undo.row, id: undo.key });
    }
    await db.outbox.update(entryId, { status: 'failed', error });
    await rebase(db, ctx);
  });
}

/** Drops an acknowledged entry; the next pull's rebase clears its pending marks. */
export async function acknowledgeEntry(db: WorkspaceDb, entryId: number): Promise<void> {
  await db.outbox.delete(entryId);
}

/** The queued writes in the order they were made. */
export const pendingEntries = (db: WorkspaceDb, max: number): Promise<OutboxEntry[]> =>
  db.outbox.where('status').equals('pending').limit(max).sortBy('id');
