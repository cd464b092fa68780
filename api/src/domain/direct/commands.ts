import { and, eq, isNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import {
  chatLimits,
  conversationIdFor,
  cutText,
  deleteDirectArgsSchema,
  directTexts,
  idSchema,
  markReadArgsSchema,
  reactDirectArgsSchema,
  rooms,
  sendDirectArgsSchema,
  startConversationArgsSchema,
  type Actor,
  type Conversation,
  type DirectMessage,
} from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { prepared } from '../../db/prepared';
import { conversations, directAttachments, directMessages, directReactions, users } from '../../db/schema';
import type { StoredFile } from '../chat/uploads';
import { defineCommand, type CommandContext } from '../commands';
import { DomainError } from '../errors';
import { mentionNotices } from '../notifications/mentions';
import { DIRECT_NOTICE_CUT, notify } from '../notifications/notify';
import { dropReactions, setReaction } from '../reactions/store';
import { conversationRow, isParticipant, loadConversations, loadDirectMessages, type ConversationRow } from './read';

/** Who sees a conversation and its messages: its two participants, on every device. */
const audienceOf = (row: Pick<ConversationRow, 'userA' | 'userB'>): string[] => [
  rooms.user(row.userA),
  rooms.user(row.userB),
];

/** The conversation, if the actor takes part in it: 404 when it does not exist, 403 when it is someone else's. */
export async function requireParticipation(db: Db | Tx, actor: Actor, id: string): Promise<ConversationRow> {
  const row = await conversationRow(db, id);
  if (!row) throw new DomainError('not_found', directTexts.conversationNotFound);
  if (!isParticipant(row, actor.id)) throw new DomainError('forbidden', directTexts.notParticipant);
  return row;
}

/** Records the conversation's change; it is read once, for the answer and the live change alike. */
async function recordConversation(
  ctx: CommandContext,
  row: Pick<ConversationRow, 'id' | 'userA' | 'userB'>,
): Promise<Conversation> {
  const ref = await ctx.record({ entity: 'conversation', id: row.id, op: 'put', audience: audienceOf(row) });
  const [conversation] = await loadConversations(ctx.tx, [row.id]);
  if (!conversation) throw new Error(`conversation ${row.id} vanished inside its transaction`);
  ref.state = { entity: 'conversation', op: 'put', id: row.id, data: conversation };
  return conversation;
}

/** `dm.start`: the conversation between the caller and the recipient, created on first use; starting it again returns it. */
export const startConversationCommand = defineCommand({
  name: 'dm.start',
  args: startConversationArgsSchema,
  async run(ctx, { recipientId }) {
    if (recipientId === ctx.actor.id) throw new DomainError('invalid_input', directTexts.self);
    const [recipient] = await ctx.tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.id, recipientId), isNull(users.deactivatedAt)));
    if (!recipient) throw new DomainError('user_not_found');
    const id = conversationIdFor(ctx.actor.id, recipientId);
    const [existing] = await loadConversations(ctx.tx, [id]);
    if (existing) return { conversation: existing, created: false };
    const [userA, userB] = [ctx.actor.id, recipientId].sort() as [string, string];
    const row = { id, userA, userB, createdAt: ctx.now.toISOString() };
    await ctx.tx.insert(conversations).values(row);
    return { conversation: await recordConversation(ctx, row), created: true };
  },
});

