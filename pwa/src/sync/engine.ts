import { fileMutationNames, limits, type Change, type MutationName, type MutationOutcome } from '@office/sync-protocol';
import type { WorkspaceDb } from '../data/db';
import { ApiError, isNetworkError } from '../api/http';
import { acknowledgeEntries, applyLiveChanges, applyPull, pendingEntries, rejectEntry, type LiveChange } from './apply';
import { backoffDelay } from './backoff';
import { StorageFullError, withRoomToStore } from './storage';
import { clientIdOf, readBootstrap, readCursor, requireProtocol } from './meta';
import type { MutatorContext } from './mutators';
import type { SyncTransport } from './transport';

/** How long a burst of live changes pauses between two transactions, for the screens' live queries to read. */
const readersTurnMs = 100;

const carriesFiles = (name: MutationName): boolean => (fileMutationNames as readonly string[]).includes(name);

/** What the sync loop is doing, for the header indicator. */
export type SyncPhase = 'idle' | 'syncing' | 'offline' | 'retrying' | 'signed-out' | 'storage-full';

export interface SyncState {
  phase: SyncPhase;
  /** When the next retry runs (epoch ms), while retrying or offline. */
  retryAt: number | null;
}

export interface SyncEngineOptions {
  random?: () => number;
  /** Only one tab pushes at a time; others may enqueue. Absent in tests. */
  locks?: LockManager | undefined;
  isOnline?: () => boolean;
}

/**
 * The sync loop: push the outbox in order, then pull until caught up (a first download pushes between its
 * pages too). Runs on start, when the network returns, on socket (re)connect, when the page becomes visible
 * and after each local write.
 *
 * Live changes (Socket.IO) move the cursor without a pull while the stream is known complete: the socket
 * has stayed connected since the last pull was sent, and no change was held for a pending write. The server
 * sends each change to exactly the rooms a pull would give it to, in commit order, so nothing this client may
 * see lies between the cursor and such a change. A burst of live changes thus costs no pull at all.
 */
export class SyncEngine {
  private state: SyncState = { phase: 'idle', retryAt: null };
  private readonly listeners = new Set<() => void>();
  private running = false;
  private again = false;
  private stopped = false;
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private pullTimer: ReturnType<typeof setTimeout> | null = null;
  /** Whether the socket is connected, and a count of its (dis)connections. */
  private connected = false;
  private connections = 0;
  /** Live changes held back (they touched a row with a pending write) so far. */
  private holds = 0;
  /** The stream of live changes is complete since the last pull (see the class comment). */
  private streamComplete = false;
  /** Live changes not applied yet, in the order they arrived, and the loop applying them while there are any. */
  private readonly liveQueue: LiveChange[] = [];
  private liveDrain: Promise<void> | null = null;

  constructor(
    private readonly db: WorkspaceDb,
    private readonly ctx: MutatorContext,
    private readonly transport: SyncTransport,
    private readonly options: SyncEngineOptions = {},
  ) {}

  getState = (): SyncState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private setState(state: SyncState): void {
    if (state.phase === this.state.phase && state.retryAt === this.state.retryAt) return;
    this.state = state;
    for (const listener of this.listeners) listener();
  }

  /** Runs a sync now, or right after the one in progress. */
  kick = (): void => {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    void this.run();
  };

  /** A poke from the server: pull soon, coalescing a burst of pokes into one pull. */
  pullSoon = (): void => {
    if (this.pullTimer || this.stopped) return;
    this.pullTimer = setTimeout(() => {
      this.pullTimer = null;
      this.kick();
    }, 50);
  };

  /** The socket (re)connected: pull to cover what it missed; from that pull on, its stream is complete. */
  socketConnected = (): void => {
    this.connected = true;
    this.connections += 1;
    this.streamComplete = false;
    this.kick();
  };

  /** The socket dropped: live changes no longer tell the whole story until the next pull. */
  socketDisconnected = (): void => {
    this.connected = false;
    this.connections += 1;
    this.streamComplete = false;
  };

  /** A change pushed over the socket: applied in arrival order; the cursor follows it when the stream is complete. */
  receiveLive = (seq: number, change: Change): Promise<void> => {
    this.liveQueue.push({ seq, change });
    this.liveDrain ??= this.drainLive();
    return this.liveDrain;
  };

  /**
   * Applies the queued live changes, those that came meanwhile together in one transaction. Between two such
   * transactions the screens' live queries get their turn: Dexie drops a query's answer when a write lands while
   * it reads, so back-to-back writes would freeze the screen for as long as a burst lasts.
   */
  private async drainLive(): Promise<void> {
    try {
      while (this.liveQueue.length && !this.stopped) {
        const batch = this.liveQueue.splice(0);
        try {
          const outcome = await withRoomToStore(this.db, () =>
            applyLiveChanges(this.db, this.ctx, batch, this.streamComplete),
          );
          if (outcome === 'held') {
            // The push of the pending write ends with a pull, which brings this change again.
            this.holds += 1;
            this.streamComplete = false;
            this.kick();
          }
        } catch (error) {
          // Not on this device: the next pull brings them.
          console.error('live changes failed', error);
          this.streamComplete = false;
          this.kick();
        }
        if (this.liveQueue.length) await new Promise((resolve) => setTimeout(resolve, readersTurnMs));
      }
    } finally {
      this.liveDrain = null;
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.pullTimer) clearTimeout(this.pullTimer);
    this.listeners.clear();
  }

