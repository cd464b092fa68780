import { sql } from 'drizzle-orm';
import type { FastifyPluginCallback } from 'fastify';
import type { ServerConfig } from '@office/sync-protocol';
import { runStatement } from '../db/dialect';

export const healthRoutes: FastifyPluginCallback = (app, _opts, done) => {
  app.get('/health', { schema: { summary: 'Whether the server and its database answer' } }, async () => {
    await runStatement(app.db, sql`SELECT 1`);
    return { ok: true };
  });
  app.get(
    '/config',
    { schema: { summary: "The server's settings a client reads before sign-in (Google client id)" } },
    (): ServerConfig => ({ googleClientId: app.config.googleClientId }),
  );
  done();
};