/** Both ways a message is sent: the sender is the caller; the other participant is notified. */
async function sendMessage(
  ctx: CommandContext,
  args: { id: string; conversationId: string; text: string; files: StoredFile[] },
): Promise<DirectMessage> {
  const conversation = await requireParticipation(ctx.tx, ctx.actor, args.conversationId);
  const [existing] = await prepared(ctx.tx, 'directMessages.byId', (handle) =>
    handle
      .select()
      .from(directMessages)
      .where(eq(directMessages.id, sql.placeholder('id')))
      .prepare(),
  ).execute({ id: args.id });
  if (existing) {
    // Security: a client id is accepted once; the same id with other content is refused, never merged.
    const same =
      existing.senderId === ctx.actor.id &&
      existing.conversationId === args.conversationId &&
      existing.text === args.text &&
      !existing.deletedAt &&
      !args.files.length;
    if (!same) throw new DomainError('duplicate_id');
    const [message] = await loadDirectMessages(ctx.tx, [args.id]);
    if (message) return message;
  }
  const stamp = ctx.now.toISOString();
  await prepared(ctx.tx, 'directMessages.insert', (handle) =>
    handle
      .insert(directMessages)
      .values({
        id: sql.placeholder('id'),
        conversationId: sql.placeholder('conversationId'),
        senderId: sql.placeholder('senderId'),
        text: sql.placeholder('text'),
        createdAt: sql.placeholder('createdAt'),
      })
      .prepare(),
  ).execute({
    id: args.id,
    conversationId: args.conversationId,
    senderId: ctx.actor.id,
    text: args.text,
    createdAt: stamp,
  });
  if (args.files.length)
    await ctx.tx.insert(directAttachments).values(args.files.map((file) => ({ ...file, messageId: args.id })));
  // Whoever writes has read what had arrived when they wrote (an offline write: its time on the device).
  const senderIsA = conversation.userA === ctx.actor.id;
  const readBefore = senderIsA ? conversation.userAReadAt : conversation.userBReadAt;
  const wroteAt = ctx.madeAt.toISOString();
  const senderRead =
    readBefore !== null && readBefore >= wroteAt ? {} : senderIsA ? { userAReadAt: wroteAt } : { userBReadAt: wroteAt };
  await ctx.tx
    .update(conversations)
    .set({ lastMessageId: args.id, lastMessageAt: stamp, ...senderRead })
    .where(eq(conversations.id, args.conversationId));
  const ref = await ctx.record({ entity: 'directMessage', id: args.id, op: 'put', audience: audienceOf(conversation) });
  await recordConversation(ctx, conversation);
  const [message] = await loadDirectMessages(ctx.tx, [args.id]);
  if (!message) throw new Error(`direct message ${args.id} vanished inside its transaction`);
  ref.state = { entity: 'directMessage', op: 'put', id: args.id, data: message };

  const recipientId = conversation.userA === ctx.actor.id ? conversation.userB : conversation.userA;
  const senderName = message.sender.name;
  // Only the conversation's other participant can be mentioned in it.
  const [recipient] = args.text.includes('@')
    ? await ctx.tx
        .select({ id: users.id, name: users.name })
        .from(users)
        .where(and(eq(users.id, recipientId), isNull(users.deactivatedAt)))
    : [];
  const mentions = mentionNotices(ctx, recipient ? [recipient] : [], {
    messageId: args.id,
    text: args.text,
    authorName: senderName,
    place: 'direct',
    conversationId: args.conversationId,
  });
  // One notice per message: a mention of the recipient replaces the plain direct message notice.
  await notify(
    ctx,
    mentions.length
      ? mentions
      : [
          {
            recipientId,
            senderId: ctx.actor.id,
            type: 'direct_message',
            title: `New Direct Message from ${senderName}`,
            message: args.text ? cutText(args.text, DIRECT_NOTICE_CUT) : 'Shared files',
            messageId: args.id,
            data: {
              messageId: args.id,
              conversationId: args.conversationId,
              messageText: args.text,
              senderName,
              timestamp: stamp,
            },
          },
        ],
  );
  ctx.announce({
    to: audienceOf(conversation),
    event: 'new-message',
    payload: { message, conversationId: args.conversationId },
  });
  return message;
}

/** `dm.send`: a text message, from the REST route, the socket's send-message or a queued offline write. */
export const sendDirectCommand = defineCommand({
  name: 'dm.send',
  args: sendDirectArgsSchema,
  run: (ctx, args) => sendMessage(ctx, { ...args, files: [] }),
});

/** `dm.sendFiles`: the multipart route, once the files are stored; optional text. */
export const sendDirectFilesCommand = defineCommand({
  name: 'dm.sendFiles',
  args: z.object({
    id: idSchema,
    conversationId: idSchema,
    text: z.string().trim().max(chatLimits.textMax, directTexts.tooLong).default(''),
    files: z.array(z.custom<StoredFile>()).min(1, 'Please select at least one file to upload.'),
  }),
  run: (ctx, args) => sendMessage(ctx, args),
});

