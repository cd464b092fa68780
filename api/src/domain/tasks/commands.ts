import { and, eq, isNull, sql } from 'drizzle-orm';
import type { z } from 'zod';
import {
  addCommentArgsSchema,
  canChangeTaskStatus,
  canCommentOnTask,
  canManageTasks,
  canEditTask,
  createTaskArgsSchema,
  cutText,
  deleteTaskArgsSchema,
  editTaskArgsSchema,
  isoToday,
  setTaskStatusArgsSchema,
  taskMessages,
  updateTaskArgsSchema,
  uuidv7,
  type Actor,
  type Task,
  type TaskStatus,
} from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { prepared } from '../../db/prepared';
import { lockRows } from '../../db/row-locks';
import { taskComments, taskStatusHistory, tasks, users } from '../../db/schema';
import { defineCommand, type CommandContext } from '../commands';
import { DomainError } from '../errors';
import { notify, type NewNotification } from '../notifications/notify';
import { findTaskRow, loadTasks, taskAudience, type TaskRow } from './read';

/** Comments are cut to this many characters in notifications (spec section 9). */
const COMMENT_NOTIFICATION_CUT = 100;

function requireManager(actor: Actor): void {
  if (!canManageTasks(actor)) throw new DomainError('forbidden', taskMessages.onlyManagers);
}

/** The task, locked for this command's writes (see row-locks.ts). */
async function requireTask(tx: Tx, id: string): Promise<TaskRow> {
  await lockRows(tx, tasks, [id]);
  const row = await findTaskRow(tx, id);
  if (!row) throw new DomainError('task_not_found', taskMessages.notFound);
  return row;
}

const parties = (row: TaskRow) => ({
  assignedTo: row.assignedTo ? { id: row.assignedTo } : null,
  assignedBy: { id: row.assignedBy },
});

/** An assignee must be an existing, active employee (spec section 5). */
async function requireEmployee(tx: Tx, id: string): Promise<void> {
  const [row] = await tx
    .select({ role: users.role })
    .from(users)
    .where(and(eq(users.id, id), isNull(users.deactivatedAt)));
  if (row?.role !== 'employee') throw new DomainError('invalid_input', taskMessages.assigneeNotEmployee);
}

async function nameOf(tx: Tx, id: string): Promise<string> {
  const [row] = await tx.select({ name: users.name }).from(users).where(eq(users.id, id));
  return row?.name ?? 'Someone';
}

/** The other parties of a task (assignee and assigner), never the actor. */
const otherParties = (row: TaskRow, actorId: string): string[] =>
  [...new Set([row.assignedTo, row.assignedBy])].filter((id): id is string => id !== null && id !== actorId);

/** What a task command wrote: the task's id. A REST route answers with `writtenTask`; a queued push needs nothing. */
export interface TaskWritten {
  id: string;
}

/**
 * Stamps the task as updated and records its change, its audience from the row. The task itself (with every
 * comment and status change) is not read here: publishing reads each task a batch touched once, after the
 * commit, and a REST route reads it for its answer. A queued burst of comments on one task so costs one
 * read of that task per batch, not one per comment.
 */
async function touch(ctx: CommandContext, row: TaskRow, formerAudience?: string[]): Promise<TaskWritten> {
  await prepared(ctx.tx, 'tasks.touch', (handle) =>
    handle
      .update(tasks)
      .set({ updatedAt: sql`${sql.placeholder('updatedAt')}` })
      .where(eq(tasks.id, sql.placeholder('id')))
      .prepare(),
  ).execute({ updatedAt: ctx.now.toISOString(), id: row.id });
  await ctx.record({
    entity: 'task',
    id: row.id,
    op: 'put',
    audience: taskAudience({ assignedTo: row.assignedTo, assignedBy: row.assignedBy }),
    ...(formerAudience ? { formerAudience } : {}),
  });
  return { id: row.id };
}

