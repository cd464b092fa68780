import { and, inArray, isNull, sql } from 'drizzle-orm';
import {
  CHAT_NOTICE_CUT,
  cutText,
  findMentions,
  mentionCandidates,
  mentionTitle,
  type MentionPlace,
  type Mentionable,
} from '@office/sync-protocol';
import type { Tx } from '../../db/client';
import { users } from '../../db/schema';
import { inSlices } from '../read-support';
import type { CommandContext } from '../commands';
import { notify } from './notify';

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
 * One `mention` notification per person `text` mentions among `members` (never the author), each its own push:
 * the message, cut as chat notices are, linking to the message.
 */
export async function notifyMentions(
  ctx: CommandContext,
  members: readonly Mentionable[],
  source: MentionSource,
): Promise<void> {
  const mentioned = new Set(findMentions(source.text, members).flatMap((mention) => mention.userIds));
  mentioned.delete(ctx.actor.id);
  if (mentioned.size === 0) return;
  const data: Record<string, unknown> = { messageId: source.messageId };
  if (source.conversationId) data.conversationId = source.conversationId;
  await notify(
    ctx,
    [...mentioned].map((recipientId) => ({
      recipientId,
      senderId: ctx.actor.id,
      type: 'mention' as const,
      title: mentionTitle(source.authorName, source.place),
      message: cutText(source.text, CHAT_NOTICE_CUT),
      data,
    })),
  );
}
