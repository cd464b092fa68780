import type { FastifyPluginCallback } from 'fastify';
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { pushSubscriptionSchema } from '@office/sync-protocol';
import { pushSubscriptions } from '../../db/schema';
import { parseInput } from '../../domain/errors';

/** Web push subscriptions of the signed-in user's browsers. */
export const pushRoutes: FastifyPluginCallback = (app, _opts, done) => {
  const auth = { onRequest: app.authenticate };

  app.get('/public-key', () => ({ publicKey: app.push.keys.publicKey }));

  /** Stores (or moves to this user) a browser's subscription; the same endpoint twice is one subscription. */
  app.post('/subscribe', auth, (request, reply) => {
    const subscription = parseInput(pushSubscriptionSchema, request.body);
    const values = {
      endpoint: subscription.endpoint,
      userId: request.actor.id,
      p256dh: subscription.keys.p256dh,
      auth: subscription.keys.auth,
    };
    app.db
      .insert(pushSubscriptions)
      .values(values)
      .onConflictDoUpdate({ target: pushSubscriptions.endpoint, set: values })
      .run();
    return reply.status(201).send({ success: true });
  });

  /** Removes one of the caller's subscriptions; another user's endpoint is left alone. */
  app.delete('/subscribe', auth, (request) => {
    const { endpoint } = parseInput(z.object({ endpoint: z.string().min(1).max(2048) }), request.body);
    const removed = app.db
      .delete(pushSubscriptions)
      .where(and(eq(pushSubscriptions.endpoint, endpoint), eq(pushSubscriptions.userId, request.actor.id)))
      .run().changes;
    return { success: true, removed };
  });

  done();
};
