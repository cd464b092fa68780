import { and, eq } from 'drizzle-orm';
import type { Actor, Mutation, MutationOutcome, PushRequest, PushResponse } from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { syncClients, syncMutations } from '../../db/schema';
import { currentVersion } from '../change-log';
import { newPendingEffects, runInTransaction, type EffectsFlusher } from '../commands';
import { DomainError } from '../errors';
import { mutationCommands } from './mutations';

type ClientRow = typeof syncClients.$inferSelect;

/** Finds or registers a client; a client id belongs to one user for good. */
function claimClient(db: Db, clientId: string, actor: Actor): ClientRow {
  const existing = db.select().from(syncClients).where(eq(syncClients.clientId, clientId)).get();
  if (existing) {
    if (existing.userId !== actor.id) throw new DomainError('client_not_yours');
    return existing;
  }
  db.insert(syncClients).values({ clientId, userId: actor.id }).onConflictDoNothing().run();
  return claimClient(db, clientId, actor);
}

function storedOutcome(tx: Tx, clientId: string, mutationId: number): MutationOutcome {
  const row = tx
    .select()
    .from(syncMutations)
    .where(and(eq(syncMutations.clientId, clientId), eq(syncMutations.mutationId, mutationId)))
    .get();
  if (!row || row.status === 'applied') return { id: mutationId, status: 'duplicate', original: 'applied' };
  const code = row.code as Extract<MutationOutcome, { status: 'rejected' }>['code'];
  return { id: mutationId, status: 'duplicate', original: 'rejected', code, message: row.message ?? '' };
}

/** A client's clock is trusted only between its previous push and the server's now. */
function clampMadeAt(at: string, lastPushAt: string | null, now: Date): Date {
  const claimed = Date.parse(at);
  const floor = lastPushAt ? Date.parse(lastPushAt) : Number.NEGATIVE_INFINITY;
  return new Date(Math.min(now.getTime(), Math.max(floor, claimed)));
}

/**
 * Applies a batch in order, one transaction per mutation: the command's writes, its change-log
 * rows, the client's last mutation id and the stored outcome commit together or not at all.
 * A domain refusal is recorded as `rejected` and the queue moves on; a gap stops the batch;
 * anything unexpected propagates (the route answers 503 and the client retries).
 */
export function processPush(db: Db, flush: EffectsFlusher, actor: Actor, request: PushRequest): PushResponse {
  const client = claimClient(db, request.clientId, actor);
  const outcomes: MutationOutcome[] = [];
  let lastMutationId = client.lastMutationId;
  let lastPushAt = client.lastPushAt;

  for (const mutation of request.mutations) {
    const pending = newPendingEffects();
    const outcome = db.transaction((tx): MutationOutcome | 'gap' => {
      const { lastMutationId: last } = tx
        .select({ lastMutationId: syncClients.lastMutationId })
        .from(syncClients)
        .where(eq(syncClients.clientId, request.clientId))
        .get() ?? { lastMutationId: 0 };
      if (mutation.id <= last) return storedOutcome(tx, request.clientId, mutation.id);
      if (mutation.id !== last + 1) return 'gap';
      const now = new Date();
      const result = applyOne(tx, actor, mutation, pending, clampMadeAt(mutation.at, lastPushAt, now));
      lastPushAt = now.toISOString();
      tx.update(syncClients)
        .set({ lastMutationId: mutation.id, lastPushAt })
        .where(eq(syncClients.clientId, request.clientId))
        .run();
      tx.insert(syncMutations)
        .values({
          clientId: request.clientId,
          mutationId: mutation.id,
          name: mutation.name,
          status: result.status,
          code: result.status === 'rejected' ? result.code : null,
          message: result.status === 'rejected' ? result.message : null,
        })
        .run();
      return result;
    });
    if (outcome === 'gap') break;
    flush(pending);
    outcomes.push(outcome);
    lastMutationId = Math.max(lastMutationId, mutation.id);
  }
  return { outcomes, lastMutationId, version: currentVersion(db) };
}

function applyOne(
  tx: Tx,
  actor: Actor,
  mutation: Mutation,
  pending: ReturnType<typeof newPendingEffects>,
  madeAt: Date,
): Exclude<MutationOutcome, { status: 'duplicate' }> {
  try {
    // A savepoint: a refused command leaves none of its writes, while the bookkeeping still commits.
    tx.transaction((savepoint) =>
      runInTransaction(savepoint, actor, mutationCommands[mutation.name], mutation.args, pending, madeAt),
    );
    return { id: mutation.id, status: 'applied' };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    pending.changes.length = 0;
    pending.effects.length = 0;
    return { id: mutation.id, status: 'rejected', code: error.code, message: error.message };
  }
}
