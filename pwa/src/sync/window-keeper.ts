import { Dexie, type Collection } from 'dexie';
import {
  initialCursor,
  lastReadAtOf,
  readByMarker,
  teamChatKey,
  type HistoryWindow,
  type WindowCounts,
} from '@office/sync-protocol';
import { rowKey, type HeldSpan, type HistoryRange, type WorkspaceDb } from '../data/db';
import { ApiError } from '../api/http';
import { readCursor } from './meta';
import type { WindowCountsSource } from './transport';
import { rangeOrWhole, readTaskWindow, writeTaskWindow } from './window';

// Issue 46: what left the device's window goes in idle time, in small transactions. The window's edges move up as
// new messages come (by a tenth of the window at a time, so a busy chat does not move them with every message), the
// server counts what lies before the new edges, and messages before an edge become the cache: kept while their
// person reads them, then evicted. A row a queued or refused write names is never evicted.

/** How the keeper keeps what it keeps. */
export interface WindowKeeperOptions {
  /** How long older messages fetched for reading stay after they were last read. */
  cacheKeepMs?: number;
  /** At most this many of those in all; the least recently read conversation's go first. */
  cacheMax?: number;
  /** Rows per eviction transaction. */
  batch?: number;
  now?: () => number;
  /** Waits for the page to be idle before a pass (requestIdleCallback in the app). */
  whenIdle?: (run: () => void) => void;
}

const DAY_MS = 86_400_000;
const defaults = { cacheKeepMs: 7 * DAY_MS, cacheMax: 2000, batch: 500 };

/** The window may grow this far past its size before its edge moves. */
const slackOf = (size: number): number => Math.ceil(size / 10);

/** A message table read by conversation and time. */
interface MessageStore {
  /** Held messages of the conversation from `from` (inclusive) to `to` (exclusive; null: on to now), oldest first. */
  between(from: string, to: string | null): Dexie.Collection<{ id: string }, string>;
  /** Held messages of the conversation at exactly this time. */
  at(time: string): Dexie.Collection<{ id: string }, string>;
  timeOf(row: unknown): string;
  table: string;
}

function messageStore(db: WorkspaceDb, key: string): MessageStore {
  if (key === teamChatKey)
    return {
      table: 'chatMessages',
      between: (from, to) =>
        (to === null
          ? db.chatMessages.where('timestamp').aboveOrEqual(from)
          : db.chatMessages.where('timestamp').between(from, to, true, false)) as Dexie.Collection<
          { id: string },
          string
        >,
      at: (time) => db.chatMessages.where('timestamp').equals(time) as Dexie.Collection<{ id: string }, string>,
      timeOf: (row) => (row as { timestamp: string }).timestamp,
    };
  return {
    table: 'directMessages',
    between: (from, to) =>
      db.directMessages
        .where('[conversationId+createdAt]')
        .between([key, from], [key, to ?? '\uffff'], true, to === null) as Dexie.Collection<{ id: string }, string>,
    at: (time) =>
      db.directMessages.where('[conversationId+createdAt]').equals([key, time]) as Dexie.Collection<
        { id: string },
        string
      >,
    timeOf: (row) => (row as { createdAt: string }).createdAt,
  };
}

/** Where the window of `size` messages would start now, when the window has grown past its slack; else null. */
async function movedEdge(store: MessageStore, edge: string | null, size: number): Promise<string | null> {
  const inWindow = store.between(edge ?? '', null);
  if ((await inWindow.count()) <= size + slackOf(size)) return null;
  const oldestKept = await store
    .between(edge ?? '', null)
    .reverse()
    .offset(size - 1)
    .first();
  return oldestKept ? store.timeOf(oldestKept) : null;
}

/** The rows of these keys that a queued or refused write names: never evicted. */
async function namedByOutbox(db: WorkspaceDb, table: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const keys = ids.map((id) => rowKey(table, id));
  const entries = await db.outbox.where('rowKeys').anyOf(keys).toArray();
  const named = new Set(entries.flatMap((entry) => entry.rowKeys));
  return new Set(ids.filter((id) => named.has(rowKey(table, id))));
}

/** The spans once everything at or before `through` is gone, the span it cut starting at `from`. */
export function cutSpans(spans: readonly HeldSpan[], through: string, from: string): HeldSpan[] {
  return spans.flatMap((span) => {
    if (span.to !== null && span.to <= through) return [];
    return [span.from <= through ? { ...span, from } : span];
  });
}

const yieldToScreens = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Evicts a conversation's messages before its window's edge, oldest first, a batch per transaction (never ending
 * inside a run of one time, so its spans stay exact), and cuts its spans to what stays. A row a queued or refused
 * write names stays.
 */
