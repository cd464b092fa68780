import { z } from 'zod';
import { idSchema } from '../ids';
import { isoDateSchema, taskPriorities, taskStatuses } from '../entities/task';

const REQUIRED = 'Title, assignee and due date are required';

/** Messages of task rules, shared by the server's refusals and the PWA's checks. */
export const taskMessages = {
  required: REQUIRED,
  noStatusPermission: "You don't have permission to update this task's status.",
  notFound: 'Task not found. It may have been deleted.',
  dueDateInPast: 'The due date cannot be in the past',
  assigneeNotEmployee: 'Tasks can only be assigned to employees',
  commentRequired: 'Comment text is required',
  onlyManagers: 'Only managers and admins can create, edit or delete tasks.',
} as const;

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
  dueDate: z.string({ error: REQUIRED }).min(1, REQUIRED).pipe(isoDateSchema),
});
export type CreateTaskArgs = z.input<typeof createTaskArgsSchema>;

/** `task.update`: PUT /api/tasks/{id} with fields other than the status (managers and admins). */
export const updateTaskArgsSchema = z.object({
  id: idSchema,
  title: z.string().trim().min(1, REQUIRED).max(taskLimits.titleMax).optional(),
  description: z.string().trim().max(taskLimits.descriptionMax).optional(),
  assignedTo: idSchema.optional(),
  priority: z.enum(taskPriorities).optional(),
  dueDate: isoDateSchema.optional(),
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

/** `GET /api/tasks?page=&limit=`: one page of the visible tasks, most recently updated first. Without either, all of them. */
export const tasksPageQuerySchema = z.object({
  page: z.coerce.number().int().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
});

/** The page size when only `page` is given. */
export const tasksPageDefaultLimit = 50;
