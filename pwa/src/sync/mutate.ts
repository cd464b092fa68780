import { mutationArgsSchemas, type MutationArgs, type MutationName } from '@office/sync-protocol';
import {
  rowKey,
  rowKeysOf,
  syncedTableNames,
  type EntityTableName,
  type OutboxEntry,
  type UndoRecord,
  type WorkspaceDb,
} from '../data/db';
import { mutators, type Mutator, type MutatorContext } from './mutators';
import { StorageFullError, withRoomToStore } from './storage';

/** A local write that could not be queued; `code` says why (invalid input, full disk). */
export class LocalWriteError extends Error {
  constructor(
    readonly code: 'invalid_input' | 'storage_full',
    message: string,
  ) {
    super(message);
  }
}

/**
 * A local write: validates with the contract's schema, applies the optimistic change and appends
 * the outbox entry with the next mutation id, all in one Dexie transaction. Returns the mutation id.
 */
export async function mutate<N extends MutationName>(
  db: WorkspaceDb,
  ctx: MutatorContext,
  name: N,
  args: MutationArgs<N>,
): Promise<number> {
  const parsed = mutationArgsSchemas[name].safeParse(args);
  if (!parsed.success) throw new LocalWriteError('invalid_input', parsed.error.issues[0]?.message ?? 'Invalid input');
  const mutator = mutators[name] as Mutator<N>;
  const write = () =>
    db.transaction('rw', [db.outbox, db.meta, ...syncedTableNames], async () => {
      const touched = mutator.touches(args, ctx);
      // The reads go out together: each request is a round trip to the browser's IndexedDB, which the person
      // waits out before the screen shows the write.
      const [next, undo] = await Promise.all([
        db.meta.get('nextMutationId'),
        Promise.all(touched.map(({ table, key }) => undoRecordOf(db, table, key))),
      ]);
      const id = typeof next?.value === 'number' ? next.value : 1;
      await mutator.apply(db, args, ctx);
      const at = new Date().toISOString();
      await Promise.all([
        db.outbox.add({ id, name, args, at, status: 'pending', undo, rowKeys: rowKeysOf(touched) }),
        db.meta.put({ key: 'nextMutationId', value: id + 1 }),
      ]);
      return id;
    });
  try {
    // A full disk costs the cache of older messages first (storage.ts).
    return await withRoomToStore(db, write);
  } catch (error) {
    if (error instanceof StorageFullError) throw new LocalWriteError('storage_full', error.message);
    throw error;
  }
}

/**
 * What a refusal rolls back to: the server's row. An earlier queued write of the same row holds it already; the
 * row itself shows that write's change, which the server may refuse as well. Found by index: the cost of a write
 * does not grow with the outbox.
 */
async function undoRecordOf(db: WorkspaceDb, table: EntityTableName, key: string): Promise<UndoRecord> {
  const [earlier, row] = await Promise.all([
    earliestPendingWrite(db, table, key),
    db.table(table).get(key) as Promise<UndoRecord['row'] | undefined>,
  ]);
  const held = earlier?.undo.find((record) => record.table === table && record.key === key);
  return { table, key, row: (held ? held.row : row) ?? null };
}

/** The oldest queued (pending) write of one row, found on the outbox's row index. */
export async function earliestPendingWrite(
  db: WorkspaceDb,
  table: string,
  key: string,
): Promise<OutboxEntry | undefined> {
  const writes = await db.outbox.where('rowKeys').equals(rowKey(table, key)).toArray();
  return writes.filter((entry) => entry.status === 'pending').sort((a, b) => a.id - b.id)[0];
}
