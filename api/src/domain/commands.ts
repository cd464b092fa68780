import type { z } from 'zod';
import { inputProblem, type Actor, type ServerToClientEvents } from '@office/sync-protocol';
import type { Db, Tx } from '../db/client';
import { transaction } from '../db/transaction';
import { recordChange, type ChangeRef } from './change-log';
import { DomainError, parseInput } from './errors';

/** What a command sees: its transaction, who acts, the server's time and the time the user made the change. */
export interface CommandContext {
  tx: Tx;
  actor: Actor;
  now: Date;
  /** When the user made the change (a queued mutation's clamped `at`; otherwise `now`). */
  madeAt: Date;
  /**
   * The client's address as the request reached the server (`request.ip`, see TRUST_PROXY), for the audit trail;
   * null where no request is behind the command (the seed, the jobs) or none is passed (the write batcher's chat).
   */
  ip: string | null;
  record(change: Omit<ChangeRef, 'seq'>): Promise<ChangeRef>;
  afterCommit(effect: () => void): void;
  /** Tells these rooms a spec event once the transaction has committed. */
  announce(announcement: Announcement): void;
  /** Wakes the background push queue once the write is durable: these notifications (or a chat message) wait for it. */
  queuePush(notificationIds?: string[]): void;
}

type SpecEvent = Exclude<keyof ServerToClientEvents, 'sync.change' | 'sync.poke' | 'error'>;
/** A realtime event of the spec, with the rooms it goes to. */
export type Announcement = {
  [E in SpecEvent]: { to: string[]; event: E; payload: Parameters<ServerToClientEvents[E]>[0] };
}[SpecEvent];

/** A named domain write: validates, authorizes and writes inside one transaction. */
export interface Command<S extends z.ZodType, O> {
  name: string;
  args: S;
  run(ctx: CommandContext, args: z.output<S>): O | Promise<O>;
}

export const defineCommand = <S extends z.ZodType, O>(command: Command<S, O>): Command<S, O> => command;

/** What a committed command leaves for after the commit is durable: realtime publication and side effects. */
export interface PendingEffects {
  changes: ChangeRef[];
  announcements: Announcement[];
  /** Ids of the notifications created. */
  notifications: string[];
  /** Whether something waits for the background push queue. */
  push: boolean;
  effects: (() => void)[];
}

export const newPendingEffects = (): PendingEffects => ({
  changes: [],
  announcements: [],
  notifications: [],
  push: false,
  effects: [],
});

/** Remembers how far `pending` is, to drop what a refused command (a rolled-back savepoint) added after. */
export function effectsMark(pending: PendingEffects): () => void {
  const lengths = {
    changes: pending.changes.length,
    announcements: pending.announcements.length,
    notifications: pending.notifications.length,
    effects: pending.effects.length,
  };
  const push = pending.push;
  return () => {
    pending.changes.length = lengths.changes;
    pending.announcements.length = lengths.announcements;
    pending.notifications.length = lengths.notifications;
    pending.effects.length = lengths.effects;
    pending.push = push;
  };
}

/** Runs a command inside a transaction the caller owns (sync push wraps it with its own bookkeeping). */
export async function runInTransaction<S extends z.ZodType, O>(
  tx: Tx,
  actor: Actor,
  command: Command<S, O>,
  rawArgs: unknown,
  pending: PendingEffects,
  madeAt?: Date,
  ip: string | null = null,
): Promise<O> {
  // Every way in (REST, a queued mutation, a socket event, a multipart field) stops here, so each refuses alike.
  const problem = inputProblem(rawArgs);
  if (problem) throw new DomainError('invalid_input', problem);
  const args = parseInput(command.args, rawArgs);
  const now = new Date();
  const ctx: CommandContext = {
    tx,
    actor,
    now,
    madeAt: madeAt ?? now,
    ip,
    record: async (change) => {
      const ref = await recordChange(tx, change);
      pending.changes.push(ref);
      return ref;
    },
    afterCommit: (effect) => pending.effects.push(effect),
    announce: (announcement) => pending.announcements.push(announcement),
    queuePush: (ids = []) => {
      pending.notifications.push(...ids);
      pending.push = true;
    },
  };
  return command.run(ctx, args);
}

/**
 * Publishes committed commands' changes and runs their effects once they are on disk (after the group
 * fsync), in commit order; a failing effect never undoes the write.
 */
export type EffectsFlusher = (pending: PendingEffects) => void;

/** Runs a command in its own transaction, then publishes it: the path every REST write takes (`ip`: the request's). */
export async function runCommand<S extends z.ZodType, O>(
  db: Db,
  flush: EffectsFlusher,
  actor: Actor,
  command: Command<S, O>,
  rawArgs: unknown,
  ip: string | null = null,
): Promise<O> {
  const pending = newPendingEffects();
  const result = await transaction(db, (tx) => runInTransaction(tx, actor, command, rawArgs, pending, undefined, ip), {
    recordsChanges: true,
  });
  flush(pending);
  return result;
}
