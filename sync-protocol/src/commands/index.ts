import type { z } from 'zod';
import { updateDetailsArgsSchema } from './auth';
import {
  markAllNotificationsReadArgsSchema,
  markNotificationReadArgsSchema,
  setNotificationPreferencesArgsSchema,
} from './notifications';
import {
  addCommentArgsSchema,
  createTaskArgsSchema,
  deleteTaskArgsSchema,
  editTaskArgsSchema,
  setTaskStatusArgsSchema,
  updateTaskArgsSchema,
} from './tasks';
import { deleteChatArgsSchema, editChatArgsSchema, sendChatArgsSchema, sendChatFilesArgsSchema } from './chat';
import {
  deleteDirectArgsSchema,
  markReadArgsSchema,
  sendDirectArgsSchema,
  sendDirectFilesArgsSchema,
  startConversationArgsSchema,
} from './direct';
import { reactChatArgsSchema, reactDirectArgsSchema } from './reactions';

/** Argument schema of every command that a client may queue offline and push through sync. */
export const mutationArgsSchemas = {
  'user.updateDetails': updateDetailsArgsSchema,
  'task.create': createTaskArgsSchema,
  'task.update': updateTaskArgsSchema,
  'task.setStatus': setTaskStatusArgsSchema,
  'task.edit': editTaskArgsSchema,
  'task.comment': addCommentArgsSchema,
  'task.delete': deleteTaskArgsSchema,
  'chat.send': sendChatArgsSchema,
  'chat.edit': editChatArgsSchema,
  'chat.delete': deleteChatArgsSchema,
  'chat.sendFiles': sendChatFilesArgsSchema,
  'chat.react': reactChatArgsSchema,
  'dm.start': startConversationArgsSchema,
  'dm.send': sendDirectArgsSchema,
  'dm.sendFiles': sendDirectFilesArgsSchema,
  'dm.delete': deleteDirectArgsSchema,
  'dm.markRead': markReadArgsSchema,
  'dm.react': reactDirectArgsSchema,
  'notification.markRead': markNotificationReadArgsSchema,
  'notification.markAllRead': markAllNotificationsReadArgsSchema,
  'notification.setPreferences': setNotificationPreferencesArgsSchema,
} as const;

/** Mutations that carry files: the engine uploads them as multipart, one by one, instead of pushing them. */
export const fileMutationNames = ['chat.sendFiles', 'dm.sendFiles'] as const;
export type FileMutationName = (typeof fileMutationNames)[number];

/** Names of the commands that travel through /api/sync/push. */
export type MutationName = keyof typeof mutationArgsSchemas;
/** The arguments of one mutation, by name. */
export type MutationArgs<N extends MutationName> = z.input<(typeof mutationArgsSchemas)[N]>;
/** Every mutation name, for validation. */
export const mutationNames = Object.keys(mutationArgsSchemas) as [MutationName, ...MutationName[]];
