import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { and, eq, isNull } from 'drizzle-orm';
import {
  chatPageMax,
  directMessagesQuerySchema,
  idSchema,
  reactionBodySchema,
  reactionEmojiSchema,
  sendDirectArgsSchema,
  startConversationArgsSchema,
  uuidv7,
  type UploadOutcomeResponse,
} from '@office/sync-protocol';
import { directAttachments, directMessages } from '../../db/schema';
import { runCommand } from '../../domain/commands';
import { DomainError } from '../../domain/errors';
import { directFilePolicy, storedNamePattern, UploadStore } from '../../domain/chat/uploads';
import {
  deleteDirectCommand,
  markReadCommand,
  reactDirectCommand,
  requireParticipation,
  sendDirectCommand,
  sendDirectFilesCommand,
  startConversationCommand,
} from '../../domain/direct/commands';
import {
  conversationMessagePage,
  conversationMessages,
  conversationsForViewer,
  loadConversations,
  isParticipant,
  conversationRow,
} from '../../domain/direct/read';
import { fileDownloadOptions, receiveFileMessage, sendAttachment } from '../file-messages';
import { fileParams, jsonBody } from '../schemas';

const conversationParams = z.object({ id: idSchema });
const messageParams = conversationParams.extend({ messageId: idSchema });

