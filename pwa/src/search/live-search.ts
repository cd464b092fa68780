import type { WorkspaceDb } from '../data/db';
import { onRowChanges, type RowChange } from '../data/row-changes';
import { kindTables, searchKinds, SearchIndex } from './search-index';

/**
 * The search index of one local database, kept current: built once from what IndexedDB holds, then
 * changed row by row as writes commit (sync pulls, live changes, this user's own writes, rollbacks).
 */
export class LiveSearchIndex {
  readonly index = new SearchIndex();
  /** Settles when the first build is done; the changes committed meanwhile are applied by then. */
  readonly ready: Promise<void>;
  private built = false;
  private readonly pending: RowChange[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(db: WorkspaceDb) {
    // Following starts before the read, so nothing committed between the two is missed; a change the
    // read already holds is applied again, which leaves the same document.
    onRowChanges(db, (changes) => {
      if (!this.built) {
        this.pending.push(...changes);
        return;
      }
      if (this.index.apply(changes)) this.notify();
    });
    this.ready = this.build(db);
  }

  get isReady(): boolean {
    return this.built;
  }

  /** Calls `listener` after each change of the index; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async build(db: WorkspaceDb): Promise<void> {
    const tables = searchKinds.map((kind) => db.table(kindTables[kind]));
    // One read transaction: one consistent snapshot of the four tables.
    const snapshot = await db.transaction('r', tables, () => Promise.all(tables.map((table) => table.toArray())));
    for (const [at, kind] of searchKinds.entries()) await this.index.addAll(kindTables[kind], snapshot[at] ?? []);
    this.index.apply(this.pending.splice(0));
    this.built = true;
    this.notify();
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}

const indexes = new WeakMap<WorkspaceDb, LiveSearchIndex>();

/**
 * The live index of `db`, built on first use and kept for the rest of the session: it goes with the
 * database object when the user signs out (both are held only by it).
 */
export function liveSearchIndexOf(db: WorkspaceDb): LiveSearchIndex {
  let live = indexes.get(db);
  if (!live) {
    live = new LiveSearchIndex(db);
    indexes.set(db, live);
  }
  return live;
}
