import { z } from 'zod';
import { idSchema } from '../ids';
import { chatLimits, queuedFileSchema, uploadLimits } from './chat';

/** Texts of direct messages (spec sections 5 and 8). */
export const directTexts = {
  recipientRequired: 'Recipient ID is required',
  invalidUser: 'Invalid user selected. Please try again.',
  self: 'You cannot start a conversation with yourself.',
  conversationNotFound: 'Conversation not found.',
  notParticipant: 'You are not a participant in this conversation.',
  notYours: 'You can only delete your own messages.',
  empty: 'A message needs text or files.',
  tooLong: `A message can have at most ${chatLimits.textMax} characters.`,
} as const;

/** File types a direct message accepts (spec section 5). */
export const directFileExtensions = [
  '.pdf',
  '.doc',
  '.docx',
  '.txt',
  '.jpg',
  '.jpeg',
  '.png',
  '.gif',
  '.mp4',
  '.mp3',
  '.zip',
  '.rar',
] as const;
export const directFileAccept = directFileExtensions.join(',');

/** `dm.start`: POST /api/direct-messages/conversations. The id follows from the two users (conversationIdFor). */
export const startConversationArgsSchema = z.object({
  recipientId: z
    .string({ error: directTexts.recipientRequired })
    .trim()
    .min(1, directTexts.recipientRequired)
    .pipe(idSchema),
});
export type StartConversationArgs = z.input<typeof startConversationArgsSchema>;

/** `dm.send`: a text message; the client chooses the id, the sender is the caller. */
export const sendDirectArgsSchema = z.object({
  id: idSchema,
  conversationId: idSchema,
  text: z
    .string({ error: directTexts.empty })
    .trim()
    .min(1, directTexts.empty)
    .max(chatLimits.textMax, directTexts.tooLong),
});
export type SendDirectArgs = z.input<typeof sendDirectArgsSchema>;

/**
 * `dm.sendFiles`: a message with files, queued like any write; the engine sends it as multipart to
 * POST /api/direct-messages/conversations/{id}/messages with its client and mutation ids.
 */
export const sendDirectFilesArgsSchema = z.object({
  id: idSchema,
  conversationId: idSchema,
  text: z.string().trim().max(chatLimits.textMax, directTexts.tooLong).default(''),
  files: z
    .array(queuedFileSchema)
    .min(1, 'Please select at least one file to upload.')
    .max(uploadLimits.files, `At most ${uploadLimits.files} files per message.`),
});
export type SendDirectFilesArgs = z.input<typeof sendDirectFilesArgsSchema>;

/** `dm.delete`: the sender's own message only. */
export const deleteDirectArgsSchema = z.object({ conversationId: idSchema, id: idSchema });
export type DeleteDirectArgs = z.input<typeof deleteDirectArgsSchema>;

/**
 * `dm.markRead`: moves the caller's read marker to `through` (the newest message they have seen,
 * by the server's time), or to now. A marker never moves back.
 */
export const markReadArgsSchema = z.object({
  conversationId: idSchema,
  through: z.iso.datetime({ offset: true }).optional(),
});
export type MarkReadArgs = z.input<typeof markReadArgsSchema>;
