import fp from 'fastify-plugin';
import fastifyStatic from '@fastify/static';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Serves the built PWA with an SPA fallback; /api and /socket.io never fall back to HTML. */
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
    app.setNotFoundHandler((request, reply) => {
      const path = request.url.split('?')[0] ?? '';
      const isApi = path === '/api' || path.startsWith('/api/') || path.startsWith('/socket.io');
      if (isApi || request.method !== 'GET' || /\.[a-z0-9]+$/i.test(path)) {
        return reply.status(404).send({ code: 'not_found', message: `No route for ${request.method} ${path}` });
      }
      return reply.header('Cache-Control', 'no-cache').sendFile('index.html');
    });
  },
  { name: 'static-pwa', dependencies: ['error-handler'] },
);
