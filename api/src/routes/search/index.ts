import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { searchQuerySchema, type SearchResponse } from '@office/sync-protocol';
import { SearchIndexer } from '../../domain/search/indexer';
import { searchWorkspace } from '../../domain/search/search';

/**
 * GET /api/search?q=...: full-text search of the history the person may see (team chat, their direct messages,
 * their tasks), for what a device does not hold. One kind paged on with `kind` and `before`.
 */
export const searchRoutes: FastifyPluginCallbackZod = (app, _opts, done) => {
  const indexer = new SearchIndexer(app.db);
  app.addHook('onReady', () => {
    indexer.start();
    return Promise.resolve();
  });
  app.addHook('onClose', () => indexer.stop());

  app.get(
    '/',
    {
      onRequest: app.authenticate,
      schema: {
        summary: 'Full-text search of team chat, direct messages and tasks the caller may see',
        querystring: searchQuerySchema,
      },
    },
    async (request): Promise<SearchResponse> => {
      // What was written a moment ago is found too: the indexer catches up first (a bounded step on SQLite).
      await indexer.catchUp();
      return searchWorkspace(app.db, request.actor, request.query);
    },
  );

  done();
};