  /** Resolves when no sync is running or queued (the tests wait on it). */
  async settled(): Promise<void> {
    while (this.running || this.pullTimer) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  private async run(): Promise<void> {
    this.running = true;
    this.setState({ phase: 'syncing', retryAt: null });
    try {
      let pushedAgainAfterGap = false;
      do {
        this.again = false;
        let stoppedAtGap = false;
        await this.withPushLock(async () => {
          stoppedAtGap = await this.pushAll();
        });
        await this.pullAll();
        // The server stopped at a gap: the pull may have settled it (the writes before the gap were acknowledged
        // meanwhile, or the workspace was restored from a backup and takes this device's queue from where it starts).
        if (stoppedAtGap && !pushedAgainAfterGap) {
          pushedAgainAfterGap = true;
          this.again = true;
        }
      } while (this.again && !this.stopped);
      this.attempt = 0;
      this.setState({ phase: 'idle', retryAt: null });
    } catch (error) {
      this.handleFailure(error);
    } finally {
      this.running = false;
    }
  }

  private handleFailure(error: unknown): void {
    if (error instanceof ApiError && error.status === 401) {
      // The session ended: keep every queued write, spend no retry; the same user's next sign-in replays them.
      this.setState({ phase: 'signed-out', retryAt: null });
      return;
    }
    if (!(error instanceof ApiError) && !(error instanceof StorageFullError)) console.error('sync failed', error);
    this.attempt += 1;
    const delay = backoffDelay(this.attempt, this.options.random);
    const offline = isNetworkError(error) || !(this.options.isOnline?.() ?? true);
    // A full disk even without the cache: the outbox stays as it is; the header says so until there is room.
    const phase = error instanceof StorageFullError ? 'storage-full' : offline ? 'offline' : 'retrying';
    this.setState({ phase, retryAt: Date.now() + delay });
    if (!this.stopped) this.retryTimer = setTimeout(this.kick, delay);
  }

  private async withPushLock(push: () => Promise<void>): Promise<void> {
    const locks = this.options.locks;
    if (!locks) return push();
    await locks.request(`office-sync-push-${this.ctx.userId}`, push);
  }

  /** Pushes the queue in order; resolves with whether the server stopped at a gap. */
  private async pushAll(): Promise<boolean> {
    const clientId = await clientIdOf(this.db);
    for (;;) {
      const queued = await pendingEntries(this.db, limits.pushBatchMax);
      if (queued.length === 0 || this.stopped) return false;
      // Messages with files go one by one as multipart, in their place in the queue.
      const first = queued[0];
      if (first && carriesFiles(first.name)) {
        const outcome = await this.transport.upload(clientId, first);
        if (outcome === 'gap') return true;
        await this.settle([outcome]);
        continue;
      }
      const stop = queued.findIndex((entry) => carriesFiles(entry.name));
      const batch = stop === -1 ? queued : queued.slice(0, stop);
      const answer = await this.transport.push({
        clientId,
        mutations: batch.map(({ id, name, args, at }) => ({ id, name, args, at })),
      });
      await this.settle(answer.outcomes);
      // Fewer outcomes than mutations: the server stopped at a gap; the pull below reconciles.
      if (answer.outcomes.length < batch.length) return true;
    }
  }

  /** A push between two pages of a first download; one that fails does not hold the download up. */
  private async pushDuringBootstrap(): Promise<void> {
    try {
      await this.withPushLock(async () => {
        await this.pushAll();
      });
    } catch (error) {
      // Pushed again once the last page is in; a lost connection or an ended session stops the next page anyway.
      if (!(error instanceof ApiError)) console.error('push during the first download failed', error);
      this.again = true;
    }
  }

  /** Drops acknowledged entries (together), and rolls refused ones back and keeps them as failed, in order. */
  private async settle(outcomes: readonly MutationOutcome[]): Promise<void> {
    let acknowledged: number[] = [];
    for (const outcome of outcomes) {
      const refused =
        outcome.status === 'rejected' || (outcome.status === 'duplicate' && outcome.original === 'rejected');
      if (!refused) {
        acknowledged.push(outcome.id);
        continue;
      }
      await acknowledgeEntries(this.db, acknowledged);
      acknowledged = [];
      await rejectEntry(this.db, this.ctx, outcome.id, {
        code: outcome.code ?? 'rejected',
        message: outcome.message ?? 'The server refused this change.',
      });
    }
    await acknowledgeEntries(this.db, acknowledged);
  }

  /**
   * Pulls until caught up. A bootstrap comes in pages; the token of the next one is kept with each, so a
   * broken link (or a reload) goes on from there instead of starting over.
   */
  private async pullAll(): Promise<void> {
    const clientId = await clientIdOf(this.db);
    await requireProtocol(this.db);
    for (;;) {
      if (this.stopped) return;
      const cursor = await readCursor(this.db);
      const snapshot = cursor === 0 ? (await readBootstrap(this.db))?.next : null;
      const before = { connected: this.connected, connections: this.connections, holds: this.holds };
      const page = await this.transport.pull({
        clientId,
        cursor,
        limit: limits.pullPageMax,
        ...(snapshot ? { snapshot } : {}),
      });
      await withRoomToStore(this.db, () => applyPull(this.db, this.ctx, page));
      if (page.more) {
        // A write made during a first download goes out between its pages rather than after the last one. The
        // pages read the server's rows as they are when served, so the pages after the push already hold it.
        if (page.bootstrap) await this.pushDuringBootstrap();
        continue;
      }
      // Everything up to the cursor is here; the socket, connected since before this request, has heard
      // every change after it unless it dropped or a change was held meanwhile.
      this.streamComplete = before.connected && before.connections === this.connections && before.holds === this.holds;
      return;
    }
  }
}
