import type { FastifyPluginCallback } from 'fastify';
import { and, eq, isNull } from 'drizzle-orm';
import {
  presenceArgsSchema,
  rooms,
  typingArgsSchema,
  uploadLimits,
  uploadSyncFieldsSchema,
  uuidv7,
  type UploadOutcomeResponse,
} from '@office/sync-protocol';
import { chatAttachments, chatMessages, users } from '../../db/schema';
import { runCommand, runInTransaction } from '../../domain/commands';
import { applyClientMutation, claimClient } from '../../domain/sync/push';
import { DomainError, parseInput } from '../../domain/errors';
import {
  deleteChatCommand,
  editChatCommand,
  sendChatCommand,
  sendChatFilesCommand,
  type StoredFile,
} from '../../domain/chat/commands';
import { listChatMessages } from '../../domain/chat/read';
import { storedNamePattern, UploadStore } from '../../domain/chat/uploads';

const objectBody = (body: unknown): Record<string, unknown> => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new DomainError('invalid_input');
  return body as Record<string, unknown>;
};

/** An attachment's original name for the browser's save dialog, safe in a header. */
const contentDisposition = (name: string): string =>
  `attachment; filename="${name.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeRfc5987(name)}`;

/** RFC 5987 ext-value: encodeURIComponent leaves ' ( ) * as they are, which that grammar does not allow. */
const encodeRfc5987 = (value: string): string =>
  encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export const messageRoutes: FastifyPluginCallback = (app, _opts, done) => {
  const auth = { onRequest: app.authenticate };
  const uploads = new UploadStore(app.config.dataDir);

  app.get('/', auth, () => ({ messages: listChatMessages(app.db) }));

  app.post('/', auth, (request, reply) => {
    // The author is always the signed-in user: userId, userName and userAvatar in the payload are ignored.
    const { id, text } = objectBody(request.body);
    const message = runCommand(app.db, app.flush, request.actor, sendChatCommand, { id: id ?? uuidv7(), text });
    return reply.status(201).send({ message });
  });

  /**
   * A message with files. With `clientId`, `mutationId` and `at` fields (sent before the files) it is a
   * queued offline write: it applies exactly once per client mutation, like /api/sync/push, and a
   * refusal is recorded as that mutation's outcome so the client's queue moves on.
   */
  app.post('/upload', auth, async (request, reply) => {
    if (!request.isMultipart())
      throw new DomainError('unsupported_media_type', 'Send the files as multipart/form-data.');
    const stored: StoredFile[] = [];
    const fields: Record<string, string> = {};
    const discard = () => uploads.remove(stored.map((file) => file.filename));
    let refusal: DomainError | null = null;
    try {
      for await (const part of request.parts()) {
        if (part.type === 'file') stored.push(await uploads.save(part));
        else fields[part.fieldname] = String(part.value);
      }
    } catch (error) {
      await discard();
      if ((error as { code?: string }).code === 'FST_FILES_LIMIT') {
        refusal = new DomainError('payload_too_large', `At most ${uploadLimits.files} files per message.`);
      } else if (error instanceof DomainError) refusal = error;
      else throw error;
    }
    const args = { id: fields.id ?? uuidv7(), text: fields.text ?? '', files: stored };

    if (fields.clientId !== undefined) {
      const sync = parseInput(uploadSyncFieldsSchema, fields);
      claimClient(app.db, sync.clientId, request.actor);
      const failed = refusal;
      const outcome = applyClientMutation(
        app.db,
        app.flush,
        sync.clientId,
        { id: sync.mutationId, name: sendChatFilesCommand.name, at: sync.at },
        (tx, pending, madeAt) => {
          if (failed) throw failed;
          runInTransaction(tx, request.actor, sendChatFilesCommand, args, pending, madeAt);
        },
      );
      // Only a first, applied run keeps its files; a replay or a refusal leaves none behind.
      if (outcome === 'gap' || outcome.status !== 'applied') await discard();
      return { outcome } satisfies UploadOutcomeResponse;
    }

    if (refusal) throw refusal;
    try {
      const message = runCommand(app.db, app.flush, request.actor, sendChatFilesCommand, args);
      return await reply.status(201).send({ success: true, message });
    } catch (error) {
      // A refused upload leaves no file behind (and the command wrote no message).
      await discard();
      throw error;
    }
  });

  app.get<{ Params: { filename: string } }>('/download/:filename', auth, (request, reply) => {
    const { filename } = request.params;
    // Security: only names this server generated; anything else (../, slashes, encodings) is simply unknown.
    if (!storedNamePattern.test(filename)) throw new DomainError('not_found', 'File not found.');
    const file = app.db
      .select({
        originalName: chatAttachments.originalName,
        mimetype: chatAttachments.mimetype,
        size: chatAttachments.size,
      })
      .from(chatAttachments)
      .innerJoin(chatMessages, eq(chatMessages.id, chatAttachments.messageId))
      .where(and(eq(chatAttachments.filename, filename), isNull(chatMessages.deletedAt)))
      .get();
    if (!file) throw new DomainError('not_found', 'File not found.');
    return reply
      .header('Content-Type', file.mimetype)
      .header('Content-Length', file.size)
      .header('Content-Disposition', contentDisposition(file.originalName))
      .header('X-Content-Type-Options', 'nosniff')
      .header('Content-Security-Policy', "default-src 'none'; sandbox")
      .header('Cache-Control', 'private, no-store')
      .send(uploads.open(filename));
  });

  app.put<{ Params: { id: string } }>('/:id', auth, (request) => {
    const { text } = objectBody(request.body);
    const message = runCommand(app.db, app.flush, request.actor, editChatCommand, { id: request.params.id, text });
    return { message };
  });

  app.delete<{ Params: { id: string } }>('/:id', auth, (request) => {
    runCommand(app.db, app.flush, request.actor, deleteChatCommand, { id: request.params.id });
    return { success: true, message: 'Message deleted' };
  });

  /** Typing is live state: told to the others' sockets, never stored. */
  app.post('/typing', auth, (request) => {
    const { isTyping } = parseInput(typingArgsSchema, request.body);
    const me = request.actor.id;
    const others = app.realtime.io.to(rooms.team).except(rooms.user(me));
    if (isTyping) {
      const name = app.db.select({ name: users.name }).from(users).where(eq(users.id, me)).get()?.name ?? 'Someone';
      others.emit('user-typing', { userId: me, userName: name, conversationId: null });
    } else {
      others.emit('stop-typing', { userId: me, conversationId: null });
    }
    return { success: true };
  });

  app.get('/active-users', auth, () => ({
    success: true,
    data: app.db
      .select({ id: users.id, name: users.name, status: users.status, lastSeen: users.lastSeen, avatar: users.avatar })
      .from(users)
      .where(isNull(users.deactivatedAt))
      .all()
      .map((user) => ({ ...user, _id: user.id })),
  }));

  app.post('/status', auth, (request) => {
    const { status } = parseInput(presenceArgsSchema, request.body);
    const lastSeen = app.realtime.presence.store(request.actor.id, status);
    app.realtime.io.to(rooms.team).emit('user-presence-update', { userId: request.actor.id, status, lastSeen });
    return { success: true, status };
  });

  done();
};
