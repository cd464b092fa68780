import { asc, inArray, isNull, and } from 'drizzle-orm';
import type { ChatMessage } from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { chatAttachments, chatMessages, users } from '../../db/schema';
import { toAttachment } from './uploads';

export type ChatMessageRow = typeof chatMessages.$inferSelect;

/** Messages with their authors and attachments, as the wire carries them. */
function toChatMessages(db: Db | Tx, rows: ChatMessageRow[]): ChatMessage[] {
  if (rows.length === 0) return [];
  const authors = new Map(
    db
      .select({ id: users.id, name: users.name, avatar: users.avatar, role: users.role })
      .from(users)
      .all()
      .map((u) => [u.id, u]),
  );
  const files = new Map<string, ChatMessage['attachments']>();
  const ids = rows.map((row) => row.id);
  for (let i = 0; i < ids.length; i += 500) {
    for (const file of db
      .select()
      .from(chatAttachments)
      .where(inArray(chatAttachments.messageId, ids.slice(i, i + 500)))
      .all()) {
      const list = files.get(file.messageId) ?? [];
      list.push(toAttachment(file, `/messages/download/${file.filename}`));
      files.set(file.messageId, list);
    }
  }
  return rows.map((row) => {
    const author = authors.get(row.userId);
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
      attachments: files.get(row.id) ?? [],
      version: row.version,
    };
  });
}

const live = isNull(chatMessages.deletedAt);

/** The messages with these ids that still exist. */
export function loadChatMessages(db: Db | Tx, ids: string[]): ChatMessage[] {
  const rows: ChatMessageRow[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    rows.push(
      ...db
        .select()
        .from(chatMessages)
        .where(and(live, inArray(chatMessages.id, ids.slice(i, i + 500))))
        .all(),
    );
  }
  return toChatMessages(db, rows);
}

/** Every message of the team room, oldest first. */
export function listChatMessages(db: Db | Tx): ChatMessage[] {
  return toChatMessages(db, db.select().from(chatMessages).where(live).orderBy(asc(chatMessages.createdAt)).all());
}
