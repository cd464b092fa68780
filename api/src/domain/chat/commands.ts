import { eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import {
  canModerateChatMessage,
  chatLimits,
  idSchema,
  chatMessages as chatTexts,
  deleteChatArgsSchema,
  editChatArgsSchema,
  reactChatArgsSchema,
  sendChatArgsSchema,
  type ChatMessage,
} from '@office/sync-protocol';
import type { Tx } from '../../db/client';
import { prepared, preparedWrite } from '../../db/prepared';
import { lockRows } from '../../db/row-locks';
import { chatAttachments, chatAuthorCounts, chatMessages, chatReactions } from '../../db/schema';
import { defineCommand, type CommandContext } from '../commands';
import { DomainError } from '../errors';
import { mentionableNamedIn, mentionNotices } from '../notifications/mentions';
import { notify } from '../notifications/notify';
import { userById } from '../read-support';
import { dropReactions, setReaction } from '../reactions/store';
import { chatAttachmentOf, chatMessageOf, loadChatMessage } from './read';
import type { StoredFile } from './uploads';

/** Everyone signed in reads the team chat. */
const CHAT_AUDIENCE = ['team'];

/** The message, locked for this command's writes (see row-locks.ts). */
async function requireMessage(tx: Tx, id: string): Promise<ChatMessage> {
  await lockRows(tx, chatMessages, [id]);
  const message = await loadChatMessage(tx, id);
  if (!message) throw new DomainError('message_not_found', chatTexts.notFound);
  return message;
}

async function record(ctx: CommandContext, id: string): Promise<ChatMessage> {
  const ref = await ctx.record({ entity: 'chatMessage', id, op: 'put', audience: CHAT_AUDIENCE });
  const message = await requireMessage(ctx.tx, id);
  // The answer's message is what the team hears: it is not read again to be published.
  ref.state = { entity: 'chatMessage', op: 'put', id, data: message };
  return message;
}

/** The author's count of live messages (chat_author_counts) moves by `by`, in the transaction of the message. */
const countAuthorMessages = (tx: Tx, userId: string, by: 1 | -1): Promise<number> =>
  preparedWrite(tx, 'chatAuthorCounts.add', (handle) =>
    handle
      .insert(chatAuthorCounts)
      .values({ userId: sql.placeholder('userId'), liveMessages: sql.placeholder('by') })
      .onConflictDoUpdate({
        target: chatAuthorCounts.userId,
        set: { liveMessages: sql`${chatAuthorCounts.liveMessages} + excluded.live_messages` },
      }),
  )({ userId, by });

/**
 * Both ways a message is sent: the author is the caller. One row whatever the size of the team: the message is
 * every other member's notification (derived, see notifications/notices.ts), and web push for it runs in the
 * background queue once it is on disk.
 */
async function sendMessage(
  ctx: CommandContext,
  args: { id: string; text: string; files: StoredFile[] },
): Promise<ChatMessage> {
  const stamp = ctx.now.toISOString();
  const type = args.files.length ? 'file' : 'text';
  const inserted = await preparedWrite(ctx.tx, 'chatMessages.insertNew', (handle) =>
    handle
      .insert(chatMessages)
      .values({
        id: sql.placeholder('id'),
        userId: sql.placeholder('userId'),
        text: sql.placeholder('text'),
        type: sql.placeholder('type'),
        createdAt: sql.placeholder('stamp'),
        updatedAt: sql.placeholder('stamp'),
      })
      .onConflictDoNothing(),
  )({ id: args.id, userId: ctx.actor.id, text: args.text, type, stamp });
  if (inserted === 0) return sentBefore(ctx, args);
  if (args.files.length)
    await ctx.tx.insert(chatAttachments).values(args.files.map((file) => ({ ...file, messageId: args.id })));
  // Neither waits for the other: on PostgreSQL both travel in one round trip (the connection pipelines).
  const [ref, author] = await Promise.all([
    ctx.record({ entity: 'chatMessage', id: args.id, op: 'put', created: true, audience: CHAT_AUDIENCE }),
    userById(ctx.tx, ctx.actor.id),
    countAuthorMessages(ctx.tx, ctx.actor.id, 1),
  ]);
  // The message was just written: the answer is made from what was written, not read back.
  const message = chatMessageOf(
    { id: args.id, userId: ctx.actor.id, text: args.text, type, createdAt: stamp, edited: false, version: ref.version },
    author,
    args.files.map(chatAttachmentOf),
    [],
  );
  ref.state = { entity: 'chatMessage', op: 'put', id: args.id, data: message };
  // A person mentioned has the mention as their notice of this message, not its team chat notice (notices.ts).
  await notify(
    ctx,
    mentionNotices(ctx, await mentionableNamedIn(ctx.tx, args.text), {
      messageId: args.id,
      text: args.text,
      authorName: message.userName,
      place: 'chat',
    }),
  );
  ctx.queuePush();
  return message;
}

/** A send whose id is taken: the same message sent again (a retry) answers it; anything else is refused. */
async function sentBefore(
  ctx: CommandContext,
  args: { id: string; text: string; files: StoredFile[] },
): Promise<ChatMessage> {
  const [existing] = await prepared(ctx.tx, 'chatMessages.byId', (handle) =>
    handle
      .select()
      .from(chatMessages)
      .where(eq(chatMessages.id, sql.placeholder('id')))
      .prepare(),
  ).execute({ id: args.id });
  // Security: a client id is accepted once; the same id with other content is refused, never merged.
  if (
    !existing ||
    existing.userId !== ctx.actor.id ||
    existing.text !== args.text ||
    existing.deletedAt ||
    args.files.length
  ) {
    throw new DomainError('duplicate_id');
  }
  return requireMessage(ctx.tx, args.id);
}

/** `chat.send`: a text message, from POST /api/messages or a queued offline write. */
export const sendChatCommand = defineCommand({
  name: 'chat.send',
  args: sendChatArgsSchema,
  run: (ctx, args) => sendMessage(ctx, { ...args, files: [] }),
});

/** `chat.sendFiles`: POST /api/messages/upload, once the files are stored; optional text. */
export const sendChatFilesCommand = defineCommand({
  name: 'chat.sendFiles',
  args: z.object({
    id: idSchema,
    text: z.string().trim().max(chatLimits.textMax, chatTexts.tooLong).default(''),
    files: z.array(z.custom<StoredFile>()).min(1, 'Please select at least one file to upload.'),
  }),
  run: (ctx, args) => sendMessage(ctx, args),
});

/** `chat.edit`: authors their own, managers and admins any; marks the message edited. */
export const editChatCommand = defineCommand({
  name: 'chat.edit',
  args: editChatArgsSchema,
  async run(ctx, args) {
    const message = await requireMessage(ctx.tx, args.id);
    if (!canModerateChatMessage(ctx.actor, message)) throw new DomainError('forbidden', chatTexts.notYours);
    await ctx.tx
      .update(chatMessages)
      .set({ text: args.text, edited: true, updatedAt: ctx.now.toISOString() })
      .where(eq(chatMessages.id, args.id));
    return record(ctx, args.id);
  },
});

/** `chat.delete`: authors their own, managers and admins any. A delete wins over later edits. */
export const deleteChatCommand = defineCommand({
  name: 'chat.delete',
  args: deleteChatArgsSchema,
  async run(ctx, args) {
    const message = await requireMessage(ctx.tx, args.id);
    if (!canModerateChatMessage(ctx.actor, message)) throw new DomainError('forbidden', chatTexts.notYours);
    await ctx.tx.update(chatMessages).set({ deletedAt: ctx.now.toISOString() }).where(eq(chatMessages.id, args.id));
    await countAuthorMessages(ctx.tx, message.userId.id, -1);
    await dropReactions(ctx.tx, chatReactions, args.id);
    await ctx.record({ entity: 'chatMessage', id: args.id, op: 'delete', audience: CHAT_AUDIENCE });
    return { id: args.id };
  },
});

/**
 * `chat.react`: PUT /api/messages/{id}/reactions/{emoji} and its sync mutation. Every member reacts to the
 * team chat. The message goes out again with its reactions, to the same audience; setting what is already so
 * records nothing.
 */
export const reactChatCommand = defineCommand({
  name: 'chat.react',
  args: reactChatArgsSchema,
  async run(ctx, args) {
    const message = await requireMessage(ctx.tx, args.id);
    const changed = await setReaction(ctx.tx, chatReactions, {
      messageId: args.id,
      userId: ctx.actor.id,
      emoji: args.emoji,
      on: args.on,
      at: ctx.now.toISOString(),
    });
    return changed ? record(ctx, args.id) : message;
  },
});
