import { PROTOCOL_VERSION, type Change, type PullResponse } from '@office/sync-protocol';
import {
  entityTables,
  rowKey,
  syncedTableNames,
  type LocalRow,
  type LocalUser,
  type OutboxEntry,
  type UndoRecord,
  type WorkspaceDb,
} from '../data/db';
import { readCursor, writeCursor } from './meta';
import { applyMutator, type MutatorContext } from './mutators';
import { admitUnheld, isBootstrapping, noteUnheldDeletes, settleBootstrapWindow } from './window';

type VersionedRow = LocalRow & { id: string; version?: number };

const allTables = (db: WorkspaceDb) => [
  db.outbox,
  db.meta,
  db.historyRanges,
  ...syncedTableNames.map((name) => db.table(name)),
];

/** How a page of changes is taken in: into emptied tables (a bootstrap's first page), whole (a bootstrap's page), or by the window's rule. */
type Intake = 'fresh' | 'whole' | 'window' | 'windowWhileBootstrapping';

/** The server's rows that changes put in place (null: removed), by `table:key`. */
type ServerRows = Map<string, UndoRecord['row']>;

/**
 * Applies a page of changes, table by table with bulk reads and writes (a bootstrap page holds a thousand).
 * Newer version wins: an older state of an entity never overwrites a newer one. A page names each entity
 * once, so grouping by table keeps every entity's outcome. Outside a bootstrap's pages, a change of a row the
 * device does not hold is taken in only inside its window (window.ts), or when a queued write names the row.
 */
async function applyChanges(db: WorkspaceDb, changes: readonly Change[], intake: Intake): Promise<ServerRows> {
  const serverRows: ServerRows = new Map();
  const byTable = new Map<string, { puts: VersionedRow[]; deletes: string[] }>();
  for (const change of changes) {
    const name = entityTables[change.entity];
    const group = byTable.get(name) ?? { puts: [], deletes: [] };
    byTable.set(name, group);
    if (change.op === 'delete') group.deletes.push(change.id);
    else group.puts.push(change.data);
  }
  const windowed = intake === 'window' || intake === 'windowWhileBootstrapping';
  const bootstrapping = intake === 'windowWhileBootstrapping';
  for (const [name, { puts, deletes }] of byTable) {
    const table = db.table<VersionedRow, string>(name);
    if (deletes.length && windowed) {
      const held = await table.bulkGet(deletes);
      if (held.some((row) => row === undefined)) await noteUnheldDeletes(db, name, bootstrapping);
    }
    if (deletes.length) await table.bulkDelete(deletes);
    for (const id of deletes) serverRows.set(rowKey(name, id), null);
    const current = intake === 'fresh' ? [] : await table.bulkGet(puts.map((row) => row.id));
    let admitted = puts;
    if (windowed) {
      const unheld = puts.filter((_row, i) => current[i] === undefined);
      const named = await pendingWritesOf(
        db,
        unheld.map((row) => rowKey(name, row.id)),
        'any',
      );
      const namedKeys = new Set([...named.values()].flatMap((entry) => entry.rowKeys));
      const taken = new Set(
        (
          await admitUnheld(
            db,
            name,
            unheld.filter((row) => !namedKeys.has(rowKey(name, row.id))),
            bootstrapping,
          )
        ).map((row) => row.id),
      );
      admitted = puts.filter(
        (row, i) => current[i] !== undefined || taken.has(row.id) || namedKeys.has(rowKey(name, row.id)),
      );
    }
    const local = new Map(current.flatMap((row) => (row ? [[row.id, row] as const] : [])));
    const newer = admitted.flatMap((row) => {
      const held = local.get(row.id);
      if ((held?.version ?? 0) > (row.version ?? 0)) return [];
      return [held ? withLocalPresence(name, row, held) : row];
    });
    await table.bulkPut(newer);
    for (const row of newer) serverRows.set(rowKey(name, row.id), row);
  }
  return serverRows;
}

/** The queued writes (pending, or with `any` failed ones too) of these rows, found on the outbox's row index, by id. */
async function pendingWritesOf(
  db: WorkspaceDb,
  keys: Iterable<string>,
  which: 'pending' | 'any' = 'pending',
): Promise<Map<number, OutboxEntry>> {
  const list = [...keys];
  const found = list.length ? await db.outbox.where('rowKeys').anyOf(list).toArray() : [];
  return new Map(
    found.filter((entry) => which === 'any' || entry.status === 'pending').map((entry) => [entry.id, entry]),
  );
}

/**
 * A queued write rolls back to the server's newest row, not to the row as it was when the write was
 * made: since then the server may have changed or removed it, and the row may have shown an earlier
 * queued write that the server refused too. When a bootstrap starts, every row is gone until it comes.
 */
