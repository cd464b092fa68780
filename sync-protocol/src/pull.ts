import { z } from 'zod';
import { idSchema } from './ids';
import { limits } from './limits';
import { userSchema } from './entities/user';
import { taskSchema } from './entities/task';
import { notificationSchema } from './entities/notification';
import { chatMessageSchema } from './entities/chat';
import { conversationSchema, directMessageSchema } from './entities/direct';

/** Names of the synced entities, one client table each. */
export const entityNames = ['user', 'task', 'notification', 'chatMessage', 'conversation', 'directMessage'] as const;
export type EntityName = (typeof entityNames)[number];

const put = <E extends EntityName, S extends z.ZodType>(entity: E, data: S) =>
  z.object({ entity: z.literal(entity), op: z.literal('put'), id: idSchema, data });

/** One change a client applies: the entity's current state, or its removal from the client's view. */
export const changeSchema = z.union([
  put('user', userSchema),
  put('task', taskSchema),
  put('notification', notificationSchema),
  put('chatMessage', chatMessageSchema),
  put('conversation', conversationSchema),
  put('directMessage', directMessageSchema),
  z.object({ entity: z.enum(entityNames), op: z.literal('delete'), id: idSchema }),
]);
export type Change = z.infer<typeof changeSchema>;
export type PutChange = Extract<Change, { op: 'put' }>;

/** GET /api/sync/pull query. */
export const pullQuerySchema = z.object({
  clientId: idSchema,
  cursor: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(limits.pullPageMax).default(limits.pullPageDefault),
});
export type PullQuery = z.infer<typeof pullQuerySchema>;

/**
 * GET /api/sync/pull answer. `reset` means a bootstrap: replace every entity table with `changes`.
 * `lastMutationId` is the highest mutation of this client the server has processed.
 */
export const pullResponseSchema = z.object({
  changes: z.array(changeSchema),
  cursor: z.number().int(),
  more: z.boolean(),
  reset: z.boolean(),
  lastMutationId: z.number().int(),
});
export type PullResponse = z.infer<typeof pullResponseSchema>;
