import { and, asc, count, desc, eq, gt, isNull, ne, or, sql } from 'drizzle-orm';
import {
  readByOf,
  type Conversation,
  type ConversationForViewer,
  type DirectMessage,
  type DirectMessagePage,
  type DirectMessageWithReads,
  type MessagePageQuery,
} from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { conversations, directAttachments, directMessages, directReactions } from '../../db/schema';
import { reactionsByMessage } from '../reactions/store';
import { toAttachment } from '../chat/uploads';
import { usersById } from '../read-support';
import { readMessagePage } from '../message-page';
import { idsParam, inIdsParam, prepared } from '../../db/prepared';

export type ConversationRow = typeof conversations.$inferSelect;
type MessageRow = typeof directMessages.$inferSelect;

/** Where an attachment of a direct message downloads, under /api. */
export const directAttachmentUrl = (filename: string): string => `/direct-messages/attachments/${filename}`;

/** A message without its reactions: what a conversation carries as its last one. */
type MessageBody = Omit<DirectMessage, 'reactions'>;

/** The reads by ids a send, a pull and a list run, prepared once per connection. */
const reads = (db: Db | Tx) =>
  prepared(db, 'direct.reads', (handle) => ({
    pairs: handle
      .select({ id: conversations.id, userA: conversations.userA, userB: conversations.userB })
      .from(conversations)
      .where(inIdsParam(conversations.id))
      .prepare(),
    conversations: handle.select().from(conversations).where(inIdsParam(conversations.id)).prepare(),
    conversation: handle
      .select()
      .from(conversations)
      .where(eq(conversations.id, sql.placeholder('id')))
      .prepare(),
    attachments: handle.select().from(directAttachments).where(inIdsParam(directAttachments.messageId)).prepare(),
    liveMessages: handle
      .select()
      .from(directMessages)
      .where(and(isNull(directMessages.deletedAt), inIdsParam(directMessages.id)))
      .prepare(),
  }));

/** Messages as the wire carries them, with sender, participants and attachments, but not reactions. */
async function toMessageBodies(db: Db | Tx, rows: MessageRow[]): Promise<MessageBody[]> {
  if (rows.length === 0) return [];
  const read = reads(db);
  const pairs = new Map(
    (await read.pairs.execute(idsParam(new Set(rows.map((row) => row.conversationId))))).map((pair) => [
      pair.id,
      [pair.userA, pair.userB],
    ]),
  );
  const senders = await usersById(
    db,
    rows.map((row) => row.senderId),
  );
  const files = new Map<string, DirectMessage['attachments']>();
  for (const file of await read.attachments.execute(idsParam(rows.map((row) => row.id)))) {
    const list = files.get(file.messageId) ?? [];
    list.push(toAttachment(file, directAttachmentUrl(file.filename)));
    files.set(file.messageId, list);
  }
  return rows.map((row) => {
    const sender = senders.get(row.senderId);
    return {
      _id: row.id,
      id: row.id,
      conversationId: row.conversationId,
      participantIds: pairs.get(row.conversationId) ?? [],
      sender: { _id: row.senderId, id: row.senderId, name: sender?.name ?? 'Unknown', avatar: sender?.avatar ?? null },
      content: row.text,
      text: row.text,
      createdAt: row.createdAt,
      attachments: files.get(row.id) ?? [],
      version: row.version,
    };
  });
}

/** Messages as the wire carries them, with their reactions. */
async function toDirectMessages(db: Db | Tx, rows: MessageRow[]): Promise<DirectMessage[]> {
  const reactions = await reactionsByMessage(
    db,
    directReactions,
    rows.map((row) => row.id),
  );
  return (await toMessageBodies(db, rows)).map((message) => ({
    ...message,
    reactions: reactions.get(message.id) ?? [],
  }));
}

const live = isNull(directMessages.deletedAt);

const liveRows = async (db: Db | Tx, ids: string[]): Promise<MessageRow[]> =>
  ids.length === 0 ? [] : await reads(db).liveMessages.execute(idsParam(ids));

/** The messages with these ids that still exist. */
export async function loadDirectMessages(db: Db | Tx, ids: string[]): Promise<DirectMessage[]> {
  return toDirectMessages(db, await liveRows(db, ids));
}

