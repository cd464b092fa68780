import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { precompressDir } from '../../../pwa/build/precompress';
import { startTestServer, type TestServer } from '../../test/support';
import { hashedAssetCaching, unhashedCaching } from './static-pwa';

// A built PWA in miniature, precompressed by the same step as `vite build` (pwa/build/precompress.ts).
const script = `export const greeting = ${JSON.stringify('Good morning, team. '.repeat(400))};\n`;
const indexHtml = `<!doctype html><html><head><title>Office Workspace</title></head><body>${'<div id="root"></div>'.repeat(40)}</body></html>`;
const serviceWorker = `self.addEventListener('fetch', () => undefined);\n${'// precache list\n'.repeat(100)}`;
const manifest = JSON.stringify({ name: 'Office Workspace', description: 'Tasks, chat and messages. '.repeat(20) });
// Not text: served as it is whatever the browser accepts.
const icon = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

let root = '';
let server: TestServer | undefined;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'office-pwa-dist-'));
  mkdirSync(join(root, 'assets'));
  mkdirSync(join(root, 'icons'));
  writeFileSync(join(root, 'index.html'), indexHtml);
  writeFileSync(join(root, 'sw.js'), serviceWorker);
  writeFileSync(join(root, 'manifest.webmanifest'), manifest);
  writeFileSync(join(root, 'assets/index-C0ffee12.js'), script);
  writeFileSync(join(root, 'icons/icon-192.png'), icon);
  await precompressDir(root);
  server = await startTestServer({ seed: false, config: { staticDir: root } });
});

afterAll(async () => {
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

function get(url: string, acceptEncoding?: string): Promise<LightMyRequestResponse> {
  if (!server) throw new Error('the server is not started');
  return server.app.inject({
    method: 'GET',
    url,
    headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding },
  });
}

describe('the built PWA as the server sends it', () => {
  test('a hashed script goes out as brotli to a browser that accepts it, cached for a year as immutable', async () => {
    const res = await get('/assets/index-C0ffee12.js', 'gzip, deflate, br, zstd');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.rawPayload.length).toBeLessThan(script.length / 10);
    expect(brotliDecompressSync(res.rawPayload).toString()).toBe(script);
  });

  test('a browser that accepts only gzip gets the gzip copy', async () => {
    const res = await get('/assets/index-C0ffee12.js', 'gzip');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['cache-control']).toBe(hashedAssetCaching);
    expect(gunzipSync(res.rawPayload).toString()).toBe(script);
  });

  test('a client that accepts no encoding gets the file itself', async () => {
    for (const acceptEncoding of [undefined, 'identity']) {
      const res = await get('/assets/index-C0ffee12.js', acceptEncoding);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.body).toBe(script);
      expect(res.headers['cache-control']).toBe(hashedAssetCaching);
    }
  });

  test('index.html, the service worker and the manifest are compressed and revalidated on every use', async () => {
    for (const [url, body] of [
      ['/index.html', indexHtml],
      ['/sw.js', serviceWorker],
      ['/manifest.webmanifest', manifest],
    ] as const) {
      const res = await get(url, 'br, gzip');
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-encoding'], url).toBe('br');
      expect(res.headers['cache-control'], url).toBe('no-cache');
      expect(brotliDecompressSync(res.rawPayload).toString(), url).toBe(body);
    }
  });

  test('the app shell at / goes out in each encoding without a process warning (no listener piles up)', async () => {
    const warnings: string[] = [];
    const hear = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', hear);
    try {
      for (const [acceptEncoding, encoding, decode] of [
        ['gzip, deflate, br, zstd', 'br', brotliDecompressSync],
        ['gzip', 'gzip', gunzipSync],
        [undefined, undefined, (body: Buffer) => body],
      ] as const) {
        for (const url of ['/', '/dashboard']) {
          const res = await get(url, acceptEncoding);
          expect(res.statusCode, url).toBe(200);
          expect(res.headers['content-encoding'], url).toBe(encoding);
          expect(res.headers['cache-control'], url).toBe(unhashedCaching);
          expect(decode(res.rawPayload).toString(), url).toBe(indexHtml);
        }
      }
      // Node emits a warning on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', hear);
    }
    expect(warnings).toEqual([]);
  });

  test('a client-side route answers the app shell, compressed and never cached as it is', async () => {
    const res = await get('/dashboard', 'gzip, br');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['cache-control']).toBe(unhashedCaching);
    expect(brotliDecompressSync(res.rawPayload).toString()).toBe(indexHtml);
  });

  test('an image has no compressed copy and is sent as it is, revalidated since its name carries no hash', async () => {
    const res = await get('/icons/icon-192.png', 'br, gzip');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.rawPayload.equals(icon)).toBe(true);
  });

  test('an asset that does not exist is a 404, not the app shell', async () => {
    const res = await get('/assets/index-missing.js', 'br');
    expect(res.statusCode).toBe(404);
    expect(res.json<{ code: string }>().code).toBe('not_found');
  });
});
