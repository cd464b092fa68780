import type { EntityName } from '@office/sync-protocol';
import {
  comparePositions,
  everyChangeAfter,
  formatPosition,
  laterPosition,
  readablePosition,
  type FedChange,
  type LogPosition,
} from '../db/change-feed';
import type { Db } from '../db/client';
import { loadCurrent } from '../domain/sync/entities';
import { changeEvents } from './change-events';
import type { RoomEvent } from './types';

/** Changes read at once; a longer backlog is read page after page. */
const PAGE = 500;
/** How soon the log is read again while committed changes wait behind an older transaction still running. */
const BEHIND_HORIZON_MS = 5;
/** How often the log is read with no wake-up: a lost one costs at most this much delay, never a change. */
const POLL_MS = 250;
/** How soon the log is read again after a failed read (the database away). */
const RETRY_MS = 1_000;

export interface ChangeTailerOptions {
  db: Db;
  /** Whether a socket of this node sits in one of these rooms: changes nobody here hears are not loaded. */
  heardHere: (rooms: string[]) => boolean;
  /** Sends events to this node's own sockets, in order. */
  deliver: (events: RoomEvent[]) => void;
  onError: (error: unknown) => void;
}

/**
 * A node's live feed on PostgreSQL, where writers of every node run at the same time: it reads the change log from
 * where it last stopped, only what can be read (below the visibility horizon, in the log's order, see change-feed.ts),
 * and sends each change to its own sockets that may see it. Every node reads every change once and in order, so a
 * socket that stayed connected to one node hears every change it may see, in order, after its last pull (and pulls
 * when it dropped). It reads when woken (a commit on any node) and every POLL_MS besides; one read at a time.
 */
export class ChangeTailer {
  private position: LogPosition | null = null;
  private reading = false;
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  /** Those waiting for the feed to reach a place (caughtUp). */
  private waiters: { target: LogPosition; resolve: () => void }[] = [];

  constructor(private readonly options: ChangeTailerOptions) {}

  /** Starts from what can be read now: sockets that connect from here pull first, and hear what comes after. */
  async start(): Promise<void> {
    this.position = await readablePosition(this.options.db);
    this.schedule(POLL_MS);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    for (const { resolve } of this.waiters.splice(0)) resolve();
  }

  /** Resolves once the feed has read every change that could be read when it was called (the tests wait on it). */
  async caughtUp(): Promise<void> {
    const target = await readablePosition(this.options.db);
    await new Promise<void>((resolve) => {
      this.waiters.push({ target, resolve });
      this.resolveReached();
      this.wake();
    });
  }

  private resolveReached(): void {
    const position = this.position;
    if (this.stopped || position === null) return;
    const reached = this.waiters.filter(({ target }) => comparePositions(position, target) >= 0);
    this.waiters = this.waiters.filter((waiter) => !reached.includes(waiter));
    for (const { resolve } of reached) resolve();
  }

  /** Something committed: read the log now (or right after the read under way). */
  wake = (): void => {
    if (this.stopped || this.position === null) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    void this.read();
  };

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(this.wake, ms);
    this.timer.unref();
  }

  private async read(): Promise<void> {
    this.reading = true;
    let next = POLL_MS;
    try {
      for (;;) {
        this.again = false;
        const from = this.position;
        if (from === null || this.stopped) return;
        const { changes, readable, waiting } = await everyChangeAfter(this.options.db, from, PAGE);
        await this.send(changes);
        const full = changes.length === PAGE;
        const last = changes.at(-1)?.position;
        this.position = full && last ? last : laterPosition(readable, last ?? from);
        this.resolveReached();
        if (full) continue;
        if (waiting) next = BEHIND_HORIZON_MS;
        if (!this.again) break;
      }
    } catch (error) {
      this.options.onError(error);
      next = RETRY_MS;
    } finally {
      this.reading = false;
      this.schedule(next);
    }
  }

  /** Loads what the changes left (those heard on this node) and sends their events. */
  private async send(changes: FedChange[]): Promise<void> {
    const heard = changes.filter((change) => this.options.heardHere(change.principals));
    if (!heard.length) return;
    const entries = heard.map((change) => ({
      cursor: formatPosition(change.position),
      entity: change.entity as EntityName,
      id: change.entityId,
      principals: change.principals,
    }));
    const states = await loadCurrent(
      this.options.db,
      entries.map((entry) => ({ entity: entry.entity, id: entry.id, op: 'put' as const })),
    );
    this.options.deliver(changeEvents(entries, states));
  }
}
