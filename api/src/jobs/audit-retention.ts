import type { Db } from '../db/client';
import { pruneAuditTrail } from '../domain/audit/audit-trail';
import { claimSlot, periodSlot } from './claims';
import { runEvery } from './schedule';

const DAY_MS = 86_400_000;
/** How often a node looks whether today's pass has run (the day's slot decides: one node, once a day). */
const CHECK_MS = 3_600_000;

/** Drops audit records older than AUDIT_KEEP_DAYS (0 keeps them all), once a day across the nodes; resolves with the stop. */
export function scheduleAuditRetention(db: Db, keepDays: number, log: (error: unknown) => void): () => void {
  if (keepDays === 0) return () => undefined;
  return runEvery(
    CHECK_MS,
    async () => {
      if (await claimSlot(db, 'audit-retention', periodSlot(new Date(), DAY_MS))) await pruneAuditTrail(db, keepDays);
    },
    log,
  );
}
