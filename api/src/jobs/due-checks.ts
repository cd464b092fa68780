import { and, eq, isNotNull, isNull, lt, ne } from 'drizzle-orm';
import { formatDueDate, isoToday } from '@office/sync-protocol';
import type { Db } from '../db/client';
import { tasks } from '../db/schema';
import { defineCommand, runCommand, type EffectsFlusher } from '../domain/commands';
import { notify } from '../domain/notifications/notify';
import type { TaskRow } from '../domain/tasks/read';
import { claimSlot, hourSlot } from './claims';
import { runEvery, systemActor } from './schedule';
import { z } from 'zod';

/** How often the due-soon and overdue checks run (spec section 9). */
export const DUE_CHECK_INTERVAL_MS = 3_600_000;

/**
 * Tasks one transaction of the checks takes of each kind. A large organisation's first run may notify thousands:
 * in one transaction that would hold its rows and the change feed's horizon for as long as it runs (over the
 * transaction timeout on PostgreSQL, which then threw the whole run away, hour after hour), so it commits in steps.
 * A step of 100 held the horizon back for about 2 s with the nodes 1 ms from PostgreSQL (the bench): steps stay small.
 */
export const DUE_CHECKS_PER_TRANSACTION = 25;

const live = and(isNull(tasks.deletedAt), ne(tasks.status, 'completed'), isNotNull(tasks.assignedTo));

const addDays = (isoDate: string, days: number): string =>
  new Date(Date.parse(`${isoDate}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/**
 * `task.dueChecks`: a due-soon notice when exactly one day remains and an overdue notice once a task
 * is past due and not completed; each at most once per task, flagged on the task in the same transaction.
 */
const dueChecksCommand = defineCommand({
  name: 'task.dueChecks',
  args: z.object({ today: z.string(), limit: z.number().int().positive() }),
  async run(ctx, { today, limit }) {
    const stamp = ctx.now.toISOString();
    const dueSoon = await ctx.tx
      .select()
      .from(tasks)
      .where(and(live, eq(tasks.dueDate, addDays(today, 1)), isNull(tasks.dueSoonNotifiedAt)))
      .limit(limit);
    const overdue = await ctx.tx
      .select()
      .from(tasks)
      .where(and(live, lt(tasks.dueDate, today), isNull(tasks.overdueNotifiedAt)))
      .limit(limit);
    // Each notice is claimed by flagging the task as it still is: a write since the read above (another run, a new
    // due date) leaves it to whoever made that write.
    const claim = async (task: TaskRow, flag: 'dueSoonNotifiedAt' | 'overdueNotifiedAt') =>
      (
        await ctx.tx
          .update(tasks)
          .set({ [flag]: stamp })
          .where(and(eq(tasks.id, task.id), eq(tasks.dueDate, task.dueDate), isNull(tasks[flag])))
          .returning({ id: tasks.id })
      ).length > 0;
    let notified = { dueSoon: 0, overdue: 0 };
    for (const task of dueSoon) {
      if (!(await claim(task, 'dueSoonNotifiedAt'))) continue;
      notified = { ...notified, dueSoon: notified.dueSoon + 1 };
      await notify(ctx, [
        {
          recipientId: task.assignedTo ?? task.assignedBy,
          senderId: null,
          type: 'task_due_soon',
          title: 'Task Due Soon',
          message: `"${task.title}" is due tomorrow`,
          relatedTaskId: task.id,
          data: { taskId: task.id, dueDate: task.dueDate },
        },
      ]);
    }
    for (const task of overdue) {
      if (!(await claim(task, 'overdueNotifiedAt'))) continue;
      notified = { ...notified, overdue: notified.overdue + 1 };
      const recipients = [...new Set([task.assignedTo ?? task.assignedBy, task.assignedBy])];
      await notify(
        ctx,
        recipients.map((recipientId) => ({
          recipientId,
          senderId: null,
          type: 'task_overdue' as const,
          title: 'Task Overdue',
          // As every screen writes a date ("Nov 27, 2026"); the data keeps the ISO date.
          message: `"${task.title}" was due on ${formatDueDate(task.dueDate)} and is not completed`,
          relatedTaskId: task.id,
          data: { taskId: task.id, dueDate: task.dueDate, overdue: true },
        })),
      );
    }
    return { ...notified, more: dueSoon.length === limit || overdue.length === limit };
  },
});

/**
 * Runs both checks for the given moment, `perTransaction` tasks of each kind at a time until none is left: a task
 * notified is flagged, so the next step reads past it.
 */
export async function runDueChecks(
  db: Db,
  flush: EffectsFlusher,
  now: Date = new Date(),
  perTransaction = DUE_CHECKS_PER_TRANSACTION,
): Promise<{ dueSoon: number; overdue: number }> {
  const total = { dueSoon: 0, overdue: 0 };
  for (;;) {
    const step = await runCommand(db, flush, systemActor, dueChecksCommand, {
      today: isoToday(now),
      limit: perTransaction,
    });
    total.dueSoon += step.dueSoon;
    total.overdue += step.overdue;
    // A full step that notified nobody (every task it read was taken by a write since) would read the same again.
    if (!step.more || step.dueSoon + step.overdue === 0) return total;
  }
}

/**
 * The hourly run: the checks, unless they already ran in this clock hour (on another node, or here before a
 * restart); then null.
 */
export async function runHourlyDueChecks(
  db: Db,
  flush: EffectsFlusher,
  now: Date = new Date(),
): Promise<{ dueSoon: number; overdue: number } | null> {
  if (!(await claimSlot(db, 'due-checks', hourSlot(now)))) return null;
  return runDueChecks(db, flush, now);
}

/** Runs the checks at start and every hour until the server closes; once per clock hour across nodes. */
export const scheduleDueChecks = (db: Db, flush: EffectsFlusher, log: (error: unknown) => void): (() => void) =>
  runEvery(DUE_CHECK_INTERVAL_MS, () => runHourlyDueChecks(db, flush), log);
