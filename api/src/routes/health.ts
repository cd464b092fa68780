import { sql } from 'drizzle-orm';
import type { FastifyPluginCallback } from 'fastify';
import type { ServerConfig } from '@office/sync-protocol';
import { runStatement } from '../db/dialect';

export const healthRoutes: FastifyPluginCallback = (app, _opts, done) => {
  app.get('/health', async () => {
    await runStatement(app.db, sql`SELECT 1`);
    return { ok: true };
  });
  app.get('/config', (): ServerConfig => ({ googleClientId: app.config.googleClientId }));
  done();
};