/** Conversations as the wire carries them, with participants and the last message. */
export async function toConversations(db: Db | Tx, rows: ConversationRow[]): Promise<Conversation[]> {
  if (rows.length === 0) return [];
  const people = await usersById(
    db,
    rows.flatMap((row) => [row.userA, row.userB]),
  );
  const lastRows = await liveRows(
    db,
    rows.flatMap((row) => (row.lastMessageId ? [row.lastMessageId] : [])),
  );
  const lastMessages = new Map((await toMessageBodies(db, lastRows)).map((message) => [message.id, message]));
  const participant = (id: string, lastReadAt: string | null) => {
    const user = people.get(id);
    return {
      _id: id,
      id,
      name: user?.name ?? 'Unknown',
      avatar: user?.avatar ?? null,
      role: user?.role ?? 'employee',
      lastReadAt,
    };
  };
  return rows.map((row) => ({
    _id: row.id,
    id: row.id,
    participants: [participant(row.userA, row.userAReadAt), participant(row.userB, row.userBReadAt)],
    lastMessage: (row.lastMessageId && lastMessages.get(row.lastMessageId)) || null,
    lastMessageAt: row.lastMessageAt,
    createdAt: row.createdAt,
    version: row.version,
  }));
}

export async function loadConversations(db: Db | Tx, ids: string[]): Promise<Conversation[]> {
  return toConversations(db, await reads(db).conversations.execute(idsParam(ids)));
}

export const conversationRow = async (db: Db | Tx, id: string): Promise<ConversationRow | undefined> => {
  const [row] = await reads(db).conversation.execute({ id });
  return row;
};

export const isParticipant = (row: Pick<ConversationRow, 'userA' | 'userB'>, userId: string): boolean =>
  row.userA === userId || row.userB === userId;

/** The conversations a user takes part in. */
export const involving = (userId: string) => or(eq(conversations.userA, userId), eq(conversations.userB, userId));

/** Every conversation of a user, the most recently active first. */
export async function listConversationsOf(db: Db | Tx, userId: string): Promise<Conversation[]> {
  const rows = await db
    .select()
    .from(conversations)
    .where(involving(userId))
    .orderBy(desc(sql`coalesce(${conversations.lastMessageAt}, ${conversations.createdAt})`));
  return toConversations(db, rows);
}

/** The caller's conversations with their unread counts, counted in one query. */
export async function conversationsForViewer(db: Db | Tx, userId: string): Promise<ConversationForViewer[]> {
  const list = await listConversationsOf(db, userId);
  const unread = await db
    .select({ id: directMessages.conversationId, unread: count() })
    .from(directMessages)
    .innerJoin(conversations, eq(conversations.id, directMessages.conversationId))
    .where(
      and(
        involving(userId),
        live,
        ne(directMessages.senderId, userId),
        gt(
          directMessages.createdAt,
          sql`coalesce(case when ${conversations.userA} = ${userId} then ${conversations.userAReadAt} else ${conversations.userBReadAt} end, '')`,
        ),
      ),
    )
    .groupBy(directMessages.conversationId);
  const counts = new Map(unread.map((row) => [row.id, row.unread]));
  return list.map((conversation) => ({ ...conversation, unreadCount: counts.get(conversation.id) ?? 0 }));
}

/** The messages of one conversation, oldest first, with their read records. */
export async function conversationMessages(db: Db | Tx, conversation: Conversation): Promise<DirectMessageWithReads[]> {
  const rows = await db
    .select()
    .from(directMessages)
    .where(and(live, eq(directMessages.conversationId, conversation.id)))
    .orderBy(asc(directMessages.createdAt), asc(directMessages.id));
  return (await toDirectMessages(db, rows)).map((message) => ({ ...message, readBy: readByOf(message, conversation) }));
}

/**
 * A page of one conversation (see `messagePageQuerySchema`), oldest first, with read records and the ids to ask
 * for the pages beside it; an unknown message (or, around, a deleted one) names no page.
 */
export async function conversationMessagePage(
  db: Db | Tx,
  conversation: Conversation,
  query: MessagePageQuery,
): Promise<DirectMessagePage> {
  const inConversation = and(live, eq(directMessages.conversationId, conversation.id));
  const page = await readMessagePage(
    db,
    { table: directMessages, createdAt: directMessages.createdAt, id: directMessages.id, where: inConversation },
    query,
    async (id) =>
      (
        await db
          .select({ createdAt: directMessages.createdAt, id: directMessages.id })
          .from(directMessages)
          .where(and(eq(directMessages.conversationId, conversation.id), eq(directMessages.id, id)))
      )[0],
  );
  if (!page) return { success: true, messages: [], nextBefore: null, nextAfter: null };
  const byId = new Map((await loadDirectMessages(db, page.ids)).map((message) => [message.id, message]));
  return {
    success: true,
    messages: page.ids.flatMap((id) => {
      const message = byId.get(id);
      return message ? [{ ...message, readBy: readByOf(message, conversation) }] : [];
    }),
    nextBefore: page.nextBefore,
    nextAfter: page.nextAfter,
  };
}
