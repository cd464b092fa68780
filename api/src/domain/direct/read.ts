import { and, asc, desc, eq, gt, isNull, ne, or, sql } from 'drizzle-orm';
import {
  readByOf,
  type Conversation,
  type ConversationForViewer,
  type DirectMessage,
  type DirectMessageWithReads,
} from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { conversations, directAttachments, directMessages, directReactions } from '../../db/schema';
import { reactionsByMessage } from '../reactions/store';
import { toAttachment } from '../chat/uploads';
import { usersById } from '../read-support';
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
function toMessageBodies(db: Db | Tx, rows: MessageRow[]): MessageBody[] {
  if (rows.length === 0) return [];
  const read = reads(db);
  const pairs = new Map(
    read.pairs
      .all(idsParam(new Set(rows.map((row) => row.conversationId))))
      .map((pair) => [pair.id, [pair.userA, pair.userB]]),
  );
  const senders = usersById(
    db,
    rows.map((row) => row.senderId),
  );
  const files = new Map<string, DirectMessage['attachments']>();
  for (const file of read.attachments.all(idsParam(rows.map((row) => row.id)))) {
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
function toDirectMessages(db: Db | Tx, rows: MessageRow[]): DirectMessage[] {
  const reactions = reactionsByMessage(
    db,
    directReactions,
    rows.map((row) => row.id),
  );
  return toMessageBodies(db, rows).map((message) => ({ ...message, reactions: reactions.get(message.id) ?? [] }));
}

const live = isNull(directMessages.deletedAt);

const liveRows = (db: Db | Tx, ids: string[]): MessageRow[] =>
  ids.length === 0 ? [] : reads(db).liveMessages.all(idsParam(ids));

/** The messages with these ids that still exist. */
export function loadDirectMessages(db: Db | Tx, ids: string[]): DirectMessage[] {
  return toDirectMessages(db, liveRows(db, ids));
}

/** Conversations as the wire carries them, with participants and the last message. */
export function toConversations(db: Db | Tx, rows: ConversationRow[]): Conversation[] {
  if (rows.length === 0) return [];
  const people = usersById(
    db,
    rows.flatMap((row) => [row.userA, row.userB]),
  );
  const lastMessages = new Map(
    toMessageBodies(
      db,
      liveRows(
        db,
        rows.flatMap((row) => (row.lastMessageId ? [row.lastMessageId] : [])),
      ),
    ).map((message) => [message.id, message]),
  );
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

export function loadConversations(db: Db | Tx, ids: string[]): Conversation[] {
  return toConversations(db, reads(db).conversations.all(idsParam(ids)));
}

export const conversationRow = (db: Db | Tx, id: string): ConversationRow | undefined =>
  reads(db).conversation.get({ id });

export const isParticipant = (row: Pick<ConversationRow, 'userA' | 'userB'>, userId: string): boolean =>
  row.userA === userId || row.userB === userId;

/** The conversations a user takes part in. */
export const involving = (userId: string) => or(eq(conversations.userA, userId), eq(conversations.userB, userId));

/** Every conversation of a user, the most recently active first. */
export function listConversationsOf(db: Db | Tx, userId: string): Conversation[] {
  return toConversations(
    db,
    db
      .select()
      .from(conversations)
      .where(involving(userId))
      .orderBy(desc(sql`coalesce(${conversations.lastMessageAt}, ${conversations.createdAt})`))
      .all(),
  );
}

/** The caller's conversations with their unread counts, counted in one query. */
export function conversationsForViewer(db: Db | Tx, userId: string): ConversationForViewer[] {
  const list = listConversationsOf(db, userId);
  const counts = new Map(
    db
      .select({ id: directMessages.conversationId, unread: sql<number>`count(*)` })
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
      .groupBy(directMessages.conversationId)
      .all()
      .map((row) => [row.id, row.unread]),
  );
  return list.map((conversation) => ({ ...conversation, unreadCount: counts.get(conversation.id) ?? 0 }));
}

/** The messages of one conversation, oldest first, with their read records. */
export function conversationMessages(db: Db | Tx, conversation: Conversation): DirectMessageWithReads[] {
  const rows = db
    .select()
    .from(directMessages)
    .where(and(live, eq(directMessages.conversationId, conversation.id)))
    .orderBy(asc(directMessages.createdAt), asc(directMessages.id))
    .all();
  return toDirectMessages(db, rows).map((message) => ({ ...message, readBy: readByOf(message, conversation) }));
}
