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
  private reindexing = false;
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
      this.reindexRenamed(db);
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
    // People first: tasks are indexed under their people's names as the directory holds them.
    const kinds = [...searchKinds].sort((a, b) => Number(b === 'person') - Number(a === 'person'));
    const tables = kinds.map((kind) => db.table(kindTables[kind]));
    // One read transaction: one consistent snapshot of the four tables.
    const snapshot = await db.transaction('r', tables, () => Promise.all(tables.map((table) => table.toArray())));
    for (const [at, kind] of kinds.entries()) await this.index.addAll(kindTables[kind], snapshot[at] ?? []);
    this.index.apply(this.pending.splice(0));
    this.built = true;
    this.notify();
    this.reindexRenamed(db);
  }

  /**
   * A person renamed: their tasks are read again and indexed under the new name (only theirs, never a rebuild).
   * One read at a time; renames that come meanwhile are read next.
   */
  private reindexRenamed(db: WorkspaceDb): void {
    if (!this.built || this.reindexing) return;
    const ids = this.index.staleTaskIds;
    if (ids.length === 0) return;
    this.reindexing = true;
    void db.tasks
      .bulkGet(ids)
      .then((rows) => {
        this.index.reindexTasks(ids, rows);
        this.notify();
      })
      .catch((error: unknown) => {
        // The database went away (signed out): the index goes with it.
        console.warn('Could not read the tasks of a renamed person', error);
        this.index.reindexTasks(ids, []);
      })
      .finally(() => {
        this.reindexing = false;
        this.reindexRenamed(db);
      });
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
