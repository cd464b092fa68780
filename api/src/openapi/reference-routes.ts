import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { canReadApiReference } from '@office/sync-protocol';
import { DomainError } from '../domain/errors';
import { unhashedCaching } from '../plugins/static-pwa';

/** The page the PWA's build writes beside its index.html (pwa/api-docs.html). */
export const referencePageFile = 'api-docs.html';

/** The page's HTML, or null when the PWA is not built (the API alone, the API tests). */
function readReferencePage(staticDir: string | null): string | null {
  if (!staticDir) return null;
  try {
    return readFileSync(join(staticDir, referencePageFile), 'utf8');
  } catch {
    return null;
  }
}

/**
 * GET /api/openapi.json, the OpenAPI document, for admins: it holds no data, but it maps every route, the admins' own
 * included, and admins are whom the reference is for (they hand it on to whoever scripts against the workspace).
 * GET /api/docs, the page that shows it: a plain navigation carries no credentials (the PWA keeps its token in
 * localStorage), so the page is a shell for anyone, and its script fetches the document with the stored token.
 */
export const referenceRoutes: FastifyPluginCallbackZod = (app, _opts, done) => {
  const page = readReferencePage(app.config.staticDir);

  app.get(
    '/openapi.json',
    {
      onRequest: app.authenticate,
      schema: {
        summary: 'This API reference as an OpenAPI 3.1 document (admins)',
        refuses: ['forbidden'],
      },
    },
    async (request) => {
      if (!canReadApiReference(request.actor)) throw new DomainError('forbidden');
      return app.swagger();
    },
  );

  app.get(
    '/docs',
    {
      schema: {
        summary: 'The API reference as a page for a browser (it shows the document to a signed-in admin)',
        refuses: ['not_found'],
      },
    },
    (_request, reply) => {
      if (page === null) throw new DomainError('not_found', 'The API reference page is not built: run npm run build.');
      return reply.type('text/html; charset=utf-8').header('Cache-Control', unhashedCaching).send(page);
    },
  );

  done();
};
