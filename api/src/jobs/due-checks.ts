import { and, eq, isNotNull, isNull, lt, ne } from 'drizzle-orm';
import { formatDueDate, isoToday } from '@office/sync-protocol';
import type { Db } from '../db/client';
import { tasks } from '../db/schema';
import { defineCommand, runCommand, type EffectsFlusher } from '../domain/commands';
import { notify } from '../domain/notifications/notify';
import { claimSlot, hourSlot } from './claims';
import { runEvery, systemActor } from './schedule';
import { z } from 'zod';

/** How often the due-soon and overdue checks run (spec section 9). */
export const DUE_CHECK_INTERVAL_MS = 3_600_000;

const live = and(isNull(tasks.deletedAt), ne(tasks.status, 'completed'), isNotNull(tasks.assignedTo));

const addDays = (isoDate: string, days: number): string =>
  new Date(Date.parse(`${isoDate}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/**
 * `task.dueChecks`: a due-soon notice when exactly one day remains and an overdue notice once a task
 * is past due and not completed; each at most once per task, flagged on the task in the same transaction.
 */
const dueChecksCommand = defineCommand({
  name: 'task.dueChecks',
  args: z.object({ today: z.string() }),
  async run(ctx, { today }) {
    const stamp = ctx.now.toISOString();
    const dueSoon = await ctx.tx
      .select()
      .from(tasks)
      .where(and(live, eq(tasks.dueDate, addDays(today, 1)), isNull(tasks.dueSoonNotifiedAt)));
    const overdue = await ctx.tx
      .select()
      .from(tasks)
      .where(and(live, lt(tasks.dueDate, today), isNull(tasks.overdueNotifiedAt)));
    for (const task of dueSoon) {
      await ctx.tx.update(tasks).set({ dueSoonNotifiedAt: stamp }).where(eq(tasks.id, task.id));
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
      await ctx.tx.update(tasks).set({ overdueNotifiedAt: stamp }).where(eq(tasks.id, task.id));
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
    return { dueSoon: dueSoon.length, overdue: overdue.length };
  },
});

/** Runs both checks for the given moment. */
export async function runDueChecks(
  db: Db,
  flush: EffectsFlusher,
  now: Date = new Date(),
): Promise<{ dueSoon: number; overdue: number }> {
  return runCommand(db, flush, systemActor, dueChecksCommand, { today: isoToday(now) });
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
