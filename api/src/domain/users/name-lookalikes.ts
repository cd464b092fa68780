import { and, eq, isNull, ne } from 'drizzle-orm';
import unhomoglyph from 'unhomoglyph';
import type { Db, Tx } from '../../db/client';
import { users } from '../../db/schema';
import { transaction } from '../../db/transaction';
import { DomainError } from '../errors';

/**
 * A name's confusable skeleton, as Unicode's UTS #39 defines it: decomposed (NFD), each character replaced by
 * its prototype from the confusables table (unhomoglyph, the table Matrix uses for display names), decomposed
 * again. Two names look alike when their skeletons are equal ("Mаya" with a Cyrillic а, "AIi" and "Ali").
 * Runs of spaces count as one, as a page shows them.
 */
export const nameSkeleton = (name: string): string =>
  unhomoglyph(name.normalize('NFD')).normalize('NFD').replace(/\s+/g, ' ');

/** The refusal of a name that would pass for another member's (which member is not said: anyone may register). */
export const lookalikeNameMessage =
  'This name looks like another member’s name written with look-alike letters. Please type your name with ordinary letters, or add something that tells you apart.';

/**
 * Refuses `name` when it differs from an active member's name only by characters that look alike; the very
 * same name stays allowed (two people may share one). One indexed lookup by skeleton, never a scan of the team.
 */
export async function assertNameNotLookalike(tx: Tx, name: string, exceptId: string): Promise<void> {
  const [clash] = await tx
    .select({ id: users.id })
    .from(users)
    .where(
      and(
        eq(users.nameSkeleton, nameSkeleton(name)),
        ne(users.name, name),
        ne(users.id, exceptId),
        isNull(users.deactivatedAt),
      ),
    )
    .limit(1);
  if (clash) throw new DomainError('invalid_input', lookalikeNameMessage);
}

/** Rows written before skeletons were kept (or by a tool that left one out) get theirs at start-up. */
export async function backfillNameSkeletons(db: Db, batch = 500): Promise<void> {
  for (;;) {
    const rows = await db
      .select({ id: users.id, name: users.name })
      .from(users)
      .where(isNull(users.nameSkeleton))
      .limit(batch);
    if (!rows.length) return;
    await transaction(db, async (tx) => {
      for (const row of rows)
        await tx
          .update(users)
          .set({ nameSkeleton: nameSkeleton(row.name) })
          .where(eq(users.id, row.id));
    });
    if (rows.length < batch) return;
  }
}
