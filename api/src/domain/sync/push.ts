import { and, eq } from 'drizzle-orm';
import type { Actor, MutationOutcome, PushRequest, PushResponse } from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { syncClients, syncMutations } from '../../db/schema';
import { currentVersion } from '../change-log';
import { newPendingEffects, runInTransaction, type EffectsFlusher, type PendingEffects } from '../commands';
import { DomainError } from '../errors';
import { mutationCommands } from './mutations';

type ClientRow = typeof syncClients.$inferSelect;

/** Finds or registers a client; a client id belongs to one user for good. */
export function claimClient(db: Db, clientId: string, actor: Actor): ClientRow {
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

/**
 * A client's clock is trusted only between its previous push (or, before its first, its registration) and
 * the server's now: a new client cannot backdate history to before it existed.
 */
function clampMadeAt(at: string, lastPushAt: string | null, registeredAt: string, now: Date): Date {
  const claimed = Date.parse(at);
  const floor = Math.max(Date.parse(registeredAt), lastPushAt ? Date.parse(lastPushAt) : Number.NEGATIVE_INFINITY);
  return new Date(Math.min(now.getTime(), Math.max(floor, claimed)));
}

/** How one mutation's command runs inside the bookkeeping transaction (a savepoint of it). */
export type MutationRunner = (tx: Tx, pending: PendingEffects, madeAt: Date) => void;

/**
 * Applies one client mutation exactly once, in one transaction: the command's writes, its change-log
 * rows, the client's last mutation id and the stored outcome commit together or not at all. A domain
 * refusal is recorded as `rejected` and the queue moves on; a mutation at or below the last one
 * answers its stored outcome; one past the next is a gap; anything unexpected propagates.
 */
export function applyClientMutation(
  db: Db,
  flush: EffectsFlusher,
  clientId: string,
  mutation: { id: number; name: string; at: string },
  run: MutationRunner,
  /** When this client's previous request reached the server; read from the client's row when absent. */
  previousPushAt?: string | null,
): MutationOutcome | 'gap' {
  const pending = newPendingEffects();
  const outcome = db.transaction((tx): MutationOutcome | 'gap' => {
    const client = tx
      .select({
        lastMutationId: syncClients.lastMutationId,
        lastPushAt: syncClients.lastPushAt,
        createdAt: syncClients.createdAt,
      })
      .from(syncClients)
      .where(eq(syncClients.clientId, clientId))
      .get() ?? { lastMutationId: 0, lastPushAt: null, createdAt: new Date().toISOString() };
    if (mutation.id <= client.lastMutationId) return storedOutcome(tx, clientId, mutation.id);
    if (mutation.id !== client.lastMutationId + 1) return 'gap';
    const now = new Date();
    // The mutations of one request were all made before it: each is clamped by the previous request.
    const previous = previousPushAt === undefined ? client.lastPushAt : previousPushAt;
    const madeAt = clampMadeAt(mutation.at, previous, client.createdAt, now);
    const result = runGuarded(tx, mutation.id, pending, (savepoint) => run(savepoint, pending, madeAt));
    tx.update(syncClients)
      .set({ lastMutationId: mutation.id, lastPushAt: now.toISOString() })
      .where(eq(syncClients.clientId, clientId))
      .run();
    tx.insert(syncMutations)
      .values({
        clientId,
        mutationId: mutation.id,
        name: mutation.name,
        status: result.status,
        code: result.status === 'rejected' ? result.code : null,
        message: result.status === 'rejected' ? result.message : null,
      })
      .run();
    return result;
  });
  if (outcome !== 'gap') flush(pending);
  return outcome;
}

/** Applies a push batch in order; a gap stops it (the route answers 503 on anything unexpected). */
export function processPush(db: Db, flush: EffectsFlusher, actor: Actor, request: PushRequest): PushResponse {
  const client = claimClient(db, request.clientId, actor);
  const outcomes: MutationOutcome[] = [];
  let lastMutationId = client.lastMutationId;
  for (const mutation of request.mutations) {
    const outcome = applyClientMutation(
      db,
      flush,
      request.clientId,
      mutation,
      (tx, pending, madeAt) =>
        runInTransaction(tx, actor, mutationCommands[mutation.name], mutation.args, pending, madeAt),
      client.lastPushAt,
    );
    if (outcome === 'gap') break;
    outcomes.push(outcome);
    lastMutationId = Math.max(lastMutationId, mutation.id);
  }
  return { outcomes, lastMutationId, version: currentVersion(db) };
}

/** Runs a command in a savepoint: a refused command leaves none of its writes, while the bookkeeping still commits. */
function runGuarded(
  tx: Tx,
  mutationId: number,
  pending: PendingEffects,
  run: (savepoint: Tx) => void,
): Exclude<MutationOutcome, { status: 'duplicate' }> {
  try {
    tx.transaction((savepoint) => run(savepoint));
    return { id: mutationId, status: 'applied' };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    pending.changes.length = 0;
    pending.announcements.length = 0;
    pending.notifications.length = 0;
    pending.effects.length = 0;
    return { id: mutationId, status: 'rejected', code: error.code, message: error.message };
  }
}
