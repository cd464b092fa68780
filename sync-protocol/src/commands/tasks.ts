import { z } from 'zod';
import { idSchema } from '../ids';
import { isoDateSchema, taskPriorities, taskSchema, taskStatuses } from '../entities/task';

const REQUIRED = 'Title, assignee and due date are required';

/** Messages of task rules, shared by the server's refusals and the PWA's checks. */
export const taskMessages = {
  required: REQUIRED,
  noStatusPermission: "You don't have permission to update this task's status.",
  notFound: 'Task not found. It may have been deleted.',
  dueDateInPast: 'The due date cannot be in the past',
  dueDateNotReal: 'The due date must be a real calendar date',
  nothingToUpdate: 'Nothing to update',
  assigneeNotEmployee: 'Tasks can only be assigned to employees',
  commentRequired: 'Comment text is required',
  onlyManagers: 'Only managers and admins can create, edit or delete tasks.',
} as const;

/** Whether YYYY-MM-DD names a day that exists (no 30 February, no month 13). */
function isCalendarDate(value: string): boolean {
  const [year = 0, month = 0, day = 0] = value.split('-').map(Number);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return days !== undefined && day >= 1 && day <= days;
}

/** A due date a person sets: YYYY-MM-DD and a real day of the calendar. */
export const dueDateSchema = isoDateSchema.refine(isCalendarDate, taskMessages.dueDateNotReal);

/** Task and comment text limits. */
export const taskLimits = { titleMax: 200, descriptionMax: 5000, commentMax: 2000, noteMax: 500 } as const;

/** `task.create`: POST /api/tasks and its sync mutation. The client chooses the id. */
export const createTaskArgsSchema = z.object({
  id: idSchema,
  title: z.string({ error: REQUIRED }).trim().min(1, REQUIRED).max(taskLimits.titleMax),
  description: z.string().trim().max(taskLimits.descriptionMax).default(''),
  assignedTo: z.string({ error: REQUIRED }).min(1, REQUIRED).pipe(idSchema),
  priority: z.enum(taskPriorities).default('medium'),
  status: z.enum(taskStatuses).default('pending'),
  dueDate: z.string({ error: REQUIRED }).min(1, REQUIRED).pipe(dueDateSchema),
});
export type CreateTaskArgs = z.input<typeof createTaskArgsSchema>;

/** `task.update`: PUT /api/tasks/{id} with fields other than the status (managers and admins). */
export const updateTaskArgsSchema = z.object({
  id: idSchema,
  title: z.string().trim().min(1, REQUIRED).max(taskLimits.titleMax).optional(),
  description: z.string().trim().max(taskLimits.descriptionMax).optional(),
  assignedTo: idSchema.optional(),
  priority: z.enum(taskPriorities).optional(),
  dueDate: dueDateSchema.optional(),
});
export type UpdateTaskArgs = z.input<typeof updateTaskArgsSchema>;

/** `task.setStatus`: a status change with an optional note; `baseStatusVersion` is the status version its author saw. */
export const setTaskStatusArgsSchema = z.object({
  id: idSchema,
  status: z.enum(taskStatuses),
  note: z.string().trim().max(taskLimits.noteMax).optional(),
  baseStatusVersion: z.number().int().min(0).optional(),
});
export type SetTaskStatusArgs = z.input<typeof setTaskStatusArgsSchema>;

/**
 * `task.edit`: PUT /api/tasks/{id} and its sync mutation. Any of the fields, the status (with a note and the
 * status version its author saw), or both, in one write; see `canEditTask` for who may change what.
 */
export const editTaskArgsSchema = updateTaskArgsSchema.extend(setTaskStatusArgsSchema.shape).extend({
  status: setTaskStatusArgsSchema.shape.status.optional(),
});
export type EditTaskArgs = z.input<typeof editTaskArgsSchema>;

/** `task.comment`: POST /api/tasks/{id}/comments. The client chooses the comment id. */
export const addCommentArgsSchema = z.object({
  taskId: idSchema,
  id: idSchema,
  text: z
    .string({ error: taskMessages.commentRequired })
    .trim()
    .min(1, taskMessages.commentRequired)
    .max(taskLimits.commentMax),
});
export type AddCommentArgs = z.input<typeof addCommentArgsSchema>;

/** `task.delete`: DELETE /api/tasks/{id}. */
export const deleteTaskArgsSchema = z.object({ id: idSchema });
export type DeleteTaskArgs = z.input<typeof deleteTaskArgsSchema>;

const olderTasksText = 'Use status=completed with before (and beforeId) to read older tasks, without page.';

/**
 * `GET /api/tasks?page=&limit=`: one page of the visible tasks, most recently updated first. Without either, all of
 * them. `GET /api/tasks?status=completed&before=&beforeId=&limit=` (issue 46): the visible completed tasks last
 * changed before a place, newest first: before `before` (a device's task window edge), or after the first page
 * before the task (`before` its updatedAt, `beforeId` its id) the previous page's `next` names.
 */
export const tasksPageQuerySchema = z
  .object({
    page: z.coerce.number().int().min(1).optional(),
    limit: z.coerce.number().int().min(1).max(100).optional(),
    status: z.literal('completed', { error: 'Only completed tasks are read by place (status=completed).' }).optional(),
    before: z.iso.datetime().optional(),
    beforeId: idSchema.optional(),
  })
  .refine(
    ({ page, status, before, beforeId }) =>
      status === undefined
        ? before === undefined && beforeId === undefined
        : page === undefined && (beforeId === undefined || before !== undefined),
    olderTasksText,
  );
export type TasksPageQuery = z.output<typeof tasksPageQuerySchema>;

/** Where the next page of older completed tasks starts: the query's `before` and `beforeId` (null: no older ones). */
export const olderTasksPlaceSchema = z.object({ before: z.iso.datetime(), beforeId: idSchema });

/** The answer to `GET /api/tasks?status=completed&before=`: a page, newest first, and where the next one starts. */
export const olderTasksPageSchema = z.object({
  tasks: z.array(taskSchema),
  next: olderTasksPlaceSchema.nullable(),
});
export type OlderTasksPage = z.infer<typeof olderTasksPageSchema>;

/** The page size when only `page` is given. */
export const tasksPageDefaultLimit = 50;
