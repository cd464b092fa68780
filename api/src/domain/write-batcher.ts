import type { z } from 'zod';
import type { Actor } from '@office/sync-protocol';
import type { Db } from '../db/client';
import { inSavepoint } from '../db/savepoint';
import { transaction } from '../db/transaction';
import {
  effectsMark,
  newPendingEffects,
  runCommand,
  runInTransaction,
  type Command,
  type EffectsFlusher,
} from './commands';
import { DomainError } from './errors';

/** The most writes one transaction takes. */
const MAX_BATCH = 256;

interface QueuedWrite {
  actor: Actor;
  command: Command<z.ZodType, unknown>;
  rawArgs: unknown;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
}

type Settled = { value: unknown } | { refusal: DomainError };

/**
 * Commands of requests that arrive together share one transaction. Each runs in its own savepoint, so a
 * refusal undoes only its own writes; the batch commits once and publishes once it is on disk. A commit
 * appends every page it changed to the WAL, so a busy chat writes each page once per batch instead of once
 * per message, as a pushed batch of queued writes does.
 *
 * One batch at a time: it takes what is queued once its transaction has begun, and what arrives while it runs (on
 * PostgreSQL its statements wait for the change-log lock, which writers of every node take in turn, and for their
 * answers), so a busy node holds the lock once for many writes instead of queueing a transaction per turn of its
 * event loop.
 */
export class WriteBatcher {
  private queue: QueuedWrite[] = [];
  private draining = false;

  constructor(
    private readonly db: Db,
    private readonly flush: EffectsFlusher,
    /** Resolves once no flush to disk runs (SQLite): a batch committed during one would wait for the next anyway. */
    private readonly flushIdle: () => Promise<void> = () => Promise.resolve(),
    /** Hears the size of each batch that commits (the server's metrics). */
    private readonly committed: (size: number) => void = () => undefined,
  ) {}

  /** Runs the command with the writes queued until its batch's turn; resolves with its result. */
  run<S extends z.ZodType, O>(actor: Actor, command: Command<S, O>, rawArgs: unknown): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ actor, command, rawArgs, resolve, reject });
      this.drainSoon();
    });
  }

  /** Starts a batch after this turn of the event loop (the requests read in it join), unless one is running. */
  private drainSoon(): void {
    if (this.draining || this.queue.length === 0) return;
    this.draining = true;
    setImmediate(
      () =>
        void this.drain().finally(() => {
          this.draining = false;
          this.drainSoon();
        }),
    );
  }

  private async drain(): Promise<void> {
    // A commit appends every page it changed to the WAL: waiting out the running fsync gathers the writes that
    // arrive meanwhile into one commit, and their answers still leave with the next fsync.
    await this.flushIdle();
    let batch: QueuedWrite[] = [];
    const pending = newPendingEffects();
    let settled: Settled[];
    try {
      settled = await transaction(
        this.db,
        async (tx) => {
          const outcomes: Settled[] = [];
          // Taken one by one: what arrives while the batch runs (on PostgreSQL, while it waits for its statements)
          // joins it, up to a bound that keeps the first writes' answers from waiting on a long tail.
          while (batch.length < MAX_BATCH) {
            const write = this.queue.shift();
            if (!write) break;
            batch.push(write);
            const restore = effectsMark(pending);
            try {
              outcomes.push({
                value: await inSavepoint(tx, () =>
                  runInTransaction(tx, write.actor, write.command, write.rawArgs, pending),
                ),
              });
            } catch (error) {
              if (!(error instanceof DomainError)) throw error;
              restore();
              outcomes.push({ refusal: error });
            }
          }
          return outcomes;
        },
        { recordsChanges: true },
      );
    } catch {
      // Something unexpected rolled the whole batch back (or the transaction never began): each write runs alone,
      // so only its own request fails.
      if (batch.length === 0) batch = this.queue.splice(0);
      for (const write of batch) {
        try {
          write.resolve(await runCommand(this.db, this.flush, write.actor, write.command, write.rawArgs));
        } catch (error) {
          write.reject(error);
        }
      }
      return;
    }
    this.committed(batch.length);
    this.flush(pending);
    batch.forEach((write, index) => {
      const outcome = settled[index];
      if (!outcome) write.reject(new Error('a batched write has no outcome'));
      else if ('refusal' in outcome) write.reject(outcome.refusal);
      else write.resolve(outcome.value);
    });
  }
}
