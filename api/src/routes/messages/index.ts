import type { FastifyPluginCallback } from 'fastify';
import { uuidv7 } from '@office/sync-protocol';
import { runCommand } from '../../domain/commands';
import { DomainError } from '../../domain/errors';
import { deleteChatCommand, editChatCommand, sendChatCommand } from '../../domain/chat/commands';
import { listChatMessages } from '../../domain/chat/read';

const objectBody = (body: unknown): Record<string, unknown> => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new DomainError('invalid_input');
  return body as Record<string, unknown>;
};

export const messageRoutes: FastifyPluginCallback = (app, _opts, done) => {
  const auth = { onRequest: app.authenticate };

  app.get('/', auth, () => ({ messages: listChatMessages(app.db) }));

  app.post('/', auth, (request, reply) => {
    // The author is always the signed-in user: userId, userName and userAvatar in the payload are ignored.
    const { id, text } = objectBody(request.body);
    const message = runCommand(app.db, app.flush, request.actor, sendChatCommand, { id: id ?? uuidv7(), text });
    return reply.status(201).send({ message });
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

  done();
};
