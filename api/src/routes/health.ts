import type { FastifyPluginCallback } from 'fastify';
import type { ServerConfig } from '@office/sync-protocol';

export const healthRoutes: FastifyPluginCallback = (app, _opts, done) => {
  app.get('/health', () => {
    app.db.$client.prepare('SELECT 1').get();
    return { ok: true };
  });
  app.get('/config', (): ServerConfig => ({ googleClientId: app.config.googleClientId }));
  done();
};
