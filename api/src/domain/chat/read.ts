import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Attachment, ChatMessage, ChatMessagePage, MessagePageQuery } from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { prepared } from '../../db/prepared';
import { chatAttachments, chatMessages, chatReactions } from '../../db/schema';
import { reactionsByMessage } from '../reactions/store';
import { readMessagePage } from '../message-page';
import { inSlices, usersById, type UserBrief } from '../read-support';
import { toAttachment, type StoredFile } from './uploads';

export type ChatMessageRow = typeof chatMessages.$inferSelect;

/** Messages with their authors, attachments and reactions, as the wire carries them. */
async function toChatMessages(db: Db | Tx, rows: ChatMessageRow[]): Promise<ChatMessage[]> {
  if (rows.length === 0) return [];
  // Only these messages' authors: the directory may hold thousands of people.
  const authors = await usersById(
    db,
    rows.map((row) => row.userId),
  );
  const files = new Map<string, ChatMessage['attachments']>();
  // Only messages with files have attachment rows (type 'file').
  const withFiles = rows.filter((row) => row.type === 'file').map((row) => row.id);
  for (const file of await inSlices(withFiles, (slice) =>
    db.select().from(chatAttachments).where(inArray(chatAttachments.messageId, slice)),
  )) {
    const list = files.get(file.messageId) ?? [];
    list.push(chatAttachmentOf(file));
    files.set(file.messageId, list);
  }
  const reactions = await reactionsByMessage(
    db,
    chatReactions,
    rows.map((row) => row.id),
  );
  return rows.map((row) =>
    chatMessageOf(row, authors.get(row.userId), files.get(row.id) ?? [], reactions.get(row.id) ?? []),
  );
}

/** A team chat file as the wire carries it: served by the chat's download route. */
export const chatAttachmentOf = (file: StoredFile): Attachment =>
  toAttachment(file, `/messages/download/${file.filename}`);

/** One message as the wire carries it, from its row and what toChatMessages reads beside it. */
export function chatMessageOf(
  row: Pick<ChatMessageRow, 'id' | 'userId' | 'text' | 'type' | 'createdAt' | 'edited' | 'version'>,
  author: UserBrief | undefined,
  attachments: ChatMessage['attachments'],
  reactions: ChatMessage['reactions'],
): ChatMessage {
  const name = author?.name ?? 'Unknown';
  const avatar = author?.avatar ?? null;
  return {
    _id: row.id,
    id: row.id,
    userId: { _id: row.userId, id: row.userId, name, avatar, role: author?.role ?? 'employee' },
    userName: name,
    userAvatar: avatar,
    text: row.text,
    type: row.type,
    timestamp: row.createdAt,
    edited: row.edited,
    attachments,
    reactions,
    version: row.version,
  };
}

const live = isNull(chatMessages.deletedAt);

/** The message with this id if it still exists: the query every send and edit answers with, prepared. */
export async function loadChatMessage(db: Db | Tx, id: string): Promise<ChatMessage | undefined> {
  const [row] = await prepared(db, 'chatMessages.liveById', (handle) =>
    handle
      .select()
      .from(chatMessages)
      .where(and(live, eq(chatMessages.id, sql.placeholder('id'))))
      .prepare(),
  ).execute({ id });
  return row ? (await toChatMessages(db, [row]))[0] : undefined;
}

/** The messages with these ids that still exist. */
export async function loadChatMessages(db: Db | Tx, ids: string[]): Promise<ChatMessage[]> {
  const rows: ChatMessageRow[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    rows.push(
      ...(await db
        .select()
        .from(chatMessages)
        .where(and(live, inArray(chatMessages.id, ids.slice(i, i + 500))))),
    );
  }
  return toChatMessages(db, rows);
}

/**
 * A page of the team room (see `messagePageQuerySchema`): the newest `limit` live messages, or those before,
 * after or around a message, oldest first, with the ids to ask for the pages beside it. An unknown message (or,
 * around, a deleted one) names no page: the page is empty rather than the newest again.
 */
export async function listChatMessagePage(db: Db | Tx, query: MessagePageQuery): Promise<ChatMessagePage> {
  const page = await readMessagePage(
    db,
    { table: chatMessages, createdAt: chatMessages.createdAt, id: chatMessages.id, where: live },
    query,
    async (id) =>
      (
        await db
          .select({ createdAt: chatMessages.createdAt, id: chatMessages.id })
          .from(chatMessages)
          .where(eq(chatMessages.id, id))
      )[0],
  );
  if (!page) return { messages: [], nextBefore: null, nextAfter: null };
  const byId = new Map((await loadChatMessages(db, page.ids)).map((message) => [message.id, message]));
  return {
    messages: page.ids.flatMap((id) => byId.get(id) ?? []),
    nextBefore: page.nextBefore,
    nextAfter: page.nextAfter,
  };
}
