import type { ServerSearchKind } from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import {
  changesAfter,
  indexedInBackground,
  moveSearchIndexedThrough,
  rebuildIndexes,
  reindexRows,
  searchedEntities,
  searchIndexedThrough,
} from '../../db/full-text';
import { transaction } from '../../db/transaction';
import { changeLogFloor, currentVersion } from '../change-log';

/** Changes indexed per transaction: a few milliseconds of the one connection, then the requests waiting get their turn. */
const CHANGES_PER_STEP = 500;
/** How often the indexer looks for new changes when nothing asked it to, and how many it indexes then at most. */
const POLL_MS = 1_000;
const CHANGES_PER_POLL = 20 * CHANGES_PER_STEP;

/**
 * Keeps SQLite's search indexes current from the change log, after the writes and in batches, as Zulip does with
 * its search index: indexing a message in its own commit cost four to seven times the message's own write (FTS5
 * writes a segment per transaction), while a batch of hundreds costs a few microseconds a row. Each step reads the
 * changes after its cursor, indexes the rows they name again as they are now, and moves the cursor in the same
 * transaction. A search first catches up with what is waiting (bounded), so it finds what was just written. On
 * PostgreSQL the GIN indexes are the database's own and this does nothing.
 */
export class SearchIndexer {
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly db: Db) {}

  /** Looks for new changes every second until stopped. */
  start(): void {
    if (!indexedInBackground || this.timer) return;
    this.timer = setInterval(() => void this.catchUp(CHANGES_PER_POLL).catch(() => undefined), POLL_MS);
    this.timer.unref();
  }

  /** Stops polling and waits for a step under way. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /**
   * Indexes the changes waiting, up to `maxChanges` of them (then the rest is left to the background), one step per
   * transaction; one catch-up at a time (a second caller waits for the one under way).
   */
  catchUp(maxChanges = 4 * CHANGES_PER_STEP): Promise<void> {
    if (!indexedInBackground) return Promise.resolve();
    this.running ??= this.steps(maxChanges).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async steps(maxChanges: number): Promise<void> {
    for (let indexed = 0; indexed < maxChanges; indexed += CHANGES_PER_STEP) {
      if (!(await this.step())) return;
      // Lets the requests queued meanwhile run before the next step.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** One transaction of indexing; answers whether changes may be left. */
  private async step(): Promise<boolean> {
    const cursor = await searchIndexedThrough(this.db);
    if (cursor === null || cursor >= (await currentVersion(this.db))) return false;
    return transaction(this.db, (tx) => indexChanges(tx, CHANGES_PER_STEP));
  }
}

/**
 * Indexes, in the caller's transaction, up to `maxChanges` changes after the indexer's cursor (all of them up to
 * `through` when given) and moves the cursor past them; answers whether changes may be left. Compaction runs it
 * before it drops changes, so that none is lost to the index.
 */
export async function indexChanges(tx: Tx, maxChanges: number, through = Number.POSITIVE_INFINITY): Promise<boolean> {
  const from = await searchIndexedThrough(tx);
  if (from === null) return false;
  // Changes compacted away before they were indexed (a database compacted by an older build): the tables
  // themselves are read again.
  if (from < (await changeLogFloor(tx))) {
    rebuildIndexes(tx);
    await moveSearchIndexedThrough(tx, await currentVersion(tx));
    return false;
  }
  const changes = (await changesAfter(tx, from, maxChanges)).filter((change) => change.seq <= through);
  const last = changes.at(-1);
  if (!last) return false;
  const ids = new Map<ServerSearchKind, Set<string>>();
  for (const change of changes) {
    const kind = searchedEntities[change.entity];
    if (kind) ids.set(kind, (ids.get(kind) ?? new Set()).add(change.entityId));
  }
  for (const [kind, kindIds] of ids) reindexRows(tx, kind, [...kindIds]);
  await moveSearchIndexedThrough(tx, last.seq);
  return changes.length === maxChanges;
}
