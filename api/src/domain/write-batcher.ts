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
 */
export class WriteBatcher {
  private queue: QueuedWrite[] = [];

  constructor(
    private readonly db: Db,
    private readonly flush: EffectsFlusher,
  ) {}

  /** Runs the command with the writes queued in this turn of the event loop; resolves with its result. */
  run<S extends z.ZodType, O>(actor: Actor, command: Command<S, O>, rawArgs: unknown): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      const write: QueuedWrite = { actor, command, rawArgs, resolve, reject };
      if (this.queue.push(write) === 1) setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    const batch = this.queue.splice(0);
    const pending = newPendingEffects();
    let settled: Settled[];
    try {
      settled = await transaction(
        this.db,
        async (tx) => {
          const outcomes: Settled[] = [];
          for (const write of batch) {
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
      // Something unexpected rolled the whole batch back: each write runs alone, so only its own request fails.
      for (const write of batch) {
        try {
          write.resolve(await runCommand(this.db, this.flush, write.actor, write.command, write.rawArgs));
        } catch (error) {
          write.reject(error);
        }
      }
      return;
    }
    this.flush(pending);
    batch.forEach((write, index) => {
      const outcome = settled[index];
      if (!outcome) write.reject(new Error('a batched write has no outcome'));
      else if ('refusal' in outcome) write.reject(outcome.refusal);
      else write.resolve(outcome.value);
    });
  }
}
