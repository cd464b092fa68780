import { z } from 'zod';
import { idSchema } from '../ids';
import { reactionEmojiSchema } from '../entities/reaction';

/** Whether the caller's reaction is on or off afterwards: a set, not a toggle, so a replay never flips it. */
const onSchema = z.boolean({ error: 'Say whether the reaction is on (true) or off (false).' });

/** `chat.react`: PUT /api/messages/{id}/reactions/{emoji} {on} and its sync mutation; any member. */
export const reactChatArgsSchema = z.object({ id: idSchema, emoji: reactionEmojiSchema, on: onSchema });
export type ReactChatArgs = z.input<typeof reactChatArgsSchema>;

/**
 * `dm.react`: PUT /api/direct-messages/conversations/{conversationId}/messages/{id}/reactions/{emoji} {on}
 * and its sync mutation; the conversation's participants only.
 */
export const reactDirectArgsSchema = z.object({
  conversationId: idSchema,
  id: idSchema,
  emoji: reactionEmojiSchema,
  on: onSchema,
});
export type ReactDirectArgs = z.input<typeof reactDirectArgsSchema>;

/** The body of both reaction routes (the message and the emoji are in the path). */
export const reactionBodySchema = z.object({ on: onSchema });