/** The task a command wrote, as committed: a REST route's answer. */
export async function writtenTask(db: Db, written: TaskWritten): Promise<Task> {
  const [task] = await loadTasks(db, [written.id]);
  if (!task) throw new Error(`task ${written.id} vanished after its own write`);
  return task;
}

async function appendHistory(
  ctx: CommandContext,
  taskId: string,
  status: TaskStatus,
  note: string | null,
  superseded: boolean,
  madeAt: string,
): Promise<void> {
  await ctx.tx.insert(taskStatusHistory).values({
    id: uuidv7(Date.parse(madeAt)),
    taskId,
    status,
    updatedBy: ctx.actor.id,
    updatedAt: madeAt,
    note,
    superseded,
  });
}

/** The later of two ISO times. */
const laterOf = (a: string, b: string): string => (a > b ? a : b);

/** `task.create`: managers and admins assign a task to an employee. */
export const createTaskCommand = defineCommand({
  name: 'task.create',
  args: createTaskArgsSchema,
  async run(ctx, args) {
    requireManager(ctx.actor);
    const [existing] = await ctx.tx.select().from(tasks).where(eq(tasks.id, args.id));
    if (existing) {
      // Security: a client id is accepted once; the same id with other content is refused, never merged.
      const same =
        existing.title === args.title &&
        existing.assignedTo === args.assignedTo &&
        existing.assignedBy === ctx.actor.id;
      if (!same || existing.deletedAt) throw new DomainError('duplicate_id');
      const [task] = await loadTasks(ctx.tx, [args.id]);
      if (!task) throw new DomainError('task_not_found', taskMessages.notFound);
      return task;
    }
    await requireEmployee(ctx.tx, args.assignedTo);
    if (args.dueDate < isoToday(ctx.now)) throw new DomainError('invalid_input', taskMessages.dueDateInPast);
    const stamp = ctx.now.toISOString();
    await ctx.tx.insert(tasks).values({
      id: args.id,
      title: args.title,
      description: args.description,
      assignedTo: args.assignedTo,
      assignedBy: ctx.actor.id,
      priority: args.priority,
      status: args.status,
      dueDate: args.dueDate,
      statusChangedAt: ctx.madeAt.toISOString(),
      createdAt: stamp,
      updatedAt: stamp,
    });
    await appendHistory(ctx, args.id, args.status, 'Task created', false, ctx.madeAt.toISOString());
    const row = await requireTask(ctx.tx, args.id);
    const actorName = await nameOf(ctx.tx, ctx.actor.id);
    await notify(ctx, [
      {
        recipientId: args.assignedTo,
        senderId: ctx.actor.id,
        type: 'task_assigned',
        title: 'New Task Assigned',
        message: `${actorName} assigned you "${args.title}"`,
        relatedTaskId: args.id,
        data: { taskId: args.id, dueDate: args.dueDate, priority: args.priority },
      },
    ]);
    return touch(ctx, row);
  },
});

/** The fields of a `task.update` or `task.edit` other than the id and the status. */
type FieldEdit = Omit<z.output<typeof updateTaskArgsSchema>, 'id'>;

/**
 * Writes a field edit and tells the task's other parties. Returns the row as it is now and, when the task
 * changed hands, who could see it before (for `touch`).
 */
