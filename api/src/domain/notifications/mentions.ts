import { and, inArray, isNull, sql } from 'drizzle-orm';
import {
  CHAT_NOTICE_CUT,
  findMentions,
  mentionCandidates,
  mentionPreview,
  mentionTitle,
  type MentionMatch,
  type MentionPlace,
  type Mentionable,
} from '@office/sync-protocol';
import type { Tx } from '../../db/client';
import { users } from '../../db/schema';
import { inSlices } from '../read-support';
import type { CommandContext } from '../commands';
import type { NewNotification } from './notify';

/** What SQLite's lower() does without ICU: ASCII letters only, so candidates meet the `users_name_lower` index. */
const sqliteLower = (text: string): string => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

/**
 * The active members a text names after an `@`: only the names that could be mentioned are looked up (by the
 * `users_name_lower` index), so the cost follows the text, never the size of the directory.
 */
export async function mentionableNamedIn(tx: Tx, text: string): Promise<Mentionable[]> {
  const candidates = mentionCandidates(text, sqliteLower);
  if (candidates.length === 0) return [];
  return inSlices(candidates, (slice) =>
    tx
      .select({ id: users.id, name: users.name })
      .from(users)
      .where(and(inArray(sql`lower(${users.name})`, slice), isNull(users.deactivatedAt))),
  );
}

interface MentionSource {
  messageId: string;
  text: string;
  authorName: string;
  place: MentionPlace;
  /** The direct message's conversation: the notice opens it at the message. */
  conversationId?: string;
}

/**
 * One `mention` notice per person `text` mentions among `members` (never the author), each to be its own push:
 * the text around that person's first mention, linking to the message. It is the person's one notice of the
 * message: it carries the message's id, so the plain chat or direct message notice gives way to it.
 */
export function mentionNotices(
  ctx: CommandContext,
  members: readonly Mentionable[],
  source: MentionSource,
): NewNotification[] {
  const firstMention = new Map<string, MentionMatch>();
  for (const mention of findMentions(source.text, members))
    for (const userId of mention.userIds) if (!firstMention.has(userId)) firstMention.set(userId, mention);
  firstMention.delete(ctx.actor.id);
  const data: Record<string, unknown> = { messageId: source.messageId };
  if (source.conversationId) data.conversationId = source.conversationId;
  return [...firstMention].map(([recipientId, mention]) => ({
    recipientId,
    senderId: ctx.actor.id,
    type: 'mention' as const,
    title: mentionTitle(source.authorName, source.place),
    message: mentionPreview(source.text, mention, CHAT_NOTICE_CUT),
    messageId: source.messageId,
    data,
  }));
}
