import fp from 'fastify-plugin';
import fastifyStatic from '@fastify/static';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Cache-Control of a file the build named after its content: it never changes under that name. */
export const hashedAssetCaching = 'public, max-age=31536000, immutable';
/** Cache-Control of everything else (index.html, sw.js, the manifest, icons): revalidated on every use. */
export const unhashedCaching = 'no-cache';

/**
 * Serves the built PWA's files; the error handler's not-found handler falls back to its index.html.
 * `vite build` writes a brotli (.br) and a gzip (.gz) copy beside each text file (pwa/build/precompress.ts),
 * and the copy the browser accepts is sent as it is, so nothing is compressed per request.
 */
export const staticPwaPlugin = fp<{ root: string }>(
  async (app, { root }) => {
    if (!existsSync(join(root, 'index.html'))) throw new Error(`The PWA is not built: ${root}/index.html is missing`);
    await app.register(fastifyStatic, {
      root,
      wildcard: false,
      // A list, not a string: @fastify/static looks a precompressed index up only in a list (findIndexFile). With a
      // string, `GET /` from a browser that accepts gzip or brotli found no index, went on to the not-found handler,
      // and was sent from there, each hand-off awaiting the reply again: 11 close listeners on one response, and a
      // MaxListenersExceededWarning on every visit.
      index: ['index.html'],
      preCompressed: true,
      // @fastify/send would otherwise write its own `public, max-age=0` over the header set below.
      cacheControl: false,
      setHeaders(res, path) {
        // `path` is the file sent: with a precompressed copy, `/assets/index-abc.js.br`.
        const name = path.slice(root.length);
        res.setHeader('Cache-Control', name.startsWith('/assets/') ? hashedAssetCaching : unhashedCaching);
        res.setHeader('Vary', 'Accept-Encoding');
      },
    });
  },
  { name: 'static-pwa', dependencies: ['error-handler'] },
);
