import type { Change, PullResponse } from '@office/sync-protocol';
import {
  entityTables,
  syncedTableNames,
  type LocalRow,
  type OutboxEntry,
  type UndoRecord,
  type WorkspaceDb,
} from '../data/db';
import { readCursor, writeCursor } from './meta';
import { applyMutator, type MutatorContext } from './mutators';

type VersionedRow = LocalRow & { id: string; version?: number };

const allTables = (db: WorkspaceDb) => [db.outbox, db.meta, ...syncedTableNames.map((name) => db.table(name))];

/** The server's rows that changes put in place (null: removed), by table and key. */
type ServerRows = Map<string, UndoRecord['row']>;
const rowKey = (table: string, key: string) => `${table}:${key}`;

/**
 * Applies a page of changes, table by table with bulk reads and writes (a bootstrap holds tens of
 * thousands). Newer version wins: an older state of an entity never overwrites a newer one. A page
 * names each entity once, so grouping by table keeps every entity's outcome.
 */
async function applyChanges(db: WorkspaceDb, changes: readonly Change[], emptyTables: boolean): Promise<ServerRows> {
  const serverRows: ServerRows = new Map();
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
    for (const id of deletes) serverRows.set(rowKey(name, id), null);
    const current = emptyTables ? [] : await table.bulkGet(puts.map((row) => row.id));
    const newer = puts.filter((row, i) => (current[i]?.version ?? 0) <= (row.version ?? 0));
    await table.bulkPut(newer);
    for (const row of newer) serverRows.set(rowKey(name, row.id), row);
  }
  return serverRows;
}

/**
 * A queued write rolls back to the server's newest row, not to the row as it was when the write was
 * made: since then the server may have changed or removed it, and the row may have shown an earlier
 * queued write that the server refused too. After a bootstrap, a row it did not bring is gone.
 */
async function refreshRollbacks(db: WorkspaceDb, serverRows: ServerRows, bootstrap: boolean): Promise<void> {
  if (serverRows.size === 0 && !bootstrap) return;
  await db.outbox
    .where('status')
    .equals('pending')
    .modify((entry) => {
      entry.undo = entry.undo.map((undo) => {
        const key = rowKey(undo.table, undo.key);
        if (serverRows.has(key)) return { ...undo, row: serverRows.get(key) ?? null };
        return bootstrap ? { ...undo, row: null } : undo;
      });
    });
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
    await refreshRollbacks(db, await applyChanges(db, page.changes, page.reset), page.reset);
    await writeCursor(db, page.reset ? page.cursor : Math.max(page.cursor, await readCursor(db)));
    const processed = await db.outbox
      .where('id')
      .belowOrEqual(page.lastMutationId)
      .filter((entry) => entry.status === 'pending')
      .toArray();
    // The server has these writes, but how each ended may never have reached this device (an answer
    // lost, another tab's push): their rows go back to the server's state, which holds the applied
    // ones (now or in a later page of this pull), and a refused one leaves nothing behind.
    for (const entry of processed) await restoreRows(db, entry);
    await db.outbox.bulkDelete(processed.map((entry) => entry.id));
    await rebase(db, ctx);
  });
}

/** Puts the rows a queued write touched back as the server last sent them (see refreshRollbacks). */
async function restoreRows(db: WorkspaceDb, entry: OutboxEntry): Promise<void> {
  for (const undo of entry.undo) {
    const table = db.table<VersionedRow, string>(undo.table);
    if (undo.row === null) await table.delete(undo.key);
    else await table.put({ ...undo.row, id: undo.key });
  }
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
    await refreshRollbacks(db, await applyChanges(db, [change], false), false);
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

/**
 * The server refused a write: its rows go back to the server's newest state (see refreshRollbacks),
 * the writes still queued are applied again, and the refused one is kept as failed, with the reason.
 */
export async function rejectEntry(
  db: WorkspaceDb,
  ctx: MutatorContext,
  entryId: number,
  error: { code: string; message: string },
): Promise<void> {
  await db.transaction('rw', allTables(db), async () => {
    const entry = await db.outbox.get(entryId);
    if (!entry) return;
    await restoreRows(db, entry);
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
