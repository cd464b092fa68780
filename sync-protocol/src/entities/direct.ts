import { z } from 'zod';
import { sha256 } from '@noble/hashes/sha2.js';
import { idSchema } from '../ids';
import { roles } from './user';
import { attachmentSchema } from './chat';
import { messageReactionSchema } from './reaction';

/** A participant of a conversation, with how far they have read it (null: nothing yet). */
export const participantSchema = z.object({
  _id: idSchema,
  id: idSchema,
  name: z.string(),
  avatar: z.string().nullable(),
  role: z.enum(roles),
  lastReadAt: z.string().nullable(),
});
export type Participant = z.infer<typeof participantSchema>;

/** A direct message (spec section 3). `content` and `text` carry the same text, as the spec reads either. */
export const directMessageSchema = z.object({
  _id: idSchema,
  id: idSchema,
  conversationId: idSchema,
  /** Both participants' ids, so anyone holding the message knows who may see it. */
  participantIds: z.array(idSchema).length(2),
  sender: z.object({ _id: idSchema, id: idSchema, name: z.string(), avatar: z.string().nullable() }),
  content: z.string(),
  text: z.string(),
  createdAt: z.string(),
  attachments: z.array(attachmentSchema),
  reactions: z.array(messageReactionSchema),
  version: z.number().int(),
});
export type DirectMessage = z.infer<typeof directMessageSchema>;

/** Who has read a message, and when. */
export const readRecordSchema = z.object({ userId: idSchema, readAt: z.string() });
export type ReadRecord = z.infer<typeof readRecordSchema>;

/** A direct message as the REST answers carry it: with its read records, derived from the read markers. */
export const directMessageWithReadsSchema = directMessageSchema.extend({ readBy: z.array(readRecordSchema) });
export type DirectMessageWithReads = z.infer<typeof directMessageWithReadsSchema>;

/**
 * A conversation between two users (spec section 3), as sync carries it to both: each participant's
 * read marker instead of one viewer's unread count, which each side derives from its own marker.
 */
export const conversationSchema = z.object({
  _id: idSchema,
  id: idSchema,
  participants: z.array(participantSchema).length(2),
  /**
   * Null when there is none yet, or the last one was deleted. Without its reactions: those travel with the
   * message itself, so a reaction does not rewrite the conversation.
   */
  lastMessage: directMessageSchema.omit({ reactions: true }).nullable(),
  lastMessageAt: z.string().nullable(),
  createdAt: z.string(),
  version: z.number().int(),
});
export type Conversation = z.infer<typeof conversationSchema>;

/** A conversation as the REST list answers the caller: with the caller's unread count. */
export const conversationForViewerSchema = conversationSchema.extend({ unreadCount: z.number().int().min(0) });
export type ConversationForViewer = z.infer<typeof conversationForViewerSchema>;

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/**
 * The id of the conversation between two users: the same whoever starts it, on any device, offline
 * too. A SHA-256 of the ordered pair, laid out as a version-8 (custom) UUID.
 */
export function conversationIdFor(userA: string, userB: string): string {
  const [first, second] = [userA, userB].sort();
  const bytes = sha256(new TextEncoder().encode(`conversation:${first}:${second}`)).slice(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const h = hex(bytes);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** How far `userId` has read the conversation; null when not a participant or nothing read. */
export const lastReadAtOf = (conversation: Pick<Conversation, 'participants'>, userId: string): string | null =>
  conversation.participants.find((p) => p.id === userId)?.lastReadAt ?? null;

/** Whether `viewerId` has not read this message yet: it is someone else's and newer than the viewer's marker. */
export function isUnreadBy(
  message: Pick<DirectMessage, 'sender' | 'createdAt'>,
  conversation: Pick<Conversation, 'participants'>,
  viewerId: string,
): boolean {
  if (message.sender.id === viewerId) return false;
  const readAt = lastReadAtOf(conversation, viewerId);
  return readAt === null || message.createdAt > readAt;
}

/** The read records of a message: each participant other than the sender whose marker has reached it. */
export const readByOf = (message: DirectMessage, conversation: Pick<Conversation, 'participants'>): ReadRecord[] =>
  conversation.participants.flatMap((p) =>
    p.id !== message.sender.id && p.lastReadAt !== null && p.lastReadAt >= message.createdAt
      ? [{ userId: p.id, readAt: p.lastReadAt }]
      : [],
  );