async function refreshRollbacks(db: WorkspaceDb, serverRows: ServerRows, bootstrapStart: boolean): Promise<void> {
  if (bootstrapStart) {
    await db.outbox
      .where('status')
      .equals('pending')
      .modify((entry) => {
        entry.undo = entry.undo.map((undo) => ({ ...undo, row: null }));
      });
  }
  const entries = await pendingWritesOf(db, serverRows.keys());
  for (const entry of entries.values()) {
    const undo = entry.undo.map((record) => {
      const key = rowKey(record.table, record.key);
      return serverRows.has(key) ? { ...record, row: serverRows.get(key) ?? null } : record;
    });
    await db.outbox.update(entry.id, { undo });
  }
}

/**
 * Re-applies the queued writes on top of the server's state, for the rows in `touched` only: the writes of
 * those rows, and with them every row those writes touch (and so on). A row the server did not just write
 * goes back to the server's state first (the oldest write's rollback). A row is pending exactly while a
 * queued write touches it. The cost follows the rows touched, not the size of the outbox or the tables.
 */
async function rebase(db: WorkspaceDb, ctx: MutatorContext, touched: Iterable<string>, fresh: Set<string>) {
  const keys = new Set(touched);
  const writes = new Map<number, OutboxEntry>();
  let frontier = [...keys];
  while (frontier.length) {
    const found = await pendingWritesOf(db, frontier);
    frontier = [];
    for (const entry of found.values()) {
      if (writes.has(entry.id)) continue;
      writes.set(entry.id, entry);
      for (const key of entry.rowKeys) {
        if (keys.has(key)) continue;
        keys.add(key);
        frontier.push(key);
      }
    }
  }
  const ordered = [...writes.values()].sort((a, b) => a.id - b.id);
  for (const key of keys) {
    if (fresh.has(key)) continue;
    // The oldest queued write of the row holds the server's row as this device last heard it.
    const oldest = ordered.find((entry) => entry.rowKeys.includes(key));
    const record = oldest?.undo.find((undo) => rowKey(undo.table, undo.key) === key);
    if (record) await putServerRow(db, record);
    else await clearPending(db, key);
  }
  for (const entry of ordered) await applyMutator(db, entry.name, entry.args, ctx);
}

async function putServerRow(db: WorkspaceDb, undo: UndoRecord): Promise<void> {
  const table = db.table<VersionedRow, string>(undo.table);
  if (undo.row === null) {
    await table.delete(undo.key);
    return;
  }
  // A rollback taken while an earlier, since acknowledged, write still marked the row.
  const { pending: _pending, ...row } = undo.row;
  const serverRow = { ...row, id: undo.key };
  const local = undo.table === entityTables.user ? await table.get(undo.key) : undefined;
  await table.put(local ? withLocalPresence(undo.table, serverRow, local) : serverRow);
}

/**
 * A person's presence on a row this device holds changes only by the presence events and the snapshot. A synced
 * row carries the presence of the moment the server read it, with no version of its own: a pull read before
 * someone left, or a live change applied after the pull it waited for, would bring them back online.
 */
function withLocalPresence(table: string, row: VersionedRow, local: VersionedRow): VersionedRow {
  if (table !== entityTables.user) return row;
  const { status, lastSeen } = local as LocalUser;
  return { ...row, status, lastSeen } as VersionedRow;
}

/** Drops a row's pending mark: no queued write touches it any more. */
async function clearPending(db: WorkspaceDb, key: string): Promise<void> {
  const cut = key.indexOf(':');
  const table = db.table<VersionedRow, string>(key.slice(0, cut));
  const row = await table.get(key.slice(cut + 1));
  if (!row?.pending) return;
  const { pending: _pending, ...server } = row;
  await table.put(server);
}

/** Every pending write, for a rebase of everything (a bootstrap emptied the tables). */
async function everyPendingRow(db: WorkspaceDb): Promise<string[]> {
  const entries = await db.outbox.where('status').equals('pending').toArray();
  return entries.flatMap((entry) => entry.rowKeys);
}

/**
 * Applies one pull page in one transaction: changes, cursor, bootstrap progress, acknowledged outbox
 * entries, rebase. A bootstrap (`reset` on its first page) empties the tables first; its pages carry the
 * token of the next one, kept so a broken link resumes there, and its last page the cursor.
 */
