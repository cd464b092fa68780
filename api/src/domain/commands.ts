import type { z } from 'zod';
import { containsNul, nulCharacterMessage, type Actor, type ServerToClientEvents } from '@office/sync-protocol';
import type { Db, Tx } from '../db/client';
import { recordChange, recordChanges, type ChangeRef } from './change-log';
import { DomainError, parseInput } from './errors';

/** What a command sees: its transaction, who acts, the server's time and the time the user made the change. */
export interface CommandContext {
  tx: Tx;
  actor: Actor;
  now: Date;
  /** When the user made the change (a queued mutation's clamped `at`; otherwise `now`). */
  madeAt: Date;
  record(change: Omit<ChangeRef, 'seq'>): ChangeRef;
  /** Records many changes in order with a few statements (notifications to a whole team). */
  recordAll(changes: Omit<ChangeRef, 'seq'>[]): ChangeRef[];
  afterCommit(effect: () => void): void;
  /** Tells these rooms a spec event once the transaction has committed. */
  announce(announcement: Announcement): void;
  /** Hands new notifications to web push once the transaction has committed. */
  pushNotifications(ids: string[]): void;
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
  run(ctx: CommandContext, args: z.output<S>): O;
}

export const defineCommand = <S extends z.ZodType, O>(command: Command<S, O>): Command<S, O> => command;

/** What a committed command leaves for after the commit: realtime publication and side effects. */
export interface PendingEffects {
  changes: ChangeRef[];
  announcements: Announcement[];
  /** Ids of the notifications created, for web push. */
  notifications: string[];
  effects: (() => void)[];
}

export const newPendingEffects = (): PendingEffects => ({
  changes: [],
  announcements: [],
  notifications: [],
  effects: [],
});

/** Runs a command inside a transaction the caller owns (sync push wraps it with its own bookkeeping). */
export function runInTransaction<S extends z.ZodType, O>(
  tx: Tx,
  actor: Actor,
  command: Command<S, O>,
  rawArgs: unknown,
  pending: PendingEffects,
  madeAt?: Date,
): O {
  // Every way in (REST, a queued mutation, a socket event, a multipart field) stops here, so each refuses alike.
  if (containsNul(rawArgs)) throw new DomainError('invalid_input', nulCharacterMessage);
  const args = parseInput(command.args, rawArgs);
  const now = new Date();
  const ctx: CommandContext = {
    tx,
    actor,
    now,
    madeAt: madeAt ?? now,
    record: (change) => {
      const ref = recordChange(tx, change);
      pending.changes.push(ref);
      return ref;
    },
    recordAll: (changes) => {
      const refs = recordChanges(tx, changes);
      pending.changes.push(...refs);
      return refs;
    },
    afterCommit: (effect) => pending.effects.push(effect),
    announce: (announcement) => pending.announcements.push(announcement),
    pushNotifications: (ids) => pending.notifications.push(...ids),
  };
  return command.run(ctx, args);
}

/** Publishes a committed command's changes and runs its effects; a failing effect never undoes the write. */
export type EffectsFlusher = (pending: PendingEffects) => void;

/** Runs a command in its own transaction, then publishes it: the path every REST write takes. */
export function runCommand<S extends z.ZodType, O>(
  db: Db,
  flush: EffectsFlusher,
  actor: Actor,
  command: Command<S, O>,
  rawArgs: unknown,
): O {
  const pending = newPendingEffects();
  const result = db.transaction((tx) => runInTransaction(tx, actor, command, rawArgs, pending));
  flush(pending);
  return result;
}
