import { eq, sql } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { LOG_HORIZON_NOW, type LogPosition } from './change-feed';
import type { Tx } from './client';
import { dialect } from './dialect';
import { sendAheadQuery } from './postgres-transaction';
import { preparedWrite } from './prepared';
import { syncClients } from './schema';

/**
 * A client's mutations are acknowledged to it by a pull: it drops them from its outbox and keeps what the pull's
 * changes show. A pull never acknowledges a mutation whose effects it cannot show yet: on PostgreSQL, a push whose
 * transaction is not below the pull's horizon (its changes come later) is acknowledged only up to the mutation the
 * client had reached before it (see schema-pg.ts, `settledMutationId`). SQLite's pulls see every commit.
 */

/** Locks a client's row for a push: two pushes of one client (a retry on another node) take turns. */
export async function lockClient(tx: Tx, clientId: string): Promise<void> {
  if (dialect !== 'postgres') return;
  await sendAheadQuery(tx, sql`SELECT 1 FROM ${syncClients} WHERE ${syncClients.clientId} = ${clientId} FOR UPDATE`);
}

/**
 * Records that a push took the client's mutations up to `last`, the latest made at `lastChangeAt` (a client that
 * resumed after a restore is back in step).
 */
export async function advanceClient(tx: Tx, clientId: string, last: number, lastChangeAt: string): Promise<void> {
  if (dialect === 'postgres') {
    await (tx as unknown as NodePgDatabase).execute(
      sql`UPDATE sync_clients SET
        settled_mutation_id = CASE
          WHEN last_mutation_xid IS NULL OR last_mutation_xid < ${LOG_HORIZON_NOW}
          THEN last_mutation_id ELSE settled_mutation_id END,
        last_mutation_id = ${last}, last_push_at = ${lastChangeAt}, last_mutation_xid = pg_current_xact_id(),
        resumes_after_restore = false
        WHERE client_id = ${clientId}`,
    );
    return;
  }
  await preparedWrite(tx, 'syncClients.advance', (handle) =>
    handle
      .update(syncClients)
      .set({
        lastMutationId: sql`${sql.placeholder('last')}`,
        lastChangeAt: sql`${sql.placeholder('lastChangeAt')}`,
        resumesAfterRestore: false,
      })
      .where(eq(syncClients.clientId, sql.placeholder('clientId'))),
  )({ last, lastChangeAt, clientId });
}

/**
 * The client's row as a pull sees it: its owner, and the highest of its mutations whose effects the pull's changes
 * up to `readable` hold. Undefined for a client the server does not know.
 */
export async function acknowledgedMutations(
  tx: Tx,
  clientId: string,
  readable: LogPosition,
): Promise<{ userId: string; lastMutationId: number } | undefined> {
  if (dialect === 'postgres') {
    const { rows } = await (tx as unknown as NodePgDatabase).execute<{ userId: string; acknowledged: string }>(
      sql`SELECT user_id AS "userId", CASE
          WHEN last_mutation_xid IS NULL OR last_mutation_xid < ${readable.xid.toString()}::xid8
          THEN last_mutation_id ELSE settled_mutation_id END AS acknowledged
        FROM sync_clients WHERE client_id = ${clientId}`,
    );
    const [row] = rows;
    return row ? { userId: row.userId, lastMutationId: Number(row.acknowledged) } : undefined;
  }
  const [row] = await tx
    .select({ userId: syncClients.userId, lastMutationId: syncClients.lastMutationId })
    .from(syncClients)
    .where(eq(syncClients.clientId, clientId));
  return row;
}
