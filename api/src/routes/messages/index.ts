import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { and, eq, isNull } from 'drizzle-orm';
import {
  chatMessagesQuerySchema,
  editChatArgsSchema,
  idSchema,
  presenceArgsSchema,
  reactionBodySchema,
  reactionEmojiSchema,
  rooms,
  sendChatArgsSchema,
  typingArgsSchema,
  uuidv7,
  type UploadOutcomeResponse,
} from '@office/sync-protocol';
import { chatAttachments, chatMessages, users } from '../../db/schema';
import { runCommand } from '../../domain/commands';
import { DomainError } from '../../domain/errors';
import {
  deleteChatCommand,
  editChatCommand,
  reactChatCommand,
  sendChatCommand,
  sendChatFilesCommand,
} from '../../domain/chat/commands';
import { listChatMessagePage } from '../../domain/chat/read';
import { chatFilePolicy, storedNamePattern, UploadStore } from '../../domain/chat/uploads';
import { sendError } from '../../plugins/error-handler';
import { fileDownloadOptions, receiveFileMessage, sendAttachment } from '../file-messages';
import { fileParams, jsonBody } from '../schemas';

const messageParams = z.object({ id: idSchema });

export const messageRoutes: FastifyPluginCallbackZod = (app, _opts, done) => {
  const auth = { onRequest: app.authenticate };
  const uploads = new UploadStore(app.config.dataDir);

  /** The newest 200 messages, oldest first; `before` pages back to older ones (issue 15: bounded answers). */
  const pageSchema = {
    summary: "Team chat's newest messages, oldest first; `before`, `after` or `around` one page",
    querystring: chatMessagesQuerySchema,
  };
  app.get('/', { ...auth, schema: pageSchema }, async (request) => listChatMessagePage(app.db, request.query));

  // The author is always the signed-in user: userId, userName, userAvatar and type of the spec's payload are not read.
  const sendBody = jsonBody(sendChatArgsSchema.extend({ id: idSchema.optional() }));
  const sendSchema = {
    summary: 'Send a message to team chat (201): the message',
    body: sendBody,
    refuses: ['duplicate_id'],
  } as const;
  app.post('/', { ...auth, schema: sendSchema }, async (request, reply) => {
    const { id, text } = request.body;
    const message = await app.write(request.actor, sendChatCommand, { id: id ?? uuidv7(), text });
    return reply.status(201).send({ message });
  });

  /** A message with files (optionally a queued offline write, see receiveFileMessage). */
  // The spec's client reads `success` and shows the server's `error` text when an upload is refused.
  const uploadErrorHandler = (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    void sendError(error, request, reply, (body) => ({ success: false, error: body.message }));
  };
  const uploadSchema = {
    summary: 'Send a message with files to team chat (multipart: `files`, optional `text`) (201): the message',
    refuses: ['unsupported_media_type', 'payload_too_large', 'duplicate_id'],
  } as const;
  app.post('/upload', { ...auth, errorHandler: uploadErrorHandler, schema: uploadSchema }, async (request, reply) => {
    const answer = await receiveFileMessage(
      app,
      request,
      uploads,
      chatFilePolicy,
      sendChatFilesCommand,
      (fields, files) => ({
        id: fields.id ?? uuidv7(),
        text: fields.text ?? '',
        files,
      }),
    );
    if (answer.queued) return { outcome: answer.outcome } satisfies UploadOutcomeResponse;
    return reply.status(201).send({ success: true, message: answer.result });
  });

  app.get(
    '/download/:filename',
    {
      ...auth,
      ...fileDownloadOptions,
      schema: { summary: "A team chat message's file", params: fileParams, refuses: ['not_found'] },
    },
    async (request, reply) => {
      const { filename } = request.params;
      // Security: only names this server generated; anything else (../, slashes, encodings) is simply unknown.
      if (!storedNamePattern.test(filename)) throw new DomainError('not_found', 'File not found.');
      const [file] = await app.db
        .select({
          originalName: chatAttachments.originalName,
          mimetype: chatAttachments.mimetype,
          size: chatAttachments.size,
        })
        .from(chatAttachments)
        .innerJoin(chatMessages, eq(chatMessages.id, chatAttachments.messageId))
        .where(and(eq(chatAttachments.filename, filename), isNull(chatMessages.deletedAt)))
        .limit(1);
      if (!file) throw new DomainError('not_found', 'File not found.');
      return sendAttachment(reply, uploads, filename, file);
    },
  );

  const editBody = jsonBody(editChatArgsSchema.omit({ id: true }));
  const editSchema = {
    summary: "Edit one's own team chat message: the message",
    params: messageParams,
    body: editBody,
    refuses: ['forbidden', 'message_not_found'],
  } as const;
  app.put('/:id', { ...auth, schema: editSchema }, async (request) => {
    const { text } = request.body;
    const message = await runCommand(app.db, app.flush, request.actor, editChatCommand, {
      id: request.params.id,
      text,
    });
    return { message };
  });

  const deleteSchema = {
    summary: 'Delete a team chat message (its author, managers, admins)',
    params: messageParams,
    refuses: ['forbidden', 'message_not_found'],
  } as const;
  app.delete('/:id', { ...auth, schema: deleteSchema }, async (request) => {
    await runCommand(app.db, app.flush, request.actor, deleteChatCommand, { id: request.params.id });
    return { success: true, message: 'Message deleted' };
  });

  /** Sets the caller's reaction on or off (a set, so sending it twice is harmless); answers the message. */
  const reactionParams = messageParams.extend({ emoji: reactionEmojiSchema });
  app.put(
    '/:id/reactions/:emoji',
    {
      ...auth,
      schema: {
        summary: "Set the caller's reaction on a team chat message on or off: the message",
        params: reactionParams,
        body: jsonBody(reactionBodySchema),
        refuses: ['message_not_found'],
      },
    },
    async (request) => {
      const { id, emoji } = request.params;
      const message = await runCommand(app.db, app.flush, request.actor, reactChatCommand, {
        id,
        emoji,
        ...request.body,
      });
      return { message };
    },
  );

  /** Typing is live state: told to the others' sockets, never stored. */
  const typingSchema = {
    summary: 'Tell the team the caller is typing, or has stopped (live only, never stored)',
    body: jsonBody(typingArgsSchema),
  };
  app.post('/typing', { ...auth, schema: typingSchema }, async (request) => {
    const { isTyping } = request.body;
    const me = request.actor.id;
    const others = app.realtime.io.to(rooms.team).except(rooms.user(me));
    if (isTyping) {
      const [user] = await app.db.select({ name: users.name }).from(users).where(eq(users.id, me));
      others.emit('user-typing', { userId: me, userName: user?.name ?? 'Someone', conversationId: null });
    } else {
      others.emit('stop-typing', { userId: me, conversationId: null });
    }
    return { success: true };
  });

  const presenceListSchema = { summary: "Every active user's presence: status and when last seen" };
  app.get('/active-users', { ...auth, schema: presenceListSchema }, async () => {
    const active = await app.db
      .select({ id: users.id, name: users.name, status: users.status, lastSeen: users.lastSeen, avatar: users.avatar })
      .from(users)
      .where(isNull(users.deactivatedAt));
    return { success: true, data: active.map((user) => ({ ...user, _id: user.id })) };
  });

  const statusSchema = {
    summary: "Set the caller's presence (online or away); the team is told",
    body: jsonBody(presenceArgsSchema),
  };
  app.post('/status', { ...auth, schema: statusSchema }, async (request) => {
    const { status } = request.body;
    const lastSeen = await app.realtime.presence.store(request.actor.id, status);
    app.realtime.io.to(rooms.team).emit('user-presence-update', { userId: request.actor.id, status, lastSeen });
    return { success: true, status };
  });

  done();
};
