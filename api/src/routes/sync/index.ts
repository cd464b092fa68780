import type { FastifyPluginCallback } from 'fastify';
import { pullQuerySchema, pushRequestSchema, type PullResponse, type PushResponse } from '@office/sync-protocol';
import { DomainError, parseInput } from '../../domain/errors';
import { processPull } from '../../domain/sync/pull';
import { processPush } from '../../domain/sync/push';

export const syncRoutes: FastifyPluginCallback = (app, _opts, done) => {
  const auth = { onRequest: app.authenticate };

  app.post('/push', auth, (request): PushResponse => {
    const body = parseInput(pushRequestSchema, request.body);
    try {
      return processPush(app.db, app.flush, request.actor, body);
    } catch (error) {
      if (error instanceof DomainError) throw error;
      // A fault the client did not cause stops the batch; what committed before it stays, and the client retries.
      request.log.error({ err: error }, 'push stopped by a server fault');
      throw new DomainError('unavailable');
    }
  });

  app.get('/pull', auth, (request): PullResponse =>
    processPull(app.db, request.actor, parseInput(pullQuerySchema, request.query)),
  );

  done();
};
