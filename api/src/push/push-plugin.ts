import fp from 'fastify-plugin';
import { eq } from 'drizzle-orm';
import { users } from '../db/schema';
import { loadVapidKeys, PushService } from './push-service';

declare module 'fastify' {
  interface FastifyInstance {
    push: PushService;
  }
}

/** Web push: the VAPID keys and the sender the flusher hands new notifications to. */
export const pushPlugin = fp(
  (app, _opts, done) => {
    const isAppVisible = (userId: string): boolean => {
      if (!app.realtime.presence.isOnline(userId)) return false;
      // Connected and not away: the app is open and visible, the bell shows it already.
      return app.db.select({ status: users.status }).from(users).where(eq(users.id, userId)).get()?.status === 'online';
    };
    app.decorate(
      'push',
      new PushService(app.db, loadVapidKeys(app.config.dataDir), isAppVisible, (error, message) =>
        app.log.warn({ err: error }, message),
      ),
    );
    done();
  },
  { name: 'push', dependencies: ['db', 'realtime'] },
);
