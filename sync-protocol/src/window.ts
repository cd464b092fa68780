import { z } from 'zod';
import { idSchema } from './ids';
import { chatMessageSchema } from './entities/chat';
import { directMessageWithReadsSchema } from './entities/direct';
import { messagePagePlaceSchema } from './commands/chat';

/** The team chat among the conversations a device keeps a window of; a direct conversation goes by its id. */
export const teamChatKey = 'team';

/** At most this many conversations in one window counts request. */
export const windowCountsConversationsMax = 1000;

const countSchema = z.number().int().min(0);

/**
 * POST /api/sync/window-counts: the edges of this device's window. Its rows at or after an edge are on the
 * device; the server counts what lies before it: team chat messages before `teamChat`, completed tasks last
 * changed before `tasks`, and the messages of each direct conversation before its `edge`.
 */
export const windowCountsQuerySchema = z.object({
  teamChat: z.iso.datetime().optional(),
  tasks: z.iso.datetime().optional(),
  conversations: z
    .array(z.object({ id: idSchema, edge: z.iso.datetime() }))
    .max(windowCountsConversationsMax)
    .default([]),
});
export type WindowCountsQuery = z.input<typeof windowCountsQuerySchema>;

/**
 * What lies before the edges of a device's window, as the person sees it, for the device to add to what it
 * holds: the team chat notices unread there (for the read marker named beside it), messages there by author
 * (managers only: Employee Management), completed tasks there in all and by assignee, and each direct
 * conversation's messages unread there (for the person's read time named beside it).
 */
export const windowCountsSchema = z.object({
  teamChat: z
    .object({
      unread: countSchema,
      readThrough: z.string().nullable(),
      byAuthor: z.record(idSchema, countSchema),
    })
    .nullable(),
  tasks: z.object({ completed: countSchema, byAssignee: z.record(idSchema, countSchema) }).nullable(),
  conversations: z.array(z.object({ id: idSchema, unread: countSchema, lastReadAt: z.string().nullable() })),
});
export type WindowCounts = z.infer<typeof windowCountsSchema>;

/** A page of the team chat (GET /api/messages), oldest first. */
export const chatMessagePageSchema = messagePagePlaceSchema.extend({ messages: z.array(chatMessageSchema) });
export type ChatMessagePage = z.infer<typeof chatMessagePageSchema>;

/** A page of a direct conversation (GET /api/direct-messages/conversations/{id}/messages with a page), oldest first. */
export const directMessagePageSchema = messagePagePlaceSchema.extend({
  success: z.literal(true),
  messages: z.array(directMessageWithReadsSchema),
});
export type DirectMessagePage = z.infer<typeof directMessagePageSchema>;
