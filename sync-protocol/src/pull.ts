import { z } from 'zod';
import { idSchema } from './ids';
import { limits } from './limits';
import { userSchema } from './entities/user';
import { taskSchema } from './entities/task';
import { notificationMarkerSchema, notificationPreferencesSchema, notificationSchema } from './entities/notification';
import { chatMessageSchema } from './entities/chat';
import { conversationSchema, directMessageSchema } from './entities/direct';

/** Names of the synced entities, one client table each. */
export const entityNames = [
  'user',
  'task',
  'notification',
  'notificationMarker',
  'notificationPreferences',
  'chatMessage',
  'conversation',
  'directMessage',
] as const;
export type EntityName = (typeof entityNames)[number];

const put = <E extends EntityName, S extends z.ZodType>(entity: E, data: S) =>
  z.object({ entity: z.literal(entity), op: z.literal('put'), id: idSchema, data });

/** One change a client applies: the entity's current state, or its removal from the client's view. */
export const changeSchema = z.union([
  put('user', userSchema),
  put('task', taskSchema),
  put('notification', notificationSchema),
  put('notificationMarker', notificationMarkerSchema),
  put('notificationPreferences', notificationPreferencesSchema),
  put('chatMessage', chatMessageSchema),
  put('conversation', conversationSchema),
  put('directMessage', directMessageSchema),
  z.object({ entity: z.enum(entityNames), op: z.literal('delete'), id: idSchema }),
]);
export type Change = z.infer<typeof changeSchema>;
export type PutChange = Extract<Change, { op: 'put' }>;

/** Where a bootstrap goes on: the opaque token of its next page (see pullResponseSchema's `bootstrap`). */
export const snapshotTokenSchema = z.string().regex(/^\d+\.\d+\.[0-9a-f-]{0,36}\.\d+\.\d+$/, 'Not a bootstrap token');

/** GET /api/sync/pull query. `snapshot` resumes a bootstrap (cursor 0) where its last page ended. */
export const pullQuerySchema = z.object({
  clientId: idSchema,
  cursor: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(limits.pullPageMax).default(limits.pullPageDefault),
  snapshot: snapshotTokenSchema.optional(),
});
export type PullQuery = z.infer<typeof pullQuerySchema>;

/**
 * How far a bootstrap is: rows sent so far of all it holds, and the token of its next page (null: last page).
 * `historyStarts` names the conversations whose first message this page holds (`teamChatKey` for the team
 * chat, else a direct conversation's id): the device then holds their whole history, not only its window.
 */
export const bootstrapProgressSchema = z.object({
  next: snapshotTokenSchema.nullable(),
  done: z.number().int(),
  total: z.number().int(),
  historyStarts: z.array(z.string()),
});
export type BootstrapProgress = z.infer<typeof bootstrapProgressSchema>;

/**
 * The window of history a server holds its devices to (`historyWindow`, or lower), with where its completed
 * tasks end at the moment of the answer: those last changed before `completedSince` lie outside it.
 */
export const historyWindowSchema = z.object({
  teamChatMessages: z.number().int().min(1),
  directMessages: z.number().int().min(1),
  completedTaskDays: z.number().int().min(0),
  notifications: z.number().int().min(1),
  completedSince: z.iso.datetime(),
});
export type HistoryWindow = z.infer<typeof historyWindowSchema>;

/**
 * GET /api/sync/pull answer. `reset` starts a bootstrap: empty every entity table, then apply `changes`.
 * A bootstrap comes in pages (`bootstrap` set): the client keeps `bootstrap.next` and asks for it with
 * cursor 0 until it is null; that last page carries the cursor to pull from. `lastMutationId` is the
 * highest mutation of this client the server has processed. `window` is what the device keeps (issue 46): a
 * change outside it moves the cursor without being stored.
 */
export const pullResponseSchema = z.object({
  changes: z.array(changeSchema),
  cursor: z.number().int(),
  more: z.boolean(),
  reset: z.boolean(),
  bootstrap: bootstrapProgressSchema.nullable(),
  lastMutationId: z.number().int(),
  window: historyWindowSchema,
});
export type PullResponse = z.infer<typeof pullResponseSchema>;
