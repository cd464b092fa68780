import type { z } from 'zod';
import type { MutationName } from '@office/sync-protocol';
import type { Command } from '../commands';
import {
  addCommentCommand,
  createTaskCommand,
  deleteTaskCommand,
  setTaskStatusCommand,
  updateTaskCommand,
} from '../tasks/commands';
import { updateDetailsCommand } from '../users/commands';
import { markAllNotificationsReadCommand, markNotificationReadCommand } from '../notifications/commands';
import { deleteChatCommand, editChatCommand, refuseFilesThroughPushCommand, sendChatCommand } from '../chat/commands';
import {
  deleteDirectCommand,
  markReadCommand,
  refuseDirectFilesThroughPushCommand,
  sendDirectCommand,
  startConversationCommand,
} from '../direct/commands';

/** The command each client mutation runs: the same one its REST route calls. */
export const mutationCommands: Record<MutationName, Command<z.ZodType, unknown>> = {
  'user.updateDetails': updateDetailsCommand,
  'task.create': createTaskCommand,
  'task.update': updateTaskCommand,
  'task.setStatus': setTaskStatusCommand,
  'task.comment': addCommentCommand,
  'task.delete': deleteTaskCommand,
  'chat.send': sendChatCommand,
  'chat.edit': editChatCommand,
  'chat.delete': deleteChatCommand,
  'chat.sendFiles': refuseFilesThroughPushCommand,
  'dm.start': startConversationCommand,
  'dm.send': sendDirectCommand,
  'dm.sendFiles': refuseDirectFilesThroughPushCommand,
  'dm.delete': deleteDirectCommand,
  'dm.markRead': markReadCommand,
  'notification.markRead': markNotificationReadCommand,
  'notification.markAllRead': markAllNotificationsReadCommand,
};
