import { and, eq, sql } from 'drizzle-orm';
import type { Actor, MutationOutcome, PushRequest, PushResponse } from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { prepared, preparedWrite } from '../../db/prepared';
import { sendAhead } from '../../db/postgres-transaction';
import { inSavepoint } from '../../db/savepoint';
import { transaction } from '../../db/transaction';
import { syncClients, syncMutations } from '../../db/schema';
import { currentVersion } from '../change-log';
import {
  effectsMark,
  newPendingEffects,
  runInTransaction,
  type EffectsFlusher,
  type PendingEffects,
} from '../commands';
import { DomainError } from '../errors';
import { mutationCommands } from './mutations';

type ClientRow = typeof syncClients.$inferSelect;

/** A client's row: every push reads it twice (claiming the client, then in the batch's transaction). */
async function clientRow(handle: Db | Tx, clientId: string): Promise<ClientRow | undefined> {
  const [row] = await prepared(handle, 'syncClients.byId', (builder) =>
    builder
      .select()
      .from(syncClients)
      .where(eq(syncClients.clientId, sql.placeholder('clientId')))
      .prepare(),
  ).execute({ clientId });
  return row;
}

/** Finds or registers a client; a client id belongs to one user for good. */
export async function claimClient(db: Db, clientId: string, actor: Actor): Promise<ClientRow> {
  const existing = await clientRow(db, clientId);
  if (existing) {
    if (existing.userId !== actor.id) throw new DomainError('client_not_yours');
    return existing;
  }
  await transaction(db, async (tx) => {
    await tx.insert(syncClients).values({ clientId, userId: actor.id }).onConflictDoNothing();
  });
  return claimClient(db, clientId, actor);
}

async function storedOutcome(tx: Tx, clientId: string, mutationId: number): Promise<MutationOutcome> {
  const [row] = await tx
    .select()
    .from(syncMutations)
    .where(and(eq(syncMutations.clientId, clientId), eq(syncMutations.mutationId, mutationId)));
  // No row: applied (only refusals are stored; older databases also hold rows of applied mutations).
  if (!row || row.status === 'applied') return { id: mutationId, status: 'duplicate', original: 'applied' };
  const code = row.code as Extract<MutationOutcome, { status: 'rejected' }>['code'];
  return { id: mutationId, status: 'duplicate', original: 'rejected', code, message: row.message ?? '' };
}

/**
 * A client's clock is trusted only between the time of its previous change (or, before its first, its
 * registration) and the server's now: a new client cannot backdate history to before it existed, and a
 * client's changes keep the order it made them in. The floor is the previous change's time, not the time the
 * server took it: changes made while an earlier push was in flight keep their own times, so the order a device
 * shows before the server's copy arrives is the order the server stores. `floor` is that time in milliseconds.
 */
function clampMadeAt(at: string, floor: number, now: Date): Date {
  return new Date(Math.min(now.getTime(), Math.max(floor, Date.parse(at))));
}

/** How one mutation's command runs inside the batch's transaction (a savepoint of it). */
export type MutationRunner = (tx: Tx, pending: PendingEffects, madeAt: Date) => Promise<unknown>;

/** One mutation of a batch: its id, name, claimed time and how its command runs. */
interface BatchEntry {
  id: number;
  name: string;
  at: string;
  run: MutationRunner;
}

/**
 * Applies a batch of one client's mutations in ONE transaction, each command in its own savepoint, and
 * publishes what they did once, after the commit is durable. A mutation at or below the client's last id
 * answers as a duplicate of its outcome; a gap stops the batch; a domain refusal rolls back only its savepoint,
 * is stored with its reason and the batch goes on. Only refusals are stored: a mutation at or below the last id
 * with none was applied, as Replicache keeps only the last id, so a write costs no row of bookkeeping. Anything
 * unexpected rolls the whole batch back (nothing of it is acknowledged; the client sends it again) and propagates.
 */
