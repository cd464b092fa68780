import { and, asc, eq, inArray, isNotNull, isNull, lte, ne } from 'drizzle-orm';
import { z } from 'zod';
import { cutText } from '@office/sync-protocol';
import type { Db } from '../db/client';
import { notificationPreferences, tasks } from '../db/schema';
import { defineCommand, runCommand, type EffectsFlusher } from '../domain/commands';
import { notify } from '../domain/notifications/notify';
import { DIGEST_LATE_MS, nextDigestAt } from '../domain/notifications/preferences';
import { claimSlot, periodSlot } from './claims';
import { runEvery, systemActor } from './schedule';

/** People handled per step; more wait for the next step, right after. */
const BATCH = 200;
/** Tasks named in one digest, per list; the message says how many more. */
const LISTED = 20;
/** The digest's text in the bell and in a push, cut like other notices' texts. */
const DIGEST_TEXT_CUT = 200;

/** A date in `timeZone` at `at`, as YYYY-MM-DD (due dates are calendar dates). */
const dateInZone = (at: Date, timeZone: string): string =>
  new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);

/** People whose digest is due at `now` (by the digest index). */
const dueAt = (now: Date) =>
  and(isNotNull(notificationPreferences.timeZone), lte(notificationPreferences.digestDueAt, now.toISOString()));

type DigestTask = { id: string; title: string; dueDate: string };

/** "Overdue: Fix login, Write docs. Due today: Ship release." */
function digestText(overdue: DigestTask[], dueToday: DigestTask[]): string {
  const list = (label: string, items: DigestTask[]) =>
    items.length ? `${label}: ${items.map((task) => task.title).join(', ')}.` : '';
  return cutText([list('Overdue', overdue), list('Due today', dueToday)].filter(Boolean).join(' '), DIGEST_TEXT_CUT);
}

/**
 * `notification.morningDigest`: for each person whose 08:00 has come, one "Your day" notice listing the tasks
 * assigned to them that are overdue or due today (in their time zone), when there are any; then their next
 * 08:00. The spec's once-only due-soon and overdue notices are untouched.
 */
const morningDigestCommand = defineCommand({
  name: 'notification.morningDigest',
  args: z.object({ now: z.iso.datetime() }),
  async run(ctx, args): Promise<number> {
    // The job's moment (a test names one), not the transaction's clock.
    const now = new Date(args.now);
    const due = await ctx.tx
      .select({
        id: notificationPreferences.id,
        timeZone: notificationPreferences.timeZone,
        dueAt: notificationPreferences.digestDueAt,
      })
      .from(notificationPreferences)
      .where(dueAt(now))
      .orderBy(asc(notificationPreferences.digestDueAt))
      .limit(BATCH);
    if (!due.length) return 0;
    const open = await ctx.tx
      .select({ id: tasks.id, title: tasks.title, dueDate: tasks.dueDate, assignedTo: tasks.assignedTo })
      .from(tasks)
      .where(
        and(
          inArray(
            tasks.assignedTo,
            due.map((person) => person.id),
          ),
          isNull(tasks.deletedAt),
          ne(tasks.status, 'completed'),
        ),
      )
      .orderBy(asc(tasks.dueDate), asc(tasks.title));
    let sent = 0;
    for (const person of due) {
      const timeZone = person.timeZone ?? 'UTC';
      // Claimed by moving the person to their next 08:00 from the time read above: a run that got there first
      // (another node's, on PostgreSQL side by side) has moved it, and this one leaves the person alone.
      const claimed = await ctx.tx
        .update(notificationPreferences)
        .set({ digestDueAt: nextDigestAt(timeZone, now).toISOString() })
        .where(
          and(eq(notificationPreferences.id, person.id), eq(notificationPreferences.digestDueAt, person.dueAt ?? '')),
        )
        .returning({ id: notificationPreferences.id });
      if (!claimed.length) continue;
      const fresh = person.dueAt !== null && now.getTime() - Date.parse(person.dueAt) < DIGEST_LATE_MS;
      const today = dateInZone(now, timeZone);
      const theirs = open.filter((task) => task.assignedTo === person.id && task.dueDate <= today);
      const overdue = theirs.filter((task) => task.dueDate < today);
      const dueToday = theirs.filter((task) => task.dueDate === today);
      if (fresh && theirs.length) {
        const pick = (items: typeof theirs) =>
          items.slice(0, LISTED).map(({ id, title, dueDate }) => ({ id, title, dueDate }));
        const created = await notify(ctx, [
          {
            recipientId: person.id,
            senderId: null,
            type: 'digest',
            title: 'Your day',
            message: digestText(overdue, dueToday),
            data: {
              date: today,
              overdue: pick(overdue),
              dueToday: pick(dueToday),
              overdueCount: overdue.length,
              dueTodayCount: dueToday.length,
            },
          },
        ]);
        sent += created.length;
      }
    }
    return sent;
  },
});

/** Sends the digests due at `now`, a batch at a time; returns how many went out. */
export async function runMorningDigests(db: Db, flush: EffectsFlusher, now: Date = new Date()): Promise<number> {
  const anyDue = async () =>
    (await db.select({ id: notificationPreferences.id }).from(notificationPreferences).where(dueAt(now)).limit(1))
      .length > 0;
  let sent = 0;
  // Each step moves everyone it handles to their next 08:00, so the steps end.
  while (await anyDue())
    sent += await runCommand(db, flush, systemActor, morningDigestCommand, { now: now.toISOString() });
  return sent;
}

/**
 * Looks for due digests every `intervalMs` (a minute keeps 08:00 to the minute) until the server closes. One node
 * looks per period: two looking at once could both send the same person's digest.
 */
export const scheduleMorningDigests = (
  db: Db,
  flush: EffectsFlusher,
  intervalMs: number,
  log: (error: unknown) => void,
): (() => void) =>
  runEvery(
    intervalMs,
    async () => {
      const now = new Date();
      if (await claimSlot(db, 'morning-digest', periodSlot(now, intervalMs))) await runMorningDigests(db, flush, now);
    },
    log,
  );
