import { z } from 'zod';
import { idSchema } from '../ids';

/** The reactions a message can get, in the order they show: one small set, the same on server and client. */
export const reactionEmojis = ['👍', '❤️', '😂', '🎉', '😮', '😢'] as const;
export type ReactionEmoji = (typeof reactionEmojis)[number];

/** What an unknown emoji is told. */
export const unknownReactionMessage = `Choose one of these reactions: ${reactionEmojis.join(' ')}.`;

/** One of the reactions of `reactionEmojis`, anything else refused with `unknownReactionMessage`. */
export const reactionEmojiSchema = z.enum(reactionEmojis, { error: unknownReactionMessage });

/** One emoji on a message and who gave it, the earliest first; a message lists only emojis someone gave. */
export const messageReactionSchema = z.object({
  emoji: reactionEmojiSchema,
  userIds: z.array(idSchema).min(1),
});
export type MessageReaction = z.infer<typeof messageReactionSchema>;

/**
 * The reactions after `userId` sets `emoji` on or off: the same whatever the reactions held, so applying it
 * again changes nothing. Emojis stay in the order of `reactionEmojis`; a new reactor comes last.
 */
export function withReaction(
  reactions: readonly MessageReaction[],
  userId: string,
  emoji: ReactionEmoji,
  on: boolean,
): MessageReaction[] {
  const current = reactions.find((reaction) => reaction.emoji === emoji)?.userIds ?? [];
  const userIds = on
    ? current.includes(userId)
      ? current
      : [...current, userId]
    : current.filter((id) => id !== userId);
  return reactionEmojis.flatMap((each) => {
    if (each === emoji) return userIds.length ? [{ emoji, userIds }] : [];
    const reaction = reactions.find((r) => r.emoji === each);
    return reaction ? [reaction] : [];
  });
}
