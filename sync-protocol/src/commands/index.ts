import type { z } from 'zod';
import { updateDetailsArgsSchema } from './auth';
import {
  addCommentArgsSchema,
  createTaskArgsSchema,
  deleteTaskArgsSchema,
  setTaskStatusArgsSchema,
  updateTaskArgsSchema,
} from './tasks';
import { deleteChatArgsSchema, editChatArgsSchema, sendChatArgsSchema, sendChatFilesArgsSchema } from './chat';

/** Argument schema of every command that a client may queue offline and push through sync. */
export const mutationArgsSchemas = {
  'user.updateDetails': updateDetailsArgsSchema,
  'task.create': createTaskArgsSchema,
  'task.update': updateTaskArgsSchema,
  'task.setStatus': setTaskStatusArgsSchema,
  'task.comment': addCommentArgsSchema,
  'task.delete': deleteTaskArgsSchema,
  'chat.send': sendChatArgsSchema,
  'chat.edit': editChatArgsSchema,
  'chat.delete': deleteChatArgsSchema,
  'chat.sendFiles': sendChatFilesArgsSchema,
} as const;

/** Names of the commands that travel through /api/sync/push. */
export type MutationName = keyof typeof mutationArgsSchemas;
/** The arguments of one mutation, by name. */
export type MutationArgs<N extends MutationName> = z.input<(typeof mutationArgsSchemas)[N]>;
/** Every mutation name, for validation. */
export const mutationNames = Object.keys(mutationArgsSchemas) as [MutationName, ...MutationName[]];
