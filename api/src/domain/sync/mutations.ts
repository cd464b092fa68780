import { z } from 'zod';
import type { MutationName } from '@office/sync-protocol';
import { defineCommand, type Command } from '../commands';
import { DomainError } from '../errors';
import {
  addCommentCommand,
  createTaskCommand,
  deleteTaskCommand,
  editTaskCommand,
  setTaskStatusCommand,
  updateTaskCommand,
} from '../tasks/commands';
import { updateDetailsCommand } from '../users/commands';
import { markAllNotificationsReadCommand, markNotificationReadCommand } from '../notifications/commands';
import { setNotificationPreferencesCommand } from '../notifications/preferences';
import { deleteChatCommand, editChatCommand, reactChatCommand, sendChatCommand } from '../chat/commands';
import {
  deleteDirectCommand,
  markReadCommand,
  reactDirectCommand,
  sendDirectCommand,
  startConversationCommand,
} from '../direct/commands';

/** Files cannot travel in a JSON push: a queued message with files goes to its multipart route. */
const filesGoThrough = (name: MutationName, route: string) =>
  defineCommand({
    name,
    args: z.unknown(),
    run() {
      throw new DomainError('invalid_input', `Files are sent through ${route}, not /api/sync/push.`);
    },
  });

/** The command each client mutation runs: the same one its REST route calls. */
export const mutationCommands: Record<MutationName, Command<z.ZodType, unknown>> = {
  'user.updateDetails': updateDetailsCommand,
  'task.create': createTaskCommand,
  'task.update': updateTaskCommand,
  'task.setStatus': setTaskStatusCommand,
  'task.edit': editTaskCommand,
  'task.comment': addCommentCommand,
  'task.delete': deleteTaskCommand,
  'chat.send': sendChatCommand,
  'chat.edit': editChatCommand,
  'chat.delete': deleteChatCommand,
  'chat.sendFiles': filesGoThrough('chat.sendFiles', 'POST /api/messages/upload'),
  'chat.react': reactChatCommand,
  'dm.start': startConversationCommand,
  'dm.send': sendDirectCommand,
  'dm.sendFiles': filesGoThrough('dm.sendFiles', 'POST /api/direct-messages/conversations/{id}/messages'),
  'dm.delete': deleteDirectCommand,
  'dm.markRead': markReadCommand,
  'dm.react': reactDirectCommand,
  'notification.markRead': markNotificationReadCommand,
  'notification.markAllRead': markAllNotificationsReadCommand,
  'notification.setPreferences': setNotificationPreferencesCommand,
};
