import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { pullQuerySchema, pushRequestSchema, type PullResponse, type PushResponse } from '@office/sync-protocol';
import { DomainError } from '../../domain/errors';
import { processPull } from '../../domain/sync/pull';
import { processPush } from '../../domain/sync/push';

export const syncRoutes: FastifyPluginCallbackZod = (app, _opts, done) => {
  const auth = { onRequest: app.authenticate };

  const pushSchema = {
    summary: "A device's queued writes, applied in order: each one's outcome (refusals of one write are outcomes)",
    body: pushRequestSchema,
    refuses: ['client_not_yours'],
  } as const;
  app.post('/push', { ...auth, schema: pushSchema }, async (request): Promise<PushResponse> => {
    try {
      const answer = await processPush(app.db, app.flush, request.actor, request.body, request.ip);
      app.metrics.mutations(answer.outcomes.map((outcome) => outcome.status));
      return answer;
    } catch (error) {
      if (error instanceof DomainError) throw error;
      // A fault the client did not cause rolls the whole batch back; nothing of it is acknowledged and the client retries.
      request.log.error({ err: error }, 'push batch rolled back by a server fault');
      throw new DomainError('unavailable');
    }
  });

  const pullSchema = {
    summary: 'The changes the caller may see after a cursor, or a snapshot to start from (bootstrap)',
    querystring: pullQuerySchema,
    refuses: ['client_not_yours'],
  } as const;
  app.get('/pull', { ...auth, schema: pullSchema }, (request): Promise<PullResponse> =>
    processPull(app.db, request.actor, request.query),
  );

  done();
};