/** `dm.delete`: only the sender deletes; deleting the last message clears the conversation's lastMessage. */
export const deleteDirectCommand = defineCommand({
  name: 'dm.delete',
  args: deleteDirectArgsSchema,
  async run(ctx, args) {
    const conversation = await requireParticipation(ctx.tx, ctx.actor, args.conversationId);
    const [message] = await ctx.tx
      .select()
      .from(directMessages)
      .where(
        and(
          eq(directMessages.id, args.id),
          eq(directMessages.conversationId, args.conversationId),
          isNull(directMessages.deletedAt),
        ),
      );
    if (!message) throw new DomainError('message_not_found');
    if (message.senderId !== ctx.actor.id) throw new DomainError('forbidden', directTexts.notYours);
    await ctx.tx.update(directMessages).set({ deletedAt: ctx.now.toISOString() }).where(eq(directMessages.id, args.id));
    await dropReactions(ctx.tx, directReactions, args.id);
    await ctx.record({ entity: 'directMessage', id: args.id, op: 'delete', audience: audienceOf(conversation) });
    if (conversation.lastMessageId === args.id) {
      await ctx.tx.update(conversations).set({ lastMessageId: null }).where(eq(conversations.id, conversation.id));
      await recordConversation(ctx, conversation);
    }
    ctx.announce({
      to: audienceOf(conversation),
      event: 'delete-message',
      payload: { conversationId: args.conversationId, messageId: args.id },
    });
    return { id: args.id };
  },
});

/**
 * `dm.markRead`: moves the caller's marker to `through` (never past now), or to now; never back.
 * `messageId` names the message read, for the socket's mark-message-read.
 */
export const markReadCommand = defineCommand({
  name: 'dm.markRead',
  args: markReadArgsSchema.extend({ messageId: idSchema.optional() }),
  async run(ctx, args) {
    const conversation = await requireParticipation(ctx.tx, ctx.actor, args.conversationId);
    const now = ctx.now.toISOString();
    const through = args.through ? new Date(args.through).toISOString() : now;
    const readAt = through < now ? through : now;
    const isA = conversation.userA === ctx.actor.id;
    const current = isA ? conversation.userAReadAt : conversation.userBReadAt;
    if (current !== null && current >= readAt) return { conversationId: conversation.id, readAt: current };
    await ctx.tx
      .update(conversations)
      .set(isA ? { userAReadAt: readAt } : { userBReadAt: readAt })
      .where(eq(conversations.id, conversation.id));
    await recordConversation(ctx, conversation);
    ctx.announce({
      to: audienceOf(conversation),
      event: 'message-read',
      payload: { conversationId: conversation.id, messageId: args.messageId ?? null, userId: ctx.actor.id, readAt },
    });
    return { conversationId: conversation.id, readAt };
  },
});

/**
 * `dm.react`: PUT /api/direct-messages/conversations/{conversationId}/messages/{id}/reactions/{emoji} and its
 * sync mutation. Only the two participants react; the message goes out again with its reactions to them, and
 * setting what is already so records nothing.
 */
export const reactDirectCommand = defineCommand({
  name: 'dm.react',
  args: reactDirectArgsSchema,
  async run(ctx, args) {
    // Security: participation first, so someone else's conversation tells nothing about its messages.
    const conversation = await requireParticipation(ctx.tx, ctx.actor, args.conversationId);
    const [message] = await loadDirectMessages(ctx.tx, [args.id]);
    if (!message || message.conversationId !== conversation.id) throw new DomainError('message_not_found');
    const changed = await setReaction(ctx.tx, directReactions, {
      messageId: args.id,
      userId: ctx.actor.id,
      emoji: args.emoji,
      on: args.on,
      at: ctx.now.toISOString(),
    });
    if (!changed) return message;
    await ctx.record({ entity: 'directMessage', id: args.id, op: 'put', audience: audienceOf(conversation) });
    const [reacted] = await loadDirectMessages(ctx.tx, [args.id]);
    if (!reacted) throw new Error(`direct message ${args.id} vanished inside its transaction`);
    return reacted;
  },
});