export async function applyPull(db: WorkspaceDb, ctx: MutatorContext, page: PullResponse): Promise<void> {
  await db.transaction('rw', allTables(db), async () => {
    if (page.reset) {
      for (const name of syncedTableNames) await db.table(name).clear();
      await db.historyRanges.clear();
      await db.meta.delete('taskWindow');
    }
    const serverRows = await applyChanges(db, page.changes, page.reset ? 'fresh' : page.bootstrap ? 'whole' : 'window');
    await settleBootstrapWindow(db, page);
    await refreshRollbacks(db, serverRows, page.reset);
    await writeCursor(db, page.reset ? page.cursor : Math.max(page.cursor, await readCursor(db)));
    if (page.reset) await db.meta.put({ key: 'protocolVersion', value: PROTOCOL_VERSION });
    if (page.bootstrap?.next) await db.meta.put({ key: 'bootstrap', value: page.bootstrap });
    else await db.meta.delete('bootstrap');
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
    const touched = page.reset
      ? await everyPendingRow(db)
      : [...serverRows.keys(), ...processed.flatMap((entry) => entry.rowKeys)];
    await rebase(db, ctx, touched, new Set(serverRows.keys()));
  });
}

/** Puts the rows a queued write touched back as the server last sent them (see refreshRollbacks). */
async function restoreRows(db: WorkspaceDb, entry: OutboxEntry): Promise<void> {
  for (const undo of entry.undo) await putServerRow(db, undo);
}

/** A change that arrived over Socket.IO, with its place in the change log. */
export interface LiveChange {
  seq: number;
  change: Change;
}

/** What became of live changes: applied (and the cursor moved when allowed), or one held for a pending write. */
export type LiveOutcome = 'applied' | 'held';

/**
 * Applies changes that arrived over Socket.IO, in arrival order, in one transaction: a burst costs one commit,
 * not one per change. The caller says whether its stream is complete since its last pull (`advance`): then the
 * cursor follows the changes, as nothing they may see came in between. A change to a row this device is still
 * writing is applied but 'held': it may already contain that write, which the rebase would then apply twice, so
 * the cursor stops before it and the pull after the push brings the row again, once the server has said which
 * writes it holds.
 */
export async function applyLiveChanges(
  db: WorkspaceDb,
  ctx: MutatorContext,
  live: readonly LiveChange[],
  advance: boolean,
): Promise<LiveOutcome> {
  return db.transaction('rw', allTables(db), async () => {
    const keyOf = ({ change }: LiveChange) => rowKey(entityTables[change.entity], change.id);
    const pending = await pendingWritesOf(db, live.map(keyOf));
    const pendingKeys = new Set([...pending.values()].flatMap((entry) => entry.rowKeys));
    const firstHeld = live.findIndex((each) => pendingKeys.has(keyOf(each)));
    // The newest state of each row: a page names each entity once (see applyChanges).
    const newest = new Map(live.map((each) => [keyOf(each), each.change]));
    const intake = (await isBootstrapping(db)) ? 'windowWhileBootstrapping' : 'window';
    const serverRows = await applyChanges(db, [...newest.values()], intake);
    await refreshRollbacks(db, serverRows, false);
    await rebase(db, ctx, serverRows.keys(), new Set(serverRows.keys()));
    const followed = firstHeld === -1 ? live : live.slice(0, firstHeld);
    const seq = Math.max(...followed.map((each) => each.seq));
    if (advance && followed.length && seq > (await readCursor(db))) await writeCursor(db, seq);
    return firstHeld === -1 ? 'applied' : 'held';
  });
}

/**
 * The server refused a write: its rows go back to the server's newest state (see refreshRollbacks),
 * the writes still queued on them are applied again, and the refused one is kept as failed, with the reason.
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
    await rebase(db, ctx, entry.rowKeys, new Set(entry.rowKeys));
  });
}

/**
 * Drops acknowledged entries. Their rows stop being pending unless another queued write touches them; they
 * keep what they show (the server holds it now) until a pull brings the server's row.
 */
export async function acknowledgeEntries(db: WorkspaceDb, entryIds: readonly number[]): Promise<void> {
  if (!entryIds.length) return;
  await db.transaction('rw', allTables(db), async () => {
    const entries = (await db.outbox.bulkGet([...entryIds])).filter((entry) => entry !== undefined);
    await db.outbox.bulkDelete([...entryIds]);
    const keys = new Set(entries.flatMap((entry) => entry.rowKeys));
    const still = await pendingWritesOf(db, keys);
    for (const key of keys) {
      if (![...still.values()].some((entry) => entry.rowKeys.includes(key))) await clearPending(db, key);
    }
  });
}

/** The queued writes in the order they were made. */
export const pendingEntries = (db: WorkspaceDb, max: number): Promise<OutboxEntry[]> =>
  db.outbox.where('status').equals('pending').limit(max).sortBy('id');