async function applyFieldEdit(
  ctx: CommandContext,
  before: TaskRow,
  fields: FieldEdit,
): Promise<{ after: TaskRow; formerAudience?: string[] }> {
  const changes = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  if (Object.keys(changes).length === 0) return { after: before };
  const reassigned = fields.assignedTo !== undefined && fields.assignedTo !== before.assignedTo;
  if (reassigned && fields.assignedTo) await requireEmployee(ctx.tx, fields.assignedTo);
  const rescheduled = fields.dueDate !== undefined && fields.dueDate !== before.dueDate;
  // The creation rule holds for a new date; an unchanged one may lie in the past (the task is overdue).
  if (rescheduled && fields.dueDate !== undefined && fields.dueDate < isoToday(ctx.now)) {
    throw new DomainError('invalid_input', taskMessages.dueDateInPast);
  }
  // A new due date earns new due-soon and overdue notices: the flags belong to the date they were sent for.
  const flags = rescheduled ? { dueSoonNotifiedAt: null, overdueNotifiedAt: null } : {};
  await ctx.tx
    .update(tasks)
    .set({ ...changes, ...flags })
    .where(eq(tasks.id, before.id));
  const after = await requireTask(ctx.tx, before.id);
  const title = after.title;
  const actorName = await nameOf(ctx.tx, ctx.actor.id);
  const notices: NewNotification[] = otherParties(after, ctx.actor.id)
    .filter((recipient) => !(reassigned && recipient === after.assignedTo))
    .map((recipient) => ({
      recipientId: recipient,
      senderId: ctx.actor.id,
      type: 'task_updated',
      title: 'Task Updated',
      message: `${actorName} updated "${title}"`,
      relatedTaskId: after.id,
      data: { taskId: after.id, fields: Object.keys(changes) },
    }));
  if (reassigned && after.assignedTo) {
    notices.push({
      recipientId: after.assignedTo,
      senderId: ctx.actor.id,
      type: 'task_assigned',
      title: 'New Task Assigned',
      message: `${actorName} assigned you "${title}"`,
      relatedTaskId: after.id,
      data: { taskId: after.id, dueDate: after.dueDate, priority: after.priority },
    });
  }
  await notify(ctx, notices);
  return reassigned && before.assignedTo ? { after, formerAudience: [`user:${before.assignedTo}`] } : { after };
}

/** A status change as `task.setStatus` and `task.edit` carry it. */
type StatusChange = Omit<z.output<typeof setTaskStatusArgsSchema>, 'id'>;

/**
 * Writes a status change. Conflict rule: a change made on a status version nobody has moved since simply
 * applies; otherwise the change made later wins, and the earlier one still enters the history, in time
 * order, marked superseded, and its author is told.
 */
async function applyStatusChange(ctx: CommandContext, row: TaskRow, change: StatusChange): Promise<void> {
  // Security: a client's claimed time never goes back before the task existed (and lands after its creation entry).
  const madeAt = laterOf(ctx.madeAt.toISOString(), new Date(Date.parse(row.createdAt) + 1).toISOString());
  const movedSince = change.baseStatusVersion !== undefined && change.baseStatusVersion !== row.statusVersion;
  const wins = !movedSince || madeAt >= row.statusChangedAt;
  await appendHistory(ctx, row.id, change.status, change.note || null, !wins, madeAt);
  const actorName = await nameOf(ctx.tx, ctx.actor.id);
  if (wins) {
    await ctx.tx
      .update(tasks)
      .set({ status: change.status, statusVersion: row.statusVersion + 1, statusChangedAt: madeAt })
      .where(eq(tasks.id, row.id));
    await notify(
      ctx,
      otherParties(row, ctx.actor.id).map((recipient) => ({
        recipientId: recipient,
        senderId: ctx.actor.id,
        type: 'task_updated',
        title: 'Task Status Updated',
        message: `${actorName} changed "${row.title}" to ${change.status}`,
        relatedTaskId: row.id,
        data: { taskId: row.id, status: change.status, note: change.note ?? null },
      })),
    );
  } else {
    await notify(ctx, [
      {
        recipientId: ctx.actor.id,
        senderId: null,
        type: 'task_updated',
        title: 'Status change superseded',
        message: `Your change of "${row.title}" to ${change.status} was made before a later change, which stays in effect.`,
        relatedTaskId: row.id,
        data: { taskId: row.id, status: change.status, superseded: true },
      },
    ]);
  }
}

/** `task.update`: managers and admins edit a task's fields. */
export const updateTaskCommand = defineCommand({
  name: 'task.update',
  args: updateTaskArgsSchema,
  async run(ctx, { id, ...fields }) {
    requireManager(ctx.actor);
    const { after, formerAudience } = await applyFieldEdit(ctx, await requireTask(ctx.tx, id), fields);
    return touch(ctx, after, formerAudience);
  },
});

