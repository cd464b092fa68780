import { and, asc, eq, getTableName } from 'drizzle-orm';
import { reactionEmojis, type MessageReaction, type ReactionEmoji } from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import type { chatReactions, directReactions } from '../../db/schema';
import { idsParam, inIdsParam, prepared } from '../../db/prepared';

/** The reactions of one kind of message: team chat or direct. Both tables have the same columns. */
export type ReactionTable = typeof chatReactions | typeof directReactions;

/**
 * The reactions of these messages, by message id, as the wire carries them: emojis in the set's order, and
 * who gave each the earliest first. One prepared query, read through the key's leading column.
 */
export async function reactionsByMessage(
  db: Db | Tx,
  table: ReactionTable,
  messageIds: readonly string[],
): Promise<Map<string, MessageReaction[]>> {
  if (messageIds.length === 0) return new Map();
  const rows = await prepared(db, `${getTableName(table)}.byMessages`, (handle) =>
    handle
      .select({ messageId: table.messageId, userId: table.userId, emoji: table.emoji })
      .from(table)
      .where(inIdsParam(table.messageId))
      .orderBy(asc(table.createdAt), asc(table.userId))
      .prepare(),
  ).execute(idsParam(new Set(messageIds)));
  const byMessage = new Map<string, Map<ReactionEmoji, string[]>>();
  for (const row of rows) {
    const emojis = byMessage.get(row.messageId) ?? new Map<ReactionEmoji, string[]>();
    byMessage.set(row.messageId, emojis);
    emojis.set(row.emoji, [...(emojis.get(row.emoji) ?? []), row.userId]);
  }
  return new Map(
    [...byMessage].map(([messageId, emojis]) => [
      messageId,
      reactionEmojis.flatMap((emoji) => {
        const userIds = emojis.get(emoji);
        return userIds ? [{ emoji, userIds }] : [];
      }),
    ]),
  );
}

/**
 * Sets one person's reaction on or off. Returns whether anything changed: setting what is already so writes
 * nothing, so a replay or a second device's same choice leaves no change behind.
 */
export async function setReaction(
  tx: Tx,
  table: ReactionTable,
  reaction: { messageId: string; userId: string; emoji: ReactionEmoji; on: boolean; at: string },
): Promise<boolean> {
  const { messageId, userId, emoji, on, at } = reaction;
  const touched = on
    ? await tx
        .insert(table)
        .values({ messageId, userId, emoji, createdAt: at })
        .onConflictDoNothing()
        .returning({ messageId: table.messageId })
    : await tx
        .delete(table)
        .where(and(eq(table.messageId, messageId), eq(table.userId, userId), eq(table.emoji, emoji)))
        .returning({ messageId: table.messageId });
  return touched.length > 0;
}

/** A deleted message takes its reactions with it. */
export async function dropReactions(tx: Tx, table: ReactionTable, messageId: string): Promise<void> {
  await tx.delete(table).where(eq(table.messageId, messageId));
}
