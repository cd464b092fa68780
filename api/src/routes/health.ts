import { sql } from 'drizzle-orm';
import type { FastifyPluginCallback } from 'fastify';
import type { ServerConfig } from '@office/sync-protocol';
import { runStatement } from '../db/dialect';
import { DomainError } from '../domain/errors';

/** Longer than a reachable database takes to answer; short enough for a load balancer's own check to hear the 503. */
const HEALTH_TIMEOUT_MS = 2_000;

export const healthRoutes: FastifyPluginCallback = (app, _opts, done) => {
  // A node that cannot reach its database answers 503, so a load balancer takes it out until it can again.
  app.get('/health', { schema: { summary: 'Whether the server and its database answer' } }, async () => {
    let timer: NodeJS.Timeout | undefined;
    const outOfTime = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error('no answer from the database in time')), HEALTH_TIMEOUT_MS);
    });
    try {
      await Promise.race([runStatement(app.db, sql`SELECT 1`), outOfTime]);
    } catch (error) {
      app.log.warn({ err: error }, 'health check: the database cannot be reached');
      throw new DomainError('unavailable', 'This node cannot reach its database.');
    } finally {
      clearTimeout(timer);
    }
    return { ok: true };
  });
  app.get(
    '/config',
    { schema: { summary: "The server's settings a client reads before sign-in (Google client id)" } },
    (): ServerConfig => ({ googleClientId: app.config.googleClientId }),
  );
  done();
};
