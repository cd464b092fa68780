import { ECDH } from 'node:crypto';
import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { pushSubscriptionSchema } from '@office/sync-protocol';
import { pushSubscriptions } from '../../db/schema';
import { transaction } from '../../db/transaction';
import { DomainError } from '../../domain/errors';
import { EndpointRefused, resolveEndpoint } from '../../push/endpoint-guard';

/** Keys web push can encrypt to (RFC 8291): an uncompressed P-256 point and an auth secret of 16 bytes or more. */
function encryptableKeys({ p256dh, auth }: { p256dh: string; auth: string }): boolean {
  const base64url = /^[\w-]+={0,2}$/;
  if (!base64url.test(p256dh) || !base64url.test(auth) || Buffer.from(auth, 'base64url').length < 16) return false;
  const point = Buffer.from(p256dh, 'base64url');
  if (point.length !== 65 || point[0] !== 0x04) return false;
  try {
    ECDH.convertKey(point, 'prime256v1'); // throws unless the point is on the curve
    return true;
  } catch {
    return false;
  }
}

/** Web push subscriptions of the signed-in user's browsers. */
export const pushRoutes: FastifyPluginCallbackZod = (app, _opts, done) => {
  const auth = { onRequest: app.authenticate };

  app.get(
    '/public-key',
    { schema: { summary: "The server's VAPID public key, for a browser's push subscription" } },
    () => ({ publicKey: app.push.keys.publicKey }),
  );

  /** Stores (or moves to this user) a browser's subscription; the same endpoint twice is one subscription. */
  const subscribeSchema = {
    summary: "Keep a browser's push subscription for the caller (201); the same endpoint twice is one",
    body: pushSubscriptionSchema,
  };
  app.post('/subscribe', { ...auth, schema: subscribeSchema }, async (request, reply) => {
    const subscription = request.body;
    // Refused here, not stored: every push to keys it cannot encrypt to would fail, and no push service says 410.
    if (!encryptableKeys(subscription.keys))
      throw new DomainError('invalid_input', 'The subscription keys are not a valid P-256 key and auth secret.');
    // Security: only public push services; the send checks the resolved address again (push/endpoint-guard.ts).
    try {
      await resolveEndpoint(subscription.endpoint, { allowLoopback: app.config.pushAllowLoopback });
    } catch (error) {
      if (error instanceof EndpointRefused) throw new DomainError('invalid_input', error.message);
      throw error;
    }
    const values = {
      endpoint: subscription.endpoint,
      userId: request.actor.id,
      p256dh: subscription.keys.p256dh,
      auth: subscription.keys.auth,
    };
    await transaction(app.db, async (tx) => {
      await tx
        .insert(pushSubscriptions)
        .values(values)
        .onConflictDoUpdate({ target: pushSubscriptions.endpoint, set: values });
    });
    return reply.status(201).send({ success: true });
  });

  /** Removes one of the caller's subscriptions; another user's endpoint is left alone. */
  app.delete(
    '/subscribe',
    {
      ...auth,
      schema: {
        summary: "Remove one of the caller's push subscriptions, by endpoint: how many were removed",
        body: z.object({ endpoint: z.string().min(1).max(2048) }),
      },
    },
    async (request) => {
      const { endpoint } = request.body;
      const removed = await transaction(app.db, async (tx) => {
        const rows = await tx
          .delete(pushSubscriptions)
          .where(and(eq(pushSubscriptions.endpoint, endpoint), eq(pushSubscriptions.userId, request.actor.id)))
          .returning({ endpoint: pushSubscriptions.endpoint });
        return rows.length;
      });
      return { success: true, removed };
    },
  );

  done();
};
