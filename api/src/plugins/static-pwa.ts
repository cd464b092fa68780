import fp from 'fastify-plugin';
import fastifyStatic from '@fastify/static';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Serves the built PWA's files; the error handler's not-found handler falls back to its index.html. */
export const staticPwaPlugin = fp<{ root: string }>(
  async (app, { root }) => {
    if (!existsSync(join(root, 'index.html'))) throw new Error(`The PWA is not built: ${root}/index.html is missing`);
    await app.register(fastifyStatic, {
      root,
      wildcard: false,
      index: 'index.html',
      setHeaders(res, path) {
        const name = path.slice(root.length);
        // Hashed assets never change; the service worker, manifest and shell must be revalidated.
        if (name.startsWith('/assets/')) res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
        else res.setHeader('Cache-Control', 'no-cache');
      },
    });
  },
  { name: 'static-pwa', dependencies: ['error-handler'] },
);
