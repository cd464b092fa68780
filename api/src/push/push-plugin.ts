import fp from 'fastify-plugin';
import { and, eq, inArray } from 'drizzle-orm';
import { users } from '../db/schema';
import { inSlices } from '../domain/read-support';
import { PushQueue, type PushQueueOptions } from './push-queue';
import { loadVapidKeys } from './vapid';
import { advisoryLocks } from '../db/advisory-locks';
import { leadership } from '../db/leadership';
import { poolOf } from '../db/postgres';

/** How soon the leader's queue sees what another node flagged for push. */
const CLUSTER_POLL_MS = 1_000;

declare module 'fastify' {
  interface FastifyInstance {
    push: PushQueue;
  }
}

/** Shorter windows and retries, for the tests. */
export type PushTuning = Partial<Pick<PushQueueOptions, 'chatWindowMs' | 'retryBaseMs' | 'maxAttempts'>>;

/** Web push: the VAPID keys and the background queue the flusher wakes once a write is durable. */
export const pushPlugin = fp<PushTuning>(
  (app, tuning, done) => {
    const several = poolOf(app.db) !== null;
    /**
     * Connected and not away: the app is open and visible, the bell shows it already. Several nodes: a person
     * connected to another node is online in the row they share (realtime/presence.ts).
     */
    const visibleUsers = async (ids: string[]): Promise<Set<string>> => {
      const connected = several ? ids : ids.filter((id) => app.realtime.presence.isOnline(id));
      const online = await inSlices(connected, (slice) =>
        app.db
          .select({ id: users.id })
          .from(users)
          .where(and(inArray(users.id, slice), eq(users.status, 'online'))),
      );
      return new Set(online.map((row) => row.id));
    };
    const push = new PushQueue({
      db: app.db,
      ...(several ? { leadership: leadership(app.db, advisoryLocks.pushQueue), pollMs: CLUSTER_POLL_MS } : {}),
      keys: loadVapidKeys(app.config.dataDir),
      visibleUsers,
      log: (error, message) => app.log.warn({ err: error }, message),
      allowLoopback: app.config.pushAllowLoopback,
      onDelivery: (outcome) => app.metrics.pushDelivery(outcome),
      ...tuning,
    });
    app.decorate('push', push);
    app.addHook('onReady', (hookDone) => {
      push.start();
      hookDone();
    });
    // Before the database closes: sends in flight finish, what waits stays stored for the next start.
    app.addHook('preClose', async () => {
      await push.stop();
    });
    done();
  },
  { name: 'push', dependencies: ['db', 'realtime'] },
);
