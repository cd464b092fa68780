import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import {
  pullQuerySchema,
  pushRequestSchema,
  windowCountsQuerySchema,
  type PullResponse,
  type PushResponse,
  type WindowCounts,
} from '@office/sync-protocol';
import { DomainError } from '../../domain/errors';
import { processPull } from '../../domain/sync/pull';
import { processPush } from '../../domain/sync/push';
import { windowCounts } from '../../domain/sync/window-counts';

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
    summary: 'The changes the caller may see after a cursor, or the window of the workspace to start from (bootstrap)',
    querystring: pullQuerySchema,
    refuses: ['client_not_yours'],
  } as const;
  app.get('/pull', { ...auth, schema: pullSchema }, (request): Promise<PullResponse> =>
    processPull(app.db, request.actor, request.query, app.config.historyWindow),
  );

  /** What lies before the edges of the device's window (issue 46): a read, POSTed for its list of conversations. */
  const windowCountsSchema = {
    summary: "Counts of what lies before the edges of the device's window: unread notices and messages, completed tasks",
    body: windowCountsQuerySchema,
    refuses: [],
  } as const;
  app.post('/window-counts', { ...auth, schema: windowCountsSchema }, (request): Promise<WindowCounts> =>
    windowCounts(app.db, request.actor, request.body),
  );

  done();
};
