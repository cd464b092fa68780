import { and, eq, isNull, ne } from 'drizzle-orm';
import {
  accountTexts,
  canManageEmployees,
  idSchema,
  isoToday,
  summarizeEmployees,
  type EmployeeSummary,
} from '@office/sync-protocol';
import { z } from 'zod';
import type { Db, Tx } from '../../db/client';
import { lockRows } from '../../db/row-locks';
import { chatAuthorCounts, tasks, users } from '../../db/schema';
import { recordAct } from '../audit/audit-trail';
import { defineCommand } from '../commands';
import { DomainError } from '../errors';
import { taskAudience } from '../tasks/read';
import { USER_AUDIENCE } from './commands';
import { toUserDto } from './serialize';
import { endAllSessions } from './sessions';

/** Employee Management's cards for every active employee, from three queries whatever the team's size. */
export async function listEmployeeSummaries(db: Db | Tx, now: Date = new Date()): Promise<EmployeeSummary[]> {
  const employeeRows = await db
    .select()
    .from(users)
    .where(and(eq(users.role, 'employee'), isNull(users.deactivatedAt)))
    .orderBy(users.name);
  const assignedRows = await db
    .select({
      id: tasks.id,
      title: tasks.title,
      status: tasks.status,
      dueDate: tasks.dueDate,
      priority: tasks.priority,
      updatedAt: tasks.updatedAt,
      assignee: tasks.assignedTo,
    })
    .from(tasks)
    .innerJoin(users, eq(users.id, tasks.assignedTo))
    .where(and(isNull(tasks.deletedAt), eq(users.role, 'employee')));
  // One row per author, not a pass over the whole team chat's history.
  const sentRows = await db
    .select({ userId: chatAuthorCounts.userId, sent: chatAuthorCounts.liveMessages })
    .from(chatAuthorCounts);
  const employees = employeeRows.map(toUserDto);
  const assigned = assignedRows.map(({ assignee, ...task }) => ({
    ...task,
    assignedTo: assignee ? { id: assignee } : null,
  }));
  const messages = new Map(sentRows.map((row) => [row.userId, row.sent]));
  return summarizeEmployees(employees, assigned, messages, isoToday(now));
}

/**
 * `user.deactivate`: DELETE /api/auth/users/{id}. Managers only, employees only, never oneself. The account
 * stops (no sign-in, its tokens refused at once) and leaves every list, while its messages, comments and
 * task history keep its name; its open tasks are left unassigned. The audit trail records who deleted whom.
 */
export const deactivateEmployeeCommand = defineCommand({
  name: 'user.deactivate',
  args: z.object({ id: idSchema }),
  async run(ctx, { id }) {
    if (!canManageEmployees(ctx.actor)) throw new DomainError('forbidden', accountTexts.onlyManagersDelete);
    if (id === ctx.actor.id) throw new DomainError('forbidden', accountTexts.notYourself);
    await lockRows(ctx.tx, users, [id]);
    const [target] = await ctx.tx
      .select()
      .from(users)
      .where(and(eq(users.id, id), isNull(users.deactivatedAt)));
    if (!target) throw new DomainError('user_not_found');
    if (target.role !== 'employee') throw new DomainError('forbidden', accountTexts.onlyEmployeesDeleted);
    const stamp = ctx.now.toISOString();
    await ctx.tx
      .update(users)
      .set({ deactivatedAt: stamp, status: 'offline', updatedAt: stamp })
      .where(eq(users.id, id));
    const sessionsEnded = await endAllSessions(ctx.tx, id, ctx.now);
    await ctx.record({ entity: 'user', id, op: 'delete', audience: USER_AUDIENCE });
    const open = await ctx.tx
      .select()
      .from(tasks)
      .where(and(eq(tasks.assignedTo, id), ne(tasks.status, 'completed'), isNull(tasks.deletedAt)));
    for (const task of open) {
      await ctx.tx.update(tasks).set({ assignedTo: null, updatedAt: stamp }).where(eq(tasks.id, task.id));
      await ctx.record({
        entity: 'task',
        id: task.id,
        op: 'put',
        audience: taskAudience({ ...task, assignedTo: null }),
        formerAudience: taskAudience(task),
      });
    }
    await recordAct(ctx, {
      action: 'employee_deactivated',
      target: { id, name: target.name },
      details: { sessionsEnded: String(sessionsEnded), tasksUnassigned: String(open.length) },
    });
    return { id, name: target.name, unassignedTasks: open.length };
  },
});
