import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { io as connect } from 'socket.io-client';
import { uuidv7, type ChatMessage } from '@office/sync-protocol';
import { precompressDir } from '../../../pwa/build/precompress';
import { bearer, signIn, startTestServer, type TestServer } from '../../test/support';
import { multipartForm, postMultipart, sampleFile } from '../../test/multipart';
import { COMPRESSION_THRESHOLD_BYTES } from './compression';

// Issue 46: API answers (pull pages above all) travel compressed when the client accepts it; small answers, file
// downloads, Socket.IO and the PWA's precompressed files go as before.

const script = `export const greeting = ${JSON.stringify('Good morning, team. '.repeat(400))};\n`;
let root = '';
let server: TestServer | undefined;
let token = '';

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'office-pwa-dist-'));
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><html><body><div id="root"></div></body></html>');
  writeFileSync(join(root, 'assets/index-C0ffee12.js'), script);
  await precompressDir(root);
  server = await startTestServer({ config: { staticDir: root } });
  ({ token } = await signIn(server.app, 'alice@demo.local'));
});

afterAll(async () => {
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

const running = (): TestServer => {
  if (!server) throw new Error('the server is not started');
  return server;
};

const get = (url: string, acceptEncoding?: string) =>
  running().app.inject({
    method: 'GET',
    url,
    headers: { ...bearer(token), ...(acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding }) },
  });

/** A bootstrap page of the demo workspace: every row the first pull sends, as one page. */
const bootstrapUrl = `/api/sync/pull?clientId=${uuidv7()}&cursor=0&limit=1000`;

describe('compressed API answers', () => {
  test('a pull page asked for with brotli comes back brotli-compressed and decodes to the same JSON', async () => {
    const plain = await get(bootstrapUrl);
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.length).toBeGreaterThan(COMPRESSION_THRESHOLD_BYTES);

    const res = await get(bootstrapUrl, 'gzip, deflate, br, zstd');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.rawPayload.length).toBeLessThan(plain.rawPayload.length / 4);
    const decoded = JSON.parse(brotliDecompressSync(res.rawPayload).toString()) as { changes: unknown[] };
    const expected = plain.json<{ changes: unknown[] }>();
    // Each pull reads the snapshot afresh: the same rows, and the rows alone are compared.
    expect(decoded.changes).toEqual(expected.changes);
    expect(decoded.changes.length).toBeGreaterThan(10);
  });

  test('a client that accepts only gzip gets gzip, which decodes to the same JSON', async () => {
    const plain = await get(bootstrapUrl);
    const res = await get(bootstrapUrl, 'gzip');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.rawPayload.length).toBeLessThan(plain.rawPayload.length / 4);
    const decoded = JSON.parse(gunzipSync(res.rawPayload).toString()) as { changes: unknown[] };
    expect(decoded.changes).toEqual(plain.json<{ changes: unknown[] }>().changes);
  });

  test('a small answer goes uncompressed whatever the client accepts', async () => {
    const res = await get('/api/auth/me', 'br, gzip');
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.length).toBeLessThan(COMPRESSION_THRESHOLD_BYTES);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.json<{ user: { email: string } }>().user.email).toBe('alice@demo.local');
  });

  test('an error answer stays readable JSON: `{ code, message }`', async () => {
    const res = await get('/api/sync/pull?clientId=nope', 'br, gzip');
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.json<{ code: string }>().code).toBe('invalid_input');
  });

  test('a file download goes as stored: not compressed, with its length', async () => {
    const session = { token, user: (await signIn(running().app, 'alice@demo.local')).user };
    const text = 'minutes of the meeting\n'.repeat(500);
    const upload = await postMultipart<{ message: ChatMessage }>(
      `${running().url}/api/messages/upload`,
      session,
      multipartForm([{ name: 'minutes.txt', type: 'text/plain', content: new TextEncoder().encode(text) }]),
    );
    expect(upload.status).toBe(201);
    const [attachment] = upload.body.message.attachments;
    if (!attachment) throw new Error('the upload kept no file');
    const res = await get(`/api${attachment.url}`, 'br, gzip');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['content-length']).toBe(String(text.length));
    expect(res.body).toBe(text);
    // A binary file too (octet-stream would otherwise count as compressible).
    const binary = sampleFile('data.zip', 4096);
    const other = await postMultipart<{ message: ChatMessage }>(
      `${running().url}/api/messages/upload`,
      session,
      multipartForm([{ name: 'data.zip', type: 'application/zip', content: binary }]),
    );
    const zip = other.body.message.attachments[0];
    if (!zip) throw new Error('the upload kept no file');
    const download = await get(`/api${zip.url}`, 'br, gzip');
    expect(download.headers['content-encoding']).toBeUndefined();
    expect(Buffer.compare(download.rawPayload, Buffer.from(binary))).toBe(0);
  });

  test('the PWA’s precompressed files are sent once compressed, not compressed again', async () => {
    const res = await running().app.inject({
      method: 'GET',
      url: '/assets/index-C0ffee12.js',
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(res.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(res.rawPayload).toString()).toBe(script);
  });

  test('Socket.IO still connects over long polling and WebSocket from a client that accepts compression', async () => {
    for (const transports of [['polling'], ['websocket']] as const) {
      const socket = connect(running().url, {
        path: '/socket.io',
        transports: [...transports],
        reconnection: false,
        auth: { token },
        extraHeaders: { 'accept-encoding': 'br, gzip' },
      });
      try {
        await new Promise<void>((resolve, reject) => {
          socket.once('connect', resolve);
          socket.once('connect_error', reject);
        });
        expect(socket.connected).toBe(true);
      } finally {
        socket.close();
      }
    }
  });
});
