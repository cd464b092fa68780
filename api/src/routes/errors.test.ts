import { afterEach, describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { ErrorBody, ErrorCode } from '@office/sync-protocol';
import { users } from '../db/schema';
import { bearer, signIn, startTestServer, type TestServer } from '../../test/support';

let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(): Promise<TestServer> {
  server = await startTestServer();
  return server;
}

/** Every failure answers `{ code, message }`, never a stack trace and never a 500. */
function expectErrorShape(res: LightMyRequestResponse): ErrorBody {
  expect(res.statusCode).toBeGreaterThanOrEqual(400);
  expect(res.statusCode).toBeLessThan(500);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).not.toMatch(/\bat .+:\d+:\d+/);
  expect(res.body).not.toMatch(/"stack"/);
  expect(res.body).not.toMatch(/node_modules|\/src\//);
  const body = res.json<ErrorBody>();
  expect(typeof body.code).toBe('string');
  expect(typeof body.message).toBe('string');
  expect(body.message.length).toBeGreaterThan(0);
  return body;
}

function expectError(res: LightMyRequestResponse, status: number, code: ErrorCode, message?: string): ErrorBody {
  const body = expectErrorShape(res);
  expect(res.statusCode).toBe(status);
  expect(body.code).toBe(code);
  if (message !== undefined) expect(body.message).toBe(message);
  return body;
}

const postRaw = (app: TestServer['app'], url: string, payload: string, contentType: string) =>
  app.inject({ method: 'POST', url, payload, headers: { 'content-type': contentType } });

const userCount = async (s: TestServer) => (await s.app.db.select().from(users)).length;

describe('request errors', () => {
  test('malformed JSON answers 400 malformed_json', async () => {
    const { app } = await start();
    const res = await postRaw(app, '/api/auth/login', '{"email": "alice@demo.local", "password": ', 'application/json');
    expectError(res, 400, 'malformed_json', 'The request body is not valid JSON.');
  });

  test('a JSON content type with an empty body is no body: the route names the missing fields (400, not 500)', async () => {
    const { app } = await start();
    const res = await postRaw(app, '/api/auth/login', '', 'application/json');
    expectError(res, 400, 'invalid_input', 'Please fill in all fields');
  });

  test('a body over 1 MB answers 413 payload_too_large and creates nothing', async () => {
    const s = await start();
    const before = await userCount(s);
    const payload = JSON.stringify({ name: 'Big', email: 'big@example.com', password: 'x'.repeat(1_100_000) });
    const res = await postRaw(s.app, '/api/auth/register', payload, 'application/json');

    expectError(res, 413, 'payload_too_large', 'The request is too large.');
    expect(await userCount(s)).toBe(before);
  });

  test('a body just under 1 MB is read, then refused by validation with 400', async () => {
    const { app } = await start();
    const payload = JSON.stringify({ name: 'Big', email: 'big@example.com', password: 'x'.repeat(1_000_000) });
    // Too long a password for the schema, but not too large for the server.
    expectError(await postRaw(app, '/api/auth/register', payload, 'application/json'), 400, 'invalid_input');
  });

  test.each(['GET /api/nope', 'POST /api/auth/nope', 'GET /api/auth', 'DELETE /api/health'])(
    'an unknown API route (%s) answers 404 not_found',
    async (route) => {
      const { app } = await start();
      const [method, url] = route.split(' ') as [InjectOptions['method'] & string, string];
      const res = await app.inject({ method, url });
      expectError(res, 404, 'not_found');
      expect(res.json<ErrorBody>().message).toContain(url);
    },
  );

  test('a text/plain body to /api/auth/login answers a 4xx with code and message', async () => {
    const { app } = await start();
    const res = await postRaw(app, '/api/auth/login', 'email=alice@demo.local&password=demo1234', 'text/plain');
    expect([400, 415]).toContain(res.statusCode);
    expect(['invalid_input', 'unsupported_media_type']).toContain(expectErrorShape(res).code);
  });

  test('an unsupported content type answers 415 unsupported_media_type', async () => {
    const { app } = await start();
    const res = await postRaw(
      app,
      '/api/auth/login',
      '<login><email>alice@demo.local</email></login>',
      'application/xml',
    );
    expectError(res, 415, 'unsupported_media_type', 'This type of content is not supported.');
  });

  test.each([
    ['an array', '[{"email":"alice@demo.local","password":"demo1234"}]'],
    ['a number', '42'],
    ['a string', '"alice@demo.local"'],
    ['null', 'null'],
    ['true', 'true'],
  ])('a JSON body that is %s answers 400', async (_what, payload) => {
    const s = await start();
    const before = await userCount(s);
    const { token, user } = await signIn(s.app, 'alice@demo.local');
    const requests: { method: 'POST' | 'PUT'; url: string; headers?: Record<string, string> }[] = [
      { method: 'POST', url: '/api/auth/login' },
      { method: 'POST', url: '/api/auth/register' },
      { method: 'PUT', url: '/api/auth/updatedetails', headers: bearer(token) },
    ];
    for (const request of requests) {
      const res = await s.app.inject({
        ...request,
        payload,
        headers: { ...request.headers, 'content-type': 'application/json' },
      });
      expect(res.statusCode, request.url).toBe(400);
      expect(expectErrorShape(res).code, request.url).toBe('invalid_input');
    }
    expect(await userCount(s)).toBe(before);
    const [row] = await s.app.db.select().from(users).where(eq(users.id, user.id));
    expect(row).toMatchObject({
      name: user.name,
      email: user.email,
    });
  });

  test('deeply nested and odd bodies never cause a 500 or a stack trace', async () => {
    const { app } = await start();
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const odd: [string, string, string][] = [
      ['/api/auth/login', deep, 'application/json'],
      ['/api/auth/login', '{"__proto__":{"admin":true},"email":"a@b.c","password":"x"}', 'application/json'],
      ['/api/auth/register', '{"name":{"$gt":""},"email":"a@b.c","password":"secret99"}', 'application/json'],
      ['/api/auth/login', '\u0000\u0001', 'application/json'],
      ['/api/auth/login', '{"email":"a@b.c","password":"x"}', 'application/json; charset=utf-16'],
      ['/api/auth/login', 'x', 'multipart/form-data; boundary=zzz'],
    ];
    for (const [url, payload, contentType] of odd) {
      const res = await postRaw(app, url, payload, contentType);
      expect(res.statusCode, `${url} ${contentType} ${payload.slice(0, 20)}`).toBeLessThan(500);
      if (res.statusCode >= 400) expectErrorShape(res);
    }
  });
});

describe('health and headers', () => {
  test('GET /api/health answers ok', async () => {
    const { app } = await start();
    const res = await app.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
  });

  test('API answers carry the headers of data: nothing may frame, sniff or embed them from elsewhere', async () => {
    const { app } = await start();
    for (const url of ['/api/health', '/api/nope']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.headers['content-security-policy'], url).toBe("default-src 'none';frame-ancestors 'none'");
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['x-frame-options'], url).toBe('DENY');
      expect(res.headers['cross-origin-resource-policy'], url).toBe('same-origin');
      expect(res.headers['x-powered-by'], url).toBeUndefined();
    }
  });

  test('everything else carries the document policy', async () => {
    const { app } = await start();
    for (const url of ['/', '/tasks', '/nope.js']) {
      const res = await app.inject({ method: 'GET', url });
      const csp = res.headers['content-security-policy'];
      expect(typeof csp, url).toBe('string');
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      expect(res.headers['cross-origin-opener-policy'], url).toBe('same-origin');
      expect(res.headers['referrer-policy'], url).toBe('no-referrer');
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['x-powered-by'], url).toBeUndefined();
    }
  });

  test('the listening server answers over real HTTP with the same error shape', async () => {
    const { url } = await start();
    const res = await fetch(`${url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.json()).toEqual({ code: 'malformed_json', message: 'The request body is not valid JSON.' });
  });
});
