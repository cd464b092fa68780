import type { MutationArgs, MutationName } from '@office/sync-protocol';
import type { EntityTableName, WorkspaceDb } from '../data/db';

/** Who the local write is made by; mutators need it to know "my" rows. */
export interface MutatorContext {
  userId: string;
}

/** The optimistic half of a command: what it does to IndexedDB before the server has seen it. */
export interface Mutator<N extends MutationName> {
  /** The rows this write touches, so they can be restored if the server refuses it. */
  touches(args: MutationArgs<N>, ctx: MutatorContext): { table: EntityTableName; key: string }[];
  /** Applies the change; runs inside a Dexie transaction, again on every rebase. */
  apply(db: WorkspaceDb, args: MutationArgs<N>, ctx: MutatorContext): Promise<void>;
}

type MutatorRegistry = { [N in MutationName]: Mutator<N> };

export const mutators: MutatorRegistry = {
  'user.updateDetails': {
    touches: (_args, ctx) => [{ table: 'users', key: ctx.userId }],
    async apply(db, args, ctx) {
      await db.users.update(ctx.userId, {
        name: args.name.trim(),
        email: args.email.trim().toLowerCase(),
        pending: 1,
      });
    },
  },
};

/** Runs a mutator by name, for replays where the name is data. */
export function applyMutator(db: WorkspaceDb, name: MutationName, args: unknown, ctx: MutatorContext): Promise<void> {
  // The args were validated against this name's schema when the entry was queued.
  return mutators[name].apply(db, args as MutationArgs<MutationName>, ctx);
}
