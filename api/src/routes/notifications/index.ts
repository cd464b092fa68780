import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  idSchema,
  notificationsQuerySchema,
  sendNotificationArgsSchema,
  setNotificationPreferencesArgsSchema,
} from '@office/sync-protocol';
import { runCommand } from '../../domain/commands';
import {
  markAllNotificationsReadCommand,
  markNotificationReadCommand,
  sendNotificationCommand,
} from '../../domain/notifications/commands';
import { listNotices, markerOf, unreadCount } from '../../domain/notifications/notices';
import { preferencesOf, setNotificationPreferencesCommand } from '../../domain/notifications/preferences';

export const notificationRoutes: FastifyPluginCallbackZod = (app, _opts, done) => {
  const auth = { onRequest: app.authenticate };

  /** The caller's notices (stored and team chat), newest first, a page at a time, with their unread count. */
  app.get('/', { ...auth, schema: { querystring: notificationsQuerySchema } }, async (request) => {
    const { limit, before } = request.query;
    const marker = await markerOf(app.db, request.actor.id);
    const { notices, nextBefore } = await listNotices(app.db, marker, { limit, after: before });
    return { success: true, notifications: notices, unreadCount: await unreadCount(app.db, marker), nextBefore };
  });

  /** The spec's client asks for a direct message's notice; it exists already (dm.send made it): that one is the answer. */
  app.post('/', { ...auth, schema: { body: sendNotificationArgsSchema } }, async (request, reply) => {
    const { notification, created } = await runCommand(
      app.db,
      app.flush,
      request.actor,
      sendNotificationCommand,
      request.body,
    );
    return reply.status(created ? 201 : 200).send({ success: true, notification });
  });

  /** The caller's notification preferences (the spec's defaults until they change one). */
  app.get('/preferences', auth, async (request) => {
    const preferences = (await preferencesOf(app.db, [request.actor.id])).get(request.actor.id);
    return { success: true, preferences };
  });

  app.put('/preferences', { ...auth, schema: { body: setNotificationPreferencesArgsSchema } }, async (request) => {
    const preferences = await runCommand(
      app.db,
      app.flush,
      request.actor,
      setNotificationPreferencesCommand,
      request.body,
    );
    return { success: true, preferences };
  });

  app.patch('/read-all', auth, async (request) => {
    const { marked } = await runCommand(app.db, app.flush, request.actor, markAllNotificationsReadCommand, {});
    return { success: true, marked };
  });

  app.patch('/:id/read', { ...auth, schema: { params: z.object({ id: idSchema }) } }, async (request) => {
    const notification = await runCommand(app.db, app.flush, request.actor, markNotificationReadCommand, {
      id: request.params.id,
    });
    return { success: true, notification };
  });

  done();
};