/** `task.setStatus`: the assignee, managers and admins; see `applyStatusChange` for late replays. */
export const setTaskStatusCommand = defineCommand({
  name: 'task.setStatus',
  args: setTaskStatusArgsSchema,
  async run(ctx, { id, ...change }) {
    const row = await requireTask(ctx.tx, id);
    if (!canChangeTaskStatus(ctx.actor, parties(row)))
      throw new DomainError('forbidden', taskMessages.noStatusPermission);
    await applyStatusChange(ctx, row, change);
    return touch(ctx, row);
  },
});

/**
 * `task.edit`: PUT /api/tasks/{id} and its sync mutation. Fields, status or both in one write: managers and
 * admins edit anything, the assignee changes the status only (canEditTask). All of it applies, or none.
 */
export const editTaskCommand = defineCommand({
  name: 'task.edit',
  args: editTaskArgsSchema,
  async run(ctx, { id, status, note, baseStatusVersion, ...fields }) {
    const editsFields = Object.values(fields).some((value) => value !== undefined);
    if (!editsFields && status === undefined) throw new DomainError('invalid_input', taskMessages.nothingToUpdate);
    const row = await requireTask(ctx.tx, id);
    if (!canEditTask(ctx.actor, parties(row), { fields: editsFields, status: status !== undefined })) {
      const message =
        editsFields && !canManageTasks(ctx.actor) ? taskMessages.onlyManagers : taskMessages.noStatusPermission;
      throw new DomainError('forbidden', message);
    }
    const { after, formerAudience } = await applyFieldEdit(ctx, row, fields);
    if (status !== undefined) await applyStatusChange(ctx, after, { status, note, baseStatusVersion });
    return touch(ctx, after, formerAudience);
  },
});

/** `task.comment`: whoever sees a task comments on it. Append-only, idempotent by the comment id. */
export const addCommentCommand = defineCommand({
  name: 'task.comment',
  args: addCommentArgsSchema,
  async run(ctx, args) {
    const row = await requireTask(ctx.tx, args.taskId);
    if (!canCommentOnTask(ctx.actor, parties(row))) throw new DomainError('task_not_found', taskMessages.notFound);
    const [existing] = await ctx.tx.select().from(taskComments).where(eq(taskComments.id, args.id));
    if (existing) {
      if (existing.taskId !== args.taskId || existing.text !== args.text || existing.userId !== ctx.actor.id) {
        throw new DomainError('duplicate_id');
      }
      return touch(ctx, row);
    }
    await ctx.tx.insert(taskComments).values({
      id: args.id,
      taskId: args.taskId,
      userId: ctx.actor.id,
      text: args.text,
      createdAt: ctx.now.toISOString(),
    });
    const actorName = await nameOf(ctx.tx, ctx.actor.id);
    await notify(
      ctx,
      otherParties(row, ctx.actor.id).map((recipient) => ({
        recipientId: recipient,
        senderId: ctx.actor.id,
        type: 'task_comment',
        title: `New comment from ${actorName}`,
        message: cutText(args.text, COMMENT_NOTIFICATION_CUT),
        relatedTaskId: row.id,
        data: { taskId: row.id, commentId: args.id },
      })),
    );
    return touch(ctx, row);
  },
});

/** `task.delete`: managers and admins. The row stays (comments and history keep pointing at it) but leaves every view. */
export const deleteTaskCommand = defineCommand({
  name: 'task.delete',
  args: deleteTaskArgsSchema,
  async run(ctx, args) {
    requireManager(ctx.actor);
    const row = await requireTask(ctx.tx, args.id);
    const stamp = ctx.now.toISOString();
    await ctx.tx.update(tasks).set({ deletedAt: stamp, updatedAt: stamp }).where(eq(tasks.id, row.id));
    await ctx.record({ entity: 'task', id: row.id, op: 'delete', audience: taskAudience(row) });
    return { id: row.id };
  },
});
