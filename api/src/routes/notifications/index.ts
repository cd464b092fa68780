import type { FastifyPluginCallback } from 'fastify';
import { runCommand } from '../../domain/commands';
import { sendNotificationCommand } from '../../domain/notifications/commands';

export const notificationRoutes: FastifyPluginCallback = (app, _opts, done) => {
  const auth = { onRequest: app.authenticate };

  app.post('/', auth, (request, reply) => {
    const notification = runCommand(app.db, app.flush, request.actor, sendNotificationCommand, request.body);
    return reply.status(201).send({ success: true, notification });
  });

  done();
};
