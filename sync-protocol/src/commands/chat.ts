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