export async function evictMessagesBefore(
  db: WorkspaceDb,
  key: string,
  batchSize: number,
  stopped: () => boolean = () => false,
): Promise<void> {
  const store = messageStore(db, key);
  let after = '';
  for (;;) {
    if (stopped()) return;
    const done = await db.transaction('rw', [db.outbox, db.historyRanges, db.table(store.table)], async () => {
      const range = await db.historyRanges.get(key);
      if (!range?.edge) return true;
      const batch = await store.between(after, range.edge).limit(batchSize).toArray();
      const last = batch.at(-1);
      if (!last) {
        await db.historyRanges.put({ ...range, spans: cutSpans(range.spans, range.edge, range.edge) });
        return true;
      }
      const through = store.timeOf(last);
      const ties = await store.at(through).toArray();
      const ids = [...new Set([...batch, ...ties].map((row) => row.id))];
      const kept = await namedByOutbox(db, store.table, ids);
      await db.table(store.table).bulkDelete(ids.filter((id) => !kept.has(id)));
      const next = await store
        .between(through, range.edge)
        .filter((row) => store.timeOf(row) > through)
        .first();
      const from = next ? store.timeOf(next) : range.edge;
      await db.historyRanges.put({ ...range, spans: cutSpans(range.spans, through, from) });
      after = from;
      return !next;
    });
    if (done) return;
    await yieldToScreens();
  }
}

/** Every message before the windows' edges, whenever it was read: room for what must be stored (a full disk). */
export async function evictAllCached(db: WorkspaceDb, batchSize = defaults.batch): Promise<void> {
  const trimmed = await db.historyRanges.filter((range) => range.edge !== null).primaryKeys();
  for (const key of trimmed) await evictMessagesBefore(db, String(key), batchSize);
}

