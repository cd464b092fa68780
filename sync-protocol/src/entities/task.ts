import { z } from 'zod';
import { idSchema } from '../ids';

/** Task status values (spec section 4). */
export const taskStatuses = ['pending', 'working', 'completed', 'waiting'] as const;
export type TaskStatus = (typeof taskStatuses)[number];
/** Task priority values (spec section 4); the default is medium. */
export const taskPriorities = ['low', 'medium', 'high', 'critical'] as const;
export type TaskPriority = (typeof taskPriorities)[number];

/** A due date as the spec compares it: YYYY-MM-DD. */
export const isoDateSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'Use a date in the form YYYY-MM-DD');

/** A person as tasks reference them: both id spellings and the name. */
export const userRefSchema = z.object({ _id: idSchema, id: idSchema, name: z.string() });
export type UserRef = z.infer<typeof userRefSchema>;

/** A comment on a task, with its author's name. */
export const commentSchema = z.object({
  _id: idSchema,
  id: idSchema,
  userId: idSchema,
  userName: z.string(),
  text: z.string(),
  createdAt: z.string(),
});
export type Comment = z.infer<typeof commentSchema>;

/** One status change. `superseded`: made before a later change that won, so it did not set the status. */
export const statusHistoryEntrySchema = z.object({
  _id: idSchema,
  id: idSchema,
  status: z.enum(taskStatuses),
  updatedBy: userRefSchema,
  updatedAt: z.string(),
  note: z.string().nullable(),
  superseded: z.boolean(),
});
export type StatusHistoryEntry = z.infer<typeof statusHistoryEntrySchema>;

/** A task with its comments and history, oldest first. `assignedTo` is null once its assignee was removed. */
export const taskSchema = z.object({
  _id: idSchema,
  id: idSchema,
  title: z.string(),
  description: z.string(),
  assignedTo: userRefSchema.nullable(),
  assignedBy: userRefSchema,
  priority: z.enum(taskPriorities),
  status: z.enum(taskStatuses),
  dueDate: isoDateSchema,
  comments: z.array(commentSchema),
  statusHistory: z.array(statusHistoryEntrySchema),
  /** Increases with every status change that took effect; a status change names the one its author saw. */
  statusVersion: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  version: z.number().int(),
});
export type Task = z.infer<typeof taskSchema>;
