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
  const listSchema = {
    summary: "The caller's notices, newest first, a page at a time, with the unread count",
    querystring: notificationsQuerySchema,
  };
  app.get('/', { ...auth, schema: listSchema }, async (request) => {
    const { limit, before } = request.query;
    const marker = await markerOf(app.db, request.actor.id);
    const { notices, nextBefore } = await listNotices(app.db, marker, { limit, after: before });
    return { success: true, notifications: notices, unreadCount: await unreadCount(app.db, marker), nextBefore };
  });

  /** The spec's client asks for a direct message's notice; it exists already (dm.send made it): that one is the answer. */
  const sendSchema = {
    summary: "A direct message's notice to its recipient (201 when new, 200 when it exists)",
    body: sendNotificationArgsSchema,
    refuses: ['forbidden', 'message_not_found', 'user_not_found'],
  } as const;
  app.post('/', { ...auth, schema: sendSchema }, async (request, reply) => {
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
  app.get(
    '/preferences',
    { ...auth, schema: { summary: "The caller's notification preferences" } },
    async (request) => {
      const preferences = (await preferencesOf(app.db, [request.actor.id])).get(request.actor.id);
      return { success: true, preferences };
    },
  );

  const preferencesSchema = {
    summary: "Change the caller's notification preferences: all of them",
    body: setNotificationPreferencesArgsSchema,
  };
  app.put('/preferences', { ...auth, schema: preferencesSchema }, async (request) => {
    const preferences = await runCommand(
      app.db,
      app.flush,
      request.actor,
      setNotificationPreferencesCommand,
      request.body,
    );
    return { success: true, preferences };
  });

  app.patch(
    '/read-all',
    { ...auth, schema: { summary: "Mark all the caller's notices read: how many" } },
    async (request) => {
      const { marked } = await runCommand(app.db, app.flush, request.actor, markAllNotificationsReadCommand, {});
      return { success: true, marked };
    },
  );

  const readSchema = {
    summary: 'Mark one notice read: the notice',
    params: z.object({ id: idSchema }),
    refuses: ['not_found'],
  } as const;
  app.patch('/:id/read', { ...auth, schema: readSchema }, async (request) => {
    const notification = await runCommand(app.db, app.flush, request.actor, markNotificationReadCommand, {
      id: request.params.id,
    });
    return { success: true, notification };
  });

  done();
};