export const directMessageRoutes: FastifyPluginCallbackZod = (app, _opts, done) => {
  const auth = { onRequest: app.authenticate };
  const uploads = new UploadStore(app.config.dataDir);

  app.get(
    '/conversations',
    { ...auth, schema: { summary: "The caller's conversations, newest first" } },
    async (request) => ({
      success: true,
      conversations: await conversationsForViewer(app.db, request.actor.id),
    }),
  );

  /** Starts the conversation with `recipientId`, or returns the one that exists (200 then, 201 when new). */
  const startBody = jsonBody(startConversationArgsSchema);
  const startSchema = {
    summary: 'Start a conversation with someone (201), or get the one that exists (200)',
    body: startBody,
    refuses: ['invalid_input', 'user_not_found', 'duplicate_id'],
  } as const;
  app.post('/conversations', { ...auth, schema: startSchema }, async (request, reply) => {
    const { conversation, created } = await runCommand(
      app.db,
      app.flush,
      request.actor,
      startConversationCommand,
      request.body,
    );
    return reply.status(created ? 201 : 200).send({ success: true, conversation });
  });

  /** Every message (the spec's call), or with `before`, `after`, `around` or `limit` one page (issue 46). */
  const historySchema = {
    summary: "A conversation's messages, for its participants: all of them, or one page before, after or around one",
    params: conversationParams,
    querystring: directMessagesQuerySchema,
    refuses: ['forbidden', 'not_found'],
  } as const;
  app.get('/conversations/:id/messages', { ...auth, schema: historySchema }, async (request) => {
    await requireParticipation(app.db, request.actor, request.params.id);
    const [conversation] = await loadConversations(app.db, [request.params.id]);
    if (!conversation) throw new DomainError('not_found');
    const { before, after, around, limit } = request.query;
    if (before === undefined && after === undefined && around === undefined && limit === undefined)
      return { success: true, messages: await conversationMessages(app.db, conversation) };
    return conversationMessagePage(app.db, conversation, {
      before,
      after,
      around,
      limit: limit ?? chatPageMax,
    });
  });

  /**
   * JSON `{text}`, or multipart with repeated `files` and optional `text` (and the sync fields of a queued
   * write). A multipart request has no parsed body: its parts are read below.
   */
  const sendBody = sendDirectArgsSchema.omit({ conversationId: true }).extend({ id: idSchema.optional() }).partial();
  const sendSchema = {
    summary: 'Send a direct message (201): JSON `{ text }`, or multipart with `files` and optional `text`',
    params: conversationParams,
    body: sendBody.nullish(),
    refuses: ['forbidden', 'not_found', 'duplicate_id', 'payload_too_large', 'unsupported_media_type'],
  } as const;
  app.post('/conversations/:id/messages', { ...auth, schema: sendSchema }, async (request, reply) => {
    const conversationId = request.params.id;
    if (request.isMultipart()) {
      const answer = await receiveFileMessage(
        app,
        request,
        uploads,
        directFilePolicy,
        sendDirectFilesCommand,
        (fields, files) => ({
          id: fields.id ?? uuidv7(),
          conversationId,
          text: fields.text ?? '',
          files,
        }),
      );
      if (answer.queued) return { outcome: answer.outcome } satisfies UploadOutcomeResponse;
      return reply.status(201).send({ success: true, message: answer.result });
    }
    const { id, text } = request.body ?? {};
    const message = await app.write(request.actor, sendDirectCommand, {
      id: id ?? uuidv7(),
      conversationId,
      text,
    });
    return reply.status(201).send({ success: true, message });
  });

  app.delete(
    '/conversations/:id/messages/:messageId',
    {
      ...auth,
      schema: {
        summary: "Delete one's own direct message",
        params: messageParams,
        refuses: ['forbidden', 'not_found', 'message_not_found'],
      },
    },
    async (request) => {
      await runCommand(app.db, app.flush, request.actor, deleteDirectCommand, {
        conversationId: request.params.id,
        id: request.params.messageId,
      });
      return { success: true, message: 'Message deleted' };
    },
  );

  /** Sets the caller's reaction on or off (a set, so sending it twice is harmless); answers the message. */
  const reactionParams = messageParams.extend({ emoji: reactionEmojiSchema });
  app.put(
    '/conversations/:id/messages/:messageId/reactions/:emoji',
    {
      ...auth,
      schema: {
        summary: "Set the caller's reaction on a direct message on or off: the message",
        params: reactionParams,
        body: jsonBody(reactionBodySchema),
        refuses: ['forbidden', 'not_found', 'message_not_found'],
      },
    },
    async (request) => {
      const { id, messageId, emoji } = request.params;
      const message = await runCommand(app.db, app.flush, request.actor, reactDirectCommand, {
        conversationId: id,
        id: messageId,
        emoji,
        ...request.body,
      });
      return { message };
    },
  );

  const readSchema = {
    summary: 'Mark a conversation read up to now: when',
    params: conversationParams,
    refuses: ['forbidden', 'not_found'],
  } as const;
  app.patch('/conversations/:id/read', { ...auth, schema: readSchema }, async (request) => {
    const { readAt } = await runCommand(app.db, app.flush, request.actor, markReadCommand, {
      conversationId: request.params.id,
    });
    return { success: true, readAt };
  });

  /** Downloads an attachment; only the conversation's participants may. */
  app.get(
    '/attachments/:filename',
    {
      ...auth,
      ...fileDownloadOptions,
      schema: {
        summary: "A direct message's file, for the conversation's participants",
        params: fileParams,
        refuses: ['forbidden', 'not_found'],
      },
    },
    async (request, reply) => {
      const { filename } = request.params;
      // Security: only names this server generated; anything else (../, slashes, encodings) is simply unknown.
      if (!storedNamePattern.test(filename)) throw new DomainError('not_found', 'File not found.');
      const [file] = await app.db
        .select({
          originalName: directAttachments.originalName,
          mimetype: directAttachments.mimetype,
          size: directAttachments.size,
          conversationId: directMessages.conversationId,
        })
        .from(directAttachments)
        .innerJoin(directMessages, eq(directMessages.id, directAttachments.messageId))
        .where(and(eq(directAttachments.filename, filename), isNull(directMessages.deletedAt)))
        .limit(1);
      if (!file) throw new DomainError('not_found', 'File not found.');
      const conversation = await conversationRow(app.db, file.conversationId);
      if (!conversation || !isParticipant(conversation, request.actor.id)) throw new DomainError('forbidden');
      return sendAttachment(reply, uploads, filename, file);
    },
  );

  done();
};
