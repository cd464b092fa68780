import { lt } from 'drizzle-orm';
import type { Db } from '../db/client';
import { meta } from '../db/schema';
import { transaction } from '../db/transaction';

/**
 * Claims one run of `job` for `slot` (a period written so later ones sort after, e.g. the hour
 * `2026-11-26T10`): true for exactly one caller per slot, whichever node it runs on and across restarts, so
 * several nodes run a scheduled job once per period between them.
 */
export async function claimSlot(db: Db, job: string, slot: string): Promise<boolean> {
  const key = `job:${job}`;
  return transaction(db, async (tx) => {
    const claimed = await tx
      .insert(meta)
      .values({ key, value: slot })
      .onConflictDoUpdate({ target: meta.key, set: { value: slot }, setWhere: lt(meta.value, slot) })
      .returning({ key: meta.key });
    return claimed.length === 1;
  });
}

/** The clock hour of `at` (UTC), as a slot. */
export const hourSlot = (at: Date): string => at.toISOString().slice(0, 13);

/** The period of `periodMs` that `at` falls in (counted from 1970), as a slot: nodes with the same period agree. */
export const periodSlot = (at: Date, periodMs: number): string =>
  String(Math.floor(at.getTime() / periodMs)).padStart(16, '0');