/** Keeps the device to its window: moves its edges, has the server count what lies before them, evicts the rest. */
export class WindowKeeper {
  private readonly options: Required<Omit<WindowKeeperOptions, 'whenIdle'>> & Pick<WindowKeeperOptions, 'whenIdle'>;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly db: WorkspaceDb,
    /** Whose device it is: their read markers say what is unread before an edge. */
    private readonly userId: string,
    private readonly source: WindowCountsSource,
    options: WindowKeeperOptions = {},
  ) {
    this.options = { ...defaults, now: () => Date.now(), ...options };
  }

  /** After a sync: a pass when the page is idle (one at a time; one more if asked meanwhile). */
  schedule = (): void => {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    const start = () => {
      if (this.stopped || this.running) return;
      this.running = this.pass().finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.schedule();
        }
      });
    };
    if (this.options.whenIdle) this.options.whenIdle(start);
    else start();
  };

  stop(): void {
    this.stopped = true;
  }

  /** Resolves when no pass runs (tests wait on it). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  private async pass(): Promise<void> {
    try {
      await this.runNow();
    } catch (error) {
      // Offline, or the server is away or refused: the next sync schedules another pass. Only a fault of ours is told.
      if (!(error instanceof ApiError)) console.warn('Keeping the window of history failed', error);
    }
  }

  /** One whole pass: edges and counts, then eviction. */
  async runNow(): Promise<void> {
    const row = await this.db.meta.get('window');
    if (row?.key !== 'window' || (await readCursor(this.db)) === initialCursor) return;
    await this.moveEdgesAndCount(row.value);
    await this.evictMessages();
    await this.evictTasks();
    await this.evictNotices(row.value);
  }

  /**
   * Moves the edges of windows grown past their size, and has the server count what lies before every edge that is
   * new, or whose count is missing or stale, in one request. The answer is taken only if no pull came in meanwhile
   * (the cursor is opaque: compared, never read): a change applied in between might be counted twice, or not at all.
   */
  private async moveEdgesAndCount(window: HistoryWindow): Promise<void> {
    const { db } = this;
    const plan: { key: string; from: string | null; to: string }[] = [];
    const conversations = await db.conversations.toArray();
    const keys = [teamChatKey, ...conversations.map((conversation) => conversation.id)];
    const ranges = await db.historyRanges.bulkGet(keys);
    // The read marker each count was made for: one that moved but stays before the edge is counted again.
    const marker = await db.notificationMarkers.get(this.userId);
    const readAtOf = new Map<string, string | null>([
      [teamChatKey, marker?.readThrough ?? null],
      ...conversations.map((c) => [c.id, lastReadAtOf(c, this.userId)] as const),
    ]);
    for (const [i, key] of keys.entries()) {
      const range = rangeOrWhole(ranges[i], key);
      const size = key === teamChatKey ? window.teamChatMessages : window.directMessages;
      const moved = await movedEdge(messageStore(db, key), range.edge, size);
      const to = moved ?? range.edge;
      const readAt = readAtOf.get(key) ?? null;
      const readMoved =
        range.before !== null && range.before.readAt !== readAt && (readAt === null || (to !== null && readAt < to));
      if (to !== null && (moved !== null || range.before === null || range.stale || readMoved))
        plan.push({ key, from: range.edge, to });
    }
    const tasks = await readTaskWindow(db);
    const target = window.completedSince;
    const leaving =
      (tasks.edge === null || target > tasks.edge) &&
      (await db.tasks
        .where('[status+updatedAt]')
        .between(['completed', tasks.edge ?? ''], ['completed', target], true, false)
        .count()) > 0;
    const taskTo = leaving ? target : tasks.edge;
    const countTasks = taskTo !== null && (leaving || tasks.before === null || tasks.stale);
    if (plan.length === 0 && !countTasks) return;

    const cursor = await readCursor(db);
    const team = plan.find((each) => each.key === teamChatKey);
    const counts: WindowCounts = await this.source.windowCounts({
      ...(team ? { teamChat: team.to } : {}),
      ...(countTasks && taskTo !== null ? { tasks: taskTo } : {}),
      conversations: plan.filter((each) => each.key !== teamChatKey).map(({ key, to }) => ({ id: key, edge: to })),
    });
    await db.transaction('rw', [db.meta, db.historyRanges], async () => {
      if ((await readCursor(db)) !== cursor) return;
      const byConversation = new Map(counts.conversations.map((each) => [each.id, each]));
      for (const { key, from, to } of plan) {
        const range = rangeOrWhole(await db.historyRanges.get(key), key);
        // Moved meanwhile (another tab): its own pass counts it.
        if (range.edge !== from) continue;
        const counted = key === teamChatKey ? counts.teamChat : byConversation.get(key);
        if (!counted) continue;
        const readAt = 'readThrough' in counted ? counted.readThrough : counted.lastReadAt;
        const byAuthor = 'byAuthor' in counted ? counted.byAuthor : {};
        await db.historyRanges.put({
          ...range,
          edge: to,
          before: { unread: counted.unread, readAt, byAuthor },
          stale: false,
        });
      }
      const current = await readTaskWindow(db);
      if (countTasks && counts.tasks && current.edge === tasks.edge && taskTo !== null)
        await writeTaskWindow(db, { edge: taskTo, before: counts.tasks, stale: false });
    });
  }

  /** Messages before each window's edge that nobody read lately, and the least recently read beyond the cache's size. */
  private async evictMessages(): Promise<void> {
    const { db } = this;
    const now = this.options.now();
    const trimmed = (await db.historyRanges.toArray()).filter(
      (range): range is HistoryRange & { edge: string } => range.edge !== null,
    );
    const cached: { range: HistoryRange & { edge: string }; count: number }[] = [];
    for (const range of trimmed) {
      const count = await messageStore(db, range.key).between('', range.edge).count();
      if (count === 0) continue;
      const viewed = range.viewedAt === null ? 0 : Date.parse(range.viewedAt);
      if (now - viewed > this.options.cacheKeepMs) await this.evictBefore(range.key);
      else cached.push({ range, count });
    }
    let total = cached.reduce((sum, each) => sum + each.count, 0);
    for (const { range, count } of cached.sort((a, b) =>
      (a.range.viewedAt ?? '').localeCompare(b.range.viewedAt ?? ''),
    )) {
      if (total <= this.options.cacheMax) break;
      await this.evictBefore(range.key);
      total -= count;
    }
  }

  /** A conversation's messages before its window's edge. */
  private evictBefore(key: string): Promise<void> {
    return evictMessagesBefore(this.db, key, this.options.batch, () => this.stopped);
  }

  /** Completed tasks before the task window's edge. */
  private async evictTasks(): Promise<void> {
    const { db } = this;
    const { edge } = await readTaskWindow(db);
    if (edge === null) return;
    await this.evictInBatches('tasks', () =>
      db.tasks.where('[status+updatedAt]').between(['completed', Dexie.minKey], ['completed', edge], true, false),
    );
  }

  /** Read notices older than the person's newest ones: unread ones stay (the bell counts them). */
  private async evictNotices(window: HistoryWindow): Promise<void> {
    const { db } = this;
    const newest = await db.notifications
      .orderBy('createdAt')
      .reverse()
      .offset(window.notifications - 1)
      .first();
    if (!newest) return;
    const marker = await db.notificationMarkers.toCollection().first();
    await this.evictInBatches('notifications', () =>
      db.notifications
        .where('createdAt')
        .below(newest.createdAt)
        .filter((notice) => notice.read || (marker !== undefined && readByMarker(marker, notice.createdAt))),
    );
  }

  /** Deletes what `select` reads, a batch per transaction, leaving rows a queued or refused write names. */
  private async evictInBatches<T extends { id: string }, I>(
    table: 'tasks' | 'notifications',
    select: () => Collection<T, string, I>,
  ): Promise<void> {
    const { db } = this;
    const kept = new Set<string>();
    for (;;) {
      if (this.stopped) return;
      const more = await db.transaction('rw', [db.outbox, db.meta, db.table(table)], async () => {
        const ids = await select()
          .filter((row) => !kept.has(row.id))
          .limit(this.options.batch)
          .primaryKeys();
        for (const id of await namedByOutbox(db, table, ids)) kept.add(id);
        await db.table(table).bulkDelete(ids.filter((id) => !kept.has(id)));
        return ids.length === this.options.batch;
      });
      if (!more) return;
      await yieldToScreens();
    }
  }
}
