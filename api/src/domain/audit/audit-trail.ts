import { and, desc, eq, inArray, lt, or, type SQL } from 'drizzle-orm';
import { uuidv7, type AuditAction, type AuditPage, type AuditQuery, type AuditRecord } from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { auditRecords, users } from '../../db/schema';
import { transaction } from '../../db/transaction';
import type { CommandContext } from '../commands';

/** What a command says of an act it records. */
export interface AuditEntry {
  action: AuditAction;
  actor: { id: string; name: string } | null;
  target?: { id: string; name: string };
  /** The client's address, as the request reached the server. */
  ip: string | null;
  details?: Record<string, string>;
}

/** Records an act in the caller's transaction: the record and the act commit together or not at all. */
export async function recordAudit(tx: Tx, entry: AuditEntry, now = new Date()): Promise<void> {
  await tx.insert(auditRecords).values({
    id: uuidv7(now.getTime()),
    at: now.toISOString(),
    action: entry.action,
    actorId: entry.actor?.id ?? null,
    actorName: entry.actor?.name ?? null,
    targetId: entry.target?.id ?? null,
    targetName: entry.target?.name ?? null,
    ip: entry.ip,
    details: JSON.stringify(entry.details ?? {}),
  });
}

/** The name a person goes by now, for a record that keeps it as it was at the act; null for an unknown id. */
export async function personNamed(tx: Db | Tx, id: string): Promise<{ id: string; name: string } | null> {
  const [row] = await tx.select({ id: users.id, name: users.name }).from(users).where(eq(users.id, id));
  return row ?? null;
}

/** Records a command's act: its actor as named now, its request's address, in its transaction and at its time. */
export async function recordAct(
  ctx: CommandContext,
  act: Pick<AuditEntry, 'action' | 'target' | 'details'>,
): Promise<void> {
  await recordAudit(ctx.tx, { ...act, actor: await personNamed(ctx.tx, ctx.actor.id), ip: ctx.ip }, ctx.now);
}

/** Records an act that writes nothing else (a failed sign-in), in a transaction of its own. */
export const recordAuditAlone = (db: Db, entry: AuditEntry): Promise<void> =>
  transaction(db, (tx) => recordAudit(tx, entry));

const toRecord = (row: typeof auditRecords.$inferSelect): AuditRecord => ({
  id: row.id,
  at: row.at,
  action: row.action,
  actorId: row.actorId,
  actorName: row.actorName,
  targetId: row.targetId,
  targetName: row.targetName,
  ip: row.ip,
  details: JSON.parse(row.details) as Record<string, string>,
});

/**
 * A page of the audit trail, newest first: what a person did or had done to them, of one kind, or everything. Each
 * filter reads by its own index (person: by actor and by target, id order), so a page costs its own rows.
 */
export async function readAuditTrail(db: Db | Tx, query: AuditQuery): Promise<AuditPage> {
  const filters: (SQL | undefined)[] = [
    query.person ? or(eq(auditRecords.actorId, query.person), eq(auditRecords.targetId, query.person)) : undefined,
    query.action ? eq(auditRecords.action, query.action) : undefined,
    query.before ? lt(auditRecords.id, query.before) : undefined,
  ];
  const rows = await db
    .select()
    .from(auditRecords)
    .where(and(...filters))
    .orderBy(desc(auditRecords.id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit).map(toRecord);
  return { records: page, nextBefore: rows.length > query.limit ? (page.at(-1)?.id ?? null) : null };
}

/** Records one retention pass drops per transaction: a long-stopped server catches up without one huge delete. */
const PRUNE_SLICE = 1000;

/** Drops the records older than `keepDays` days (the retention job); resolves with how many went. */
export async function pruneAuditTrail(db: Db, keepDays: number, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - keepDays * 86_400_000).toISOString();
  let removed = 0;
  for (;;) {
    const slice = await transaction(db, async (tx) => {
      const old = await tx
        .select({ id: auditRecords.id })
        .from(auditRecords)
        .where(lt(auditRecords.at, cutoff))
        .limit(PRUNE_SLICE);
      if (old.length)
        await tx.delete(auditRecords).where(
          inArray(
            auditRecords.id,
            old.map((row) => row.id),
          ),
        );
      return old.length;
    });
    removed += slice;
    if (slice < PRUNE_SLICE) return removed;
  }
}
