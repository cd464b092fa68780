import type { FastifyPluginCallback } from 'fastify';
import { and, eq, isNull } from 'drizzle-orm';
import { presenceArgsSchema, rooms, typingArgsSchema, uuidv7 } from '@office/sync-protocol';
import { chatAttachments, chatMessages, users } from '../../db/schema';
import { runCommand } from '../../domain/commands';
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

  app.post('/upload', auth, async (request, reply) => {
    if (!request.isMultipart())
      throw new DomainError('unsupported_media_type', 'Send the files as multipart/form-data.');
    const stored: StoredFile[] = [];
    const fields: Record<string, string> = {};
    try {
      for await (const part of request.parts()) {
        if (part.type === 'file') stored.push(await uploads.save(part));
        else fields[part.fieldname] = String(part.value);
      }
      const message = runCommand(app.db, app.flush, request.actor, sendChatFilesCommand, {
        id: fields.id ?? uuidv7(),
        text: fields.text ?? '',
        files: stored,
      });
      return await reply.status(201).send({ success: true, message });
    } catch (error) {
      // A partial or refused upload leaves no file behind (and the command wrote no message).
      await uploads.remove(stored.map((file) => file.filename));
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
