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
