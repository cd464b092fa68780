import type { FastifyPluginCallback } from 'fastify';
import { and, count, desc, eq, isNull, lt, or } from 'drizzle-orm';
import { notificationsQuerySchema } from '@office/sync-protocol';
import { notifications } from '../../db/schema';
import { runCommand } from '../../domain/commands';
import { parseInput } from '../../domain/errors';
import {
  markAllNotificationsReadCommand,
  markNotificationReadCommand,
  sendNotificationCommand,
} from '../../domain/notifications/commands';
import { toNotifications } from '../../domain/notifications/notify';

export const notificationRoutes: FastifyPluginCallback = (app, _opts, done) => {
  const auth = { onRequest: app.authenticate };

  /** The caller's notifications, newest first, a page at a time, with their unread count. */
  app.get('/', auth, (request) => {
    const { limit, before } = parseInput(notificationsQuerySchema, request.query);
    const mine = eq(notifications.recipientId, request.actor.id);
    const last = before
      ? app.db
          .select({ createdAt: notifications.createdAt, id: notifications.id })
          .from(notifications)
          .where(and(mine, eq(notifications.id, before)))
          .get()
      : undefined;
    // Strictly after the previous page's last one in (createdAt, id) order, so ties are neither lost nor repeated.
    const after = last
      ? or(
          lt(notifications.createdAt, last.createdAt),
          and(eq(notifications.createdAt, last.createdAt), lt(notifications.id, last.id)),
        )
      : undefined;
    const rows = app.db
      .select()
      .from(notifications)
      .where(and(mine, after))
      .orderBy(desc(notifications.createdAt), desc(notifications.id))
      .limit(limit + 1)
      .all();
    const page = rows.slice(0, limit);
    const unreadCount =
      app.db
        .select({ n: count() })
        .from(notifications)
        .where(and(mine, isNull(notifications.readAt)))
        .get()?.n ?? 0;
    return {
      success: true,
      notifications: toNotifications(app.db, page),
      unreadCount,
      nextBefore: rows.length > limit ? (page.at(-1)?.id ?? null) : null,
    };
  });

  app.post('/', auth, (request, reply) => {
    const notification = runCommand(app.db, app.flush, request.actor, sendNotificationCommand, request.body);
    return reply.status(201).send({ success: true, notification });
  });

  app.patch('/read-all', auth, (request) => {
    const { marked } = runCommand(app.db, app.flush, request.actor, markAllNotificationsReadCommand, {});
    return { success: true, marked };
  });

  app.patch<{ Params: { id: string } }>('/:id/read', auth, (request) => {
    const notification = runCommand(app.db, app.flush, request.actor, markNotificationReadCommand, {
      id: request.params.id,
    });
    return { success: true, notification };
  });

  done();
};
