import { describe, expect, test } from 'vitest';
import { reactionEmojiSchema, unknownReactionMessage, withReaction, type MessageReaction } from './reaction';

const bob = '01890000-0000-7000-8000-00000000000b';
const alice = '01890000-0000-7000-8000-00000000000a';

describe('withReaction', () => {
  test('setting a reaction on twice leaves it given once', () => {
    const once = withReaction([], bob, '👍', true);
    expect(withReaction(once, bob, '👍', true)).toEqual([{ emoji: '👍', userIds: [bob] }]);
  });

  test('setting a reaction off twice leaves it off, and an emoji nobody gives disappears', () => {
    const given: MessageReaction[] = [{ emoji: '🎉', userIds: [bob] }];
    const off = withReaction(given, bob, '🎉', false);
    expect(off).toEqual([]);
    expect(withReaction(off, bob, '🎉', false)).toEqual([]);
  });

  test('a new reactor comes last and emojis keep the order of the set', () => {
    const given: MessageReaction[] = [{ emoji: '😂', userIds: [bob] }];
    const reacted = withReaction(withReaction(given, alice, '😂', true), alice, '👍', true);
    expect(reacted).toEqual([
      { emoji: '👍', userIds: [alice] },
      { emoji: '😂', userIds: [bob, alice] },
    ]);
  });

  test('an emoji outside the set is refused with the list of those allowed', () => {
    const parsed = reactionEmojiSchema.safeParse('🦄');
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe(unknownReactionMessage);
  });
});
