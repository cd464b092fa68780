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
import { prepared } from '../../db/prepared';
import { chatAttachments, chatMessages, chatReactions } from '../../db/schema';
import { defineCommand, type CommandContext } from '../commands';
import { DomainError } from '../errors';
import { mentionableNamedIn, notifyMentions } from '../notifications/mentions';
import { userById } from '../read-support';
import { dropReactions, setReaction } from '../reactions/store';
import { chatAttachmentOf, chatMessageOf, loadChatMessage } from './read';
import type { StoredFile } from './uploads';

/** Everyone signed in reads the team chat. */
const CHAT_AUDIENCE = ['team'];

function requireMessage(tx: Tx, id: string): ChatMessage {
  const message = loadChatMessage(tx, id);
  if (!message) throw new DomainError('message_not_found', chatTexts.notFound);
  return message;
}

function record(ctx: CommandContext, id: string): ChatMessage {
  const ref = ctx.record({ entity: 'chatMessage', id, op: 'put', audience: CHAT_AUDIENCE });
  const message = requireMessage(ctx.tx, id);
  // The answer's message is what the team hears: it is not read again to be published.
  ref.state = { entity: 'chatMessage', op: 'put', id, data: message };
  return message;
}

/**
 * Both ways a message is sent: the author is the caller. One row whatever the size of the team: the message is
 * every other member's notification (derived, see notifications/notices.ts), and web push for it runs in the
 * background queue once it is on disk.
 */
function sendMessage(ctx: CommandContext, args: { id: string; text: string; files: StoredFile[] }): ChatMessage {
  const stamp = ctx.now.toISOString();
  const type = args.files.length ? 'file' : 'text';
  const { changes } = prepared(ctx.tx, 'chatMessages.insertNew', (handle) =>
    handle
      .insert(chatMessages)
      .values({
        id: sql.placeholder('id'),
        userId: sql.placeholder('userId'),
        text: sql.placeholder('text'),
        type: sql.placeholder('type'),
        pushPending: true,
        createdAt: sql.placeholder('stamp'),
        updatedAt: sql.placeholder('stamp'),
      })
      .onConflictDoNothing()
      .prepare(),
  ).run({ id: args.id, userId: ctx.actor.id, text: args.text, type, stamp });
  if (changes === 0) return sentBefore(ctx, args);
  if (args.files.length)
    ctx.tx
      .insert(chatAttachments)
      .values(args.files.map((file) => ({ ...file, messageId: args.id })))
      .run();
  const ref = ctx.record({ entity: 'chatMessage', id: args.id, op: 'put', audience: CHAT_AUDIENCE });
  // The message was just written: the answer is made from what was written, not read back.
  const message = chatMessageOf(
    { id: args.id, userId: ctx.actor.id, text: args.text, type, createdAt: stamp, edited: false, version: ref.seq },
    userById(ctx.tx, ctx.actor.id),
    args.files.map(chatAttachmentOf),
    [],
  );
  ref.state = { entity: 'chatMessage', op: 'put', id: args.id, data: message };
  notifyMentions(ctx, mentionableNamedIn(ctx.tx, args.text), {
    messageId: args.id,
    text: args.text,
    authorName: message.userName,
    place: 'chat',
  });
  ctx.queuePush();
  return message;
}

/** A send whose id is taken: the same message sent again (a retry) answers it; anything else is refused. */
function sentBefore(ctx: CommandContext, args: { id: string; text: string; files: StoredFile[] }): ChatMessage {
  const existing = prepared(ctx.tx, 'chatMessages.byId', (handle) =>
    handle
      .select()
      .from(chatMessages)
      .where(eq(chatMessages.id, sql.placeholder('id')))
      .prepare(),
  ).get({ id: args.id });
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
  run(ctx, args) {
    const message = requireMessage(ctx.tx, args.id);
    if (!canModerateChatMessage(ctx.actor, message)) throw new DomainError('forbidden', chatTexts.notYours);
    ctx.tx
      .update(chatMessages)
      .set({ text: args.text, edited: true, updatedAt: ctx.now.toISOString() })
      .where(eq(chatMessages.id, args.id))
      .run();
    return record(ctx, args.id);
  },
});

/** `chat.delete`: authors their own, managers and admins any. A delete wins over later edits. */
export const deleteChatCommand = defineCommand({
  name: 'chat.delete',
  args: deleteChatArgsSchema,
  run(ctx, args) {
    const message = requireMessage(ctx.tx, args.id);
    if (!canModerateChatMessage(ctx.actor, message)) throw new DomainError('forbidden', chatTexts.notYours);
    ctx.tx.update(chatMessages).set({ deletedAt: ctx.now.toISOString() }).where(eq(chatMessages.id, args.id)).run();
    dropReactions(ctx.tx, chatReactions, args.id);
    ctx.record({ entity: 'chatMessage', id: args.id, op: 'delete', audience: CHAT_AUDIENCE });
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
  run(ctx, args) {
    const message = requireMessage(ctx.tx, args.id);
    const changed = setReaction(ctx.tx, chatReactions, {
      messageId: args.id,
      userId: ctx.actor.id,
      emoji: args.emoji,
      on: args.on,
      at: ctx.now.toISOString(),
    });
    return changed ? record(ctx, args.id) : message;
  },
});
