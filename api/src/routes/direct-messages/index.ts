import type { FastifyPluginCallback } from 'fastify';
import { and, eq, isNull } from 'drizzle-orm';
import { uuidv7, type UploadOutcomeResponse } from '@office/sync-protocol';
import { directAttachments, directMessages } from '../../db/schema';
import { runCommand } from '../../domain/commands';
import { DomainError } from '../../domain/errors';
import { directFilePolicy, storedNamePattern, UploadStore } from '../../domain/chat/uploads';
import {
  deleteDirectCommand,
  markReadCommand,
  requireParticipation,
  sendDirectCommand,
  sendDirectFilesCommand,
  startConversationCommand,
} from '../../domain/direct/commands';
import {
  conversationMessages,
  conversationsForViewer,
  loadConversations,
  isParticipant,
  conversationRow,
} from '../../domain/direct/read';
import { receiveFileMessage, sendAttachment } from '../file-messages';

type ConversationParams = { Params: { id: string } };

const objectBody = (body: unknown): Record<string, unknown> =>
  typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};

export const directMessageRoutes: FastifyPluginCallback = (app, _opts, done) => {
  const auth = { onRequest: app.authenticate };
  const uploads = new UploadStore(app.config.dataDir);

  app.get('/conversations', auth, (request) => ({
    success: true,
    conversations: conversationsForViewer(app.db, request.actor.id),
  }));

  /** Starts the conversation with `recipientId`, or returns the one that exists (200 then, 201 when new). */
  app.post('/conversations', auth, (request, reply) => {
    const { recipientId } = objectBody(request.body);
    const { conversation, created } = runCommand(app.db, app.flush, request.actor, startConversationCommand, {
      recipientId,
    });
    return reply.status(created ? 201 : 200).send({ success: true, conversation });
  });

  app.get<ConversationParams>('/conversations/:id/messages', auth, (request) => {
    requireParticipation(app.db, request.actor, request.params.id);
    const [conversation] = loadConversations(app.db, [request.params.id]);
    if (!conversation) throw new DomainError('not_found');
    return { success: true, messages: conversationMessages(app.db, conversation) };
  });

  /** JSON `{text}`, or multipart with repeated `files` and optional `text` (and the sync fields of a queued write). */
  app.post<ConversationParams>('/conversations/:id/messages', auth, async (request, reply) => {
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
    const { id, text } = objectBody(request.body);
    const message = runCommand(app.db, app.flush, request.actor, sendDirectCommand, {
      id: id ?? uuidv7(),
      conversationId,
      text,
    });
    return reply.status(201).send({ success: true, message });
  });

  app.delete<{ Params: { id: string; messageId: string } }>(
    '/conversations/:id/messages/:messageId',
    auth,
    (request) => {
      runCommand(app.db, app.flush, request.actor, deleteDirectCommand, {
        conversationId: request.params.id,
        id: request.params.messageId,
      });
      return { success: true, message: 'Message deleted' };
    },
  );

  app.patch<ConversationParams>('/conversations/:id/read', auth, (request) => {
    const { readAt } = runCommand(app.db, app.flush, request.actor, markReadCommand, {
      conversationId: request.params.id,
    });
    return { success: true, readAt };
  });

  /** Downloads an attachment; only the conversation's participants may. */
  app.get<{ Params: { filename: string } }>('/attachments/:filename', auth, (request, reply) => {
    const { filename } = request.params;
    // Security: only names this server generated; anything else (../, slashes, encodings) is simply unknown.
    if (!storedNamePattern.test(filename)) throw new DomainError('not_found', 'File not found.');
    const file = app.db
      .select({
        originalName: directAttachments.originalName,
        mimetype: directAttachments.mimetype,
        size: directAttachments.size,
        conversationId: directMessages.conversationId,
      })
      .from(directAttachments)
      .innerJoin(directMessages, eq(directMessages.id, directAttachments.messageId))
      .where(and(eq(directAttachments.filename, filename), isNull(directMessages.deletedAt)))
      .get();
    if (!file) throw new DomainError('not_found', 'File not found.');
    const conversation = conversationRow(app.db, file.conversationId);
    if (!conversation || !isParticipant(conversation, request.actor.id)) throw new DomainError('forbidden');
    return sendAttachment(reply, uploads, filename, file);
  });

  done();
};
