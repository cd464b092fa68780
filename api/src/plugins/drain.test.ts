import Fastify, { type FastifyInstance } from 'fastify';
import { request } from 'node:http';
import { afterEach, expect, test } from 'vitest';
import { drainPlugin } from './drain';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** A server with the drain plugin and a route whose handler runs until the test lets it finish. */
async function serverWithHeldRoute() {
  const warnings: string[] = [];
  app = Fastify({ logger: { level: 'warn', stream: { write: (line: string) => warnings.push(line) } } });
  await app.register(drainPlugin);
  let entered: () => void = () => undefined;
  const handlerEntered = new Promise<void>((resolve) => (entered = resolve));
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let finished: () => void = () => undefined;
  const handlerFinished = new Promise<void>((resolve) => (finished = resolve));
  app.post('/held', async () => {
    entered();
    await released;
    finished();
    return { done: true };
  });
  const url = new URL(await app.listen({ port: 0, host: '127.0.0.1' }));
  return { app, url, warnings, handlerEntered, release, handlerFinished };
}

/** Sends a request and leaves once `when` resolves, as a phone whose Wi-Fi drops does; resolves once its connection is closed. */
async function leave(url: URL, when: Promise<void>): Promise<void> {
  const client = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } });
  client.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
  client.end(JSON.stringify({ text: 'hello' }));
  await when;
  client.destroy();
  await closed;
}

test('a client that leaves while its handler runs is in flight until the handler is done', async () => {
  const server = await serverWithHeldRoute();
  await leave(new URL('/held', server.url), server.handlerEntered);
  let drained = false;
  const draining = server.app.drain(60_000).then(() => (drained = true));
  // The handler still runs: its write must not be cut off by the close that follows a drain.
  await new Promise((resolve) => setImmediate(resolve));
  expect(drained).toBe(false);
  server.release();
  await server.handlerFinished;
  // Its answer finds no one; counted in flight forever, it would make this wait out its whole minute, then cut every
  // connection (Fastify's onResponse does not come for it).
  await draining;
  expect(server.warnings.join('')).not.toContain('still running');
});

test('drain waits for a request whose handler is still running', async () => {
  const server = await serverWithHeldRoute();
  const answer = fetch(new URL('/held', server.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'hello' }),
  });
  await server.handlerEntered;
  let drained = false;
  const draining = server.app.drain(60_000).then(() => (drained = true));
  // A second request while draining is turned away; the first one is still being handled.
  const refused = await fetch(new URL('/held', server.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(refused.status).toBe(503);
  expect(drained).toBe(false);
  server.release();
  expect((await answer).status).toBe(200);
  await draining;
  expect(drained).toBe(true);
});
