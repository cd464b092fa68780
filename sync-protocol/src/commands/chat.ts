import { z } from 'zod';
import { idSchema } from '../ids';

/** Limits and messages of group chat (spec sections 5 and 9). */
export const chatLimits = { textMax: 1000 } as const;
export const chatMessages = {
  empty: 'A message needs text or files.',
  editEmpty: 'An edited message cannot be empty.',
  notFound: 'Message not found.',
  notYours: 'You can only edit or delete your own messages.',
  tooLong: `A message can have at most ${chatLimits.textMax} characters.`,
} as const;

/** `chat.send`: POST /api/messages and its sync mutation. The client chooses the id; the author is the caller. */
export const sendChatArgsSchema = z.object({
  id: idSchema,
  text: z
    .string({ error: chatMessages.empty })
    .trim()
    .min(1, chatMessages.empty)
    .max(chatLimits.textMax, chatMessages.tooLong),
});
export type SendChatArgs = z.input<typeof sendChatArgsSchema>;

/** `chat.edit`: PUT /api/messages/{id}. */
export const editChatArgsSchema = z.object({
  id: idSchema,
  text: z
    .string({ error: chatMessages.editEmpty })
    .trim()
    .min(1, chatMessages.editEmpty)
    .max(chatLimits.textMax, chatMessages.tooLong),
});
export type EditChatArgs = z.input<typeof editChatArgsSchema>;

/** GET /api/messages: at most this many messages an answer (the newest; `before` pages back). */
export const chatPageMax = 200;

const anchorsText = 'Use one of before, after and around at most.';
const oneAnchorAtMost = (query: {
  before?: string | undefined;
  after?: string | undefined;
  around?: string | undefined;
}) => [query.before, query.after, query.around].filter((id) => id !== undefined).length <= 1;

/**
 * GET /api/direct-messages/conversations/{id}/messages query: without any field, every message of the
 * conversation (the spec's call); with one, a page as `messagePageQuerySchema` reads it.
 */
export const directMessagesQuerySchema = z
  .object({
    before: idSchema.optional(),
    after: idSchema.optional(),
    around: idSchema.optional(),
    limit: z.coerce.number().int().min(1).max(chatPageMax).optional(),
  })
  .refine(oneAnchorAtMost, anchorsText);

/**
 * A page of a conversation's messages (GET /api/messages, and a direct conversation's messages): the newest
 * `limit`, or those before the message `before` (the oldest of the previous page), after the message `after`,
 * or around the message `around` (it and the messages before and after it, a half page each way). One of the
 * three at most.
 */
export const messagePageQuerySchema = z
  .object({
    before: idSchema.optional(),
    after: idSchema.optional(),
    around: idSchema.optional(),
    limit: z.coerce.number().int().min(1).max(chatPageMax).default(chatPageMax),
  })
  .refine(oneAnchorAtMost, anchorsText);
export type MessagePageQuery = z.output<typeof messagePageQuerySchema>;

/** GET /api/messages query (see `messagePageQuerySchema`). */
export const chatMessagesQuerySchema = messagePageQuerySchema;

/**
 * Where a page sits: the id to ask `before` for the older messages (null: none is older) and `after` for the
 * newer ones (null: none is newer). A page never ends inside a run of messages of one time: it holds them all.
 */
export const messagePagePlaceSchema = z.object({ nextBefore: idSchema.nullable(), nextAfter: idSchema.nullable() });
export type MessagePagePlace = z.infer<typeof messagePagePlaceSchema>;

/** `chat.delete`: DELETE /api/messages/{id}. */
export const deleteChatArgsSchema = z.object({ id: idSchema });
export type DeleteChatArgs = z.input<typeof deleteChatArgsSchema>;

/** Upload rules (the spec leaves the size open): 25 MB per file, 10 files per message. */
export const uploadLimits = { fileBytes: 25 * 1024 * 1024, files: 10 } as const;

/** File types the chat accepts: images, video and audio, and these documents and archives (spec section 5). */
export const chatFileExtensions = ['.pdf', '.doc', '.docx', '.txt', '.zip', '.rar'] as const;
export const chatFileAccept = `image/*,video/*,audio/*,${chatFileExtensions.join(',')}`;

/** POST /api/messages/typing. */
export const typingArgsSchema = z.object({ isTyping: z.boolean() });

/** POST /api/messages/status: presence the user sets (offline is what a disconnect sets). */
export const presenceArgsSchema = z.object({ status: z.enum(['online', 'away']) });

/** A file queued on the device: kept as a Blob in IndexedDB until the engine uploads it. */
export const queuedFileSchema = z.object({
  name: z.string().min(1).max(255),
  type: z.string().max(255),
  size: z
    .number()
    .int()
    .min(0)
    .max(uploadLimits.fileBytes, `A file can be at most ${uploadLimits.fileBytes / 1024 / 1024} MB.`),
  blob: z.custom<Blob>((value) => typeof Blob !== 'undefined' && value instanceof Blob, 'Expected a file'),
});
export type QueuedFile = z.infer<typeof queuedFileSchema>;

/**
 * `chat.sendFiles`: a message with files. Queued like any write, but the engine sends it to
 * POST /api/messages/upload (multipart, with its client and mutation ids) instead of /api/sync/push.
 */
export const sendChatFilesArgsSchema = z.object({
  id: idSchema,
  text: z.string().trim().max(chatLimits.textMax, chatMessages.tooLong).default(''),
  files: z
    .array(queuedFileSchema)
    .min(1, 'Please select at least one file to upload.')
    .max(uploadLimits.files, `At most ${uploadLimits.files} files per message.`),
});
export type SendChatFilesArgs = z.input<typeof sendChatFilesArgsSchema>;

/** The fields of an upload that carries a queued mutation, so it applies exactly once. */
export const uploadSyncFieldsSchema = z.object({
  clientId: idSchema,
  mutationId: z.coerce.number().int().positive(),
  at: z.iso.datetime({ offset: true }),
});