async function applyBatch(
  db: Db,
  flush: EffectsFlusher,
  clientId: string,
  entries: readonly BatchEntry[],
): Promise<{ outcomes: MutationOutcome[]; lastMutationId: number }> {
  const pending = newPendingEffects();
  const result = await transaction(
    db,
    async (tx) => {
      const client = await clientRow(tx, clientId);
      const now = new Date();
      const { lastMutationId, lastChangeAt, createdAt, resumesAfterRestore } = client ?? {
        lastMutationId: 0,
        lastChangeAt: null,
        createdAt: now.toISOString(),
        resumesAfterRestore: false,
      };
      const outcomes: MutationOutcome[] = [];
      let last = lastMutationId;
      let floor = Math.max(Date.parse(createdAt), lastChangeAt ? Date.parse(lastChangeAt) : Number.NEGATIVE_INFINITY);
      for (const entry of entries) {
        if (entry.id <= last) {
          outcomes.push(await storedOutcome(tx, clientId, entry.id));
          continue;
        }
        // After a restore the client's queue may start past the writes the restore lost (see resumeAfterRestore).
        const resumed = resumesAfterRestore && last === lastMutationId;
        if (entry.id !== last + 1 && !resumed) break;
        const madeAt = clampMadeAt(entry.at, floor, now);
        floor = madeAt.getTime();
        const outcome = await runGuarded(tx, entry.id, pending, (savepoint) => entry.run(savepoint, pending, madeAt));
        if (outcome.status === 'rejected') {
          // Nothing reads its answer: it travels with the next mutation's statements (see postgres-transaction.ts).
          const storeRefusal = preparedWrite(tx, 'syncMutations.insertRefusal', (handle) =>
            handle.insert(syncMutations).values({
              clientId: sql.placeholder('clientId'),
              mutationId: sql.placeholder('mutationId'),
              name: sql.placeholder('name'),
              status: 'rejected',
              code: sql.placeholder('code'),
              message: sql.placeholder('message'),
            }),
          );
          await sendAhead(tx, () =>
            storeRefusal({
              clientId,
              mutationId: entry.id,
              name: entry.name,
              code: outcome.code,
              message: outcome.message,
            }),
          );
        }
        outcomes.push(outcome);
        last = entry.id;
      }
      if (last !== lastMutationId) {
        await preparedWrite(tx, 'syncClients.advance', (handle) =>
          handle
            .update(syncClients)
            .set({
              lastMutationId: sql`${sql.placeholder('last')}`,
              lastChangeAt: sql`${sql.placeholder('lastChangeAt')}`,
              resumesAfterRestore: false,
            })
            .where(eq(syncClients.clientId, sql.placeholder('clientId'))),
        )({ last, lastChangeAt: new Date(floor).toISOString(), clientId });
      }
      return { outcomes, lastMutationId: last };
    },
    { recordsChanges: true },
  );
  flush(pending);
  return result;
}

/**
 * Applies one client mutation exactly once (an upload carrying a queued write): the batch of one. Returns
 * its outcome, or 'gap' when an earlier mutation of the client has not arrived yet.
 */
export async function applyClientMutation(
  db: Db,
  flush: EffectsFlusher,
  clientId: string,
  mutation: { id: number; name: string; at: string },
  run: MutationRunner,
): Promise<MutationOutcome | 'gap'> {
  return (await applyBatch(db, flush, clientId, [{ ...mutation, run }])).outcomes[0] ?? 'gap';
}

/**
 * Applies a push batch in order; a gap stops it (the route answers 503 on anything unexpected). `ip` is the push
 * request's address: each mutation's command sees it as its REST route's would.
 */
export async function processPush(
  db: Db,
  flush: EffectsFlusher,
  actor: Actor,
  request: PushRequest,
  ip: string | null = null,
): Promise<PushResponse> {
  await claimClient(db, request.clientId, actor);
  const { outcomes, lastMutationId } = await applyBatch(
    db,
    flush,
    request.clientId,
    request.mutations.map((mutation) => ({
      id: mutation.id,
      name: mutation.name,
      at: mutation.at,
      run: (tx, pending, madeAt) =>
        runInTransaction(tx, actor, mutationCommands[mutation.name], mutation.args, pending, madeAt, ip),
    })),
  );
  return { outcomes, lastMutationId, version: await currentVersion(db) };
}

/** Runs a command in a savepoint: a refused command leaves none of its writes or effects; the batch goes on. */
async function runGuarded(
  tx: Tx,
  mutationId: number,
  pending: PendingEffects,
  run: (tx: Tx) => Promise<unknown>,
): Promise<Exclude<MutationOutcome, { status: 'duplicate' }>> {
  const restore = effectsMark(pending);
  try {
    await inSavepoint(tx, () => run(tx));
    return { id: mutationId, status: 'applied' };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    restore();
    return { id: mutationId, status: 'rejected', code: error.code, message: error.message };
  }
}
