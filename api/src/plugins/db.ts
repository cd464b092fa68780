import fp from 'fastify-plugin';
import { join } from 'node:path';
import type { Config } from '../config';
import { openDatabase, type Db } from '../db/client';
import type { EffectsFlusher } from '../domain/commands';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    db: Db;
    /** Publishes a committed command and runs its after-commit effects. */
    flush: EffectsFlusher;
  }
}

export const dbPlugin = fp<{ config: Config }>(
  (app, { config }, done) => {
    const db = openDatabase(join(config.dataDir, 'workspace.db'));
    app.decorate('config', config);
    app.decorate('db', db);
    app.decorate('flush', (pending) => {
      app.realtime.publish(pending.changes);
      for (const announcement of pending.announcements) app.realtime.announce(announcement);
      void app.push.deliver(pending.notifications);
      for (const effect of pending.effects) {
        try {
          effect();
        } catch (error) {
          app.log.error({ err: error }, 'after-commit effect failed');
        }
      }
    });
    app.addHook('onClose', (_instance, hookDone) => {
      db.$client.close();
      hookDone();
    });
    done();
  },
  { name: 'db' },
);
