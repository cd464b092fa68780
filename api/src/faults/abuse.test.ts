import { afterEach, describe, expect, test } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { ErrorBody } from '@office/sync-protocol';
import { loadConfig } from '../config';
import { RequestRateLimiter } from '../plugins/rate-limit';
import { useSeededServer } from '../test-api-client';
import { bearer, signIn, startTestServer, type TestServer } from '../test-support';

const PER_USER = 200;
const PER_IP = 100;
const ONE_MINUTE = 60_000;

// The limits are off in other test files (one test process is many people on one IP); on here.
const { server, people } = useSeededServer({ config: { rateLimitPerUser: PER_USER, rateLimitPerIp: PER_IP } });

const rateLimited = {
  code: 'rate_limited',
  message: 'Too many requests. Please wait a minute and try again.',
} satisfies ErrorBody;

/** A request as one device would send it: from `ip`, with a token or without. */
const get = (
  app: TestServer['app'],
  url: string,
  { ip = '198.51.100.1', token }: { ip?: string; token?: string } = {},
) => app.inject({ method: 'GET', url, remoteAddress: ip, headers: token === undefined ? {} : bearer(token) });

/** Sends `count` requests one after another and returns their statuses. */
async function statusesOf(count: number, send: () => Promise<LightMyRequestResponse>): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push((await send()).statusCode);
  return statuses;
}

/** A 429 of the request limiter, asking to wait no longer than the rest of the minute. */
function expectRateLimited(res: LightMyRequestResponse, maxWaitSeconds = 60): void {
  expect(res.statusCode).toBe(429);
  expect(res.json()).toEqual(rateLimited);
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(maxWaitSeconds);
}

const allOk = (count: number) => Array<number>(count).fill(200);

describe('requests per minute', () => {
  test('a signed-in user gets 200 requests a minute on all devices together; the 201st is 429, and another user is unaffected', async () => {
    const { app } = server;
    const { alice, bob } = people;

    expect(await statusesOf(PER_USER, () => get(app, '/api/auth/me', { token: alice.token }))).toEqual(allOk(PER_USER));
    expectRateLimited(await get(app, '/api/auth/me', { token: alice.token }));
    // Counted per user, not per device: another address with the same account is limited too.
    expectRateLimited(await get(app, '/api/tasks', { token: alice.token, ip: '198.51.100.2' }));

    expect((await get(app, '/api/auth/me', { token: bob.token })).statusCode).toBe(200);
    // The health check is never counted.
    expect((await get(app, '/api/health', { token: alice.token })).statusCode).toBe(200);
  });

  test('calls without a valid token get 100 a minute per IP address; the 101st is 429, and other addresses are unaffected', async () => {
    const { app } = server;
    const ip = '203.0.113.10';

    expect(await statusesOf(PER_IP, () => get(app, '/api/config', { ip }))).toEqual(allOk(PER_IP));
    expectRateLimited(await get(app, '/api/config', { ip }));
    // A token that does not verify is no user: it counts against the address.
    expectRateLimited(await get(app, '/api/auth/me', { ip, token: 'not.a.token' }));

    expect((await get(app, '/api/config', { ip: '203.0.113.11' })).statusCode).toBe(200);
    // Signed in, the same address counts per user; the health check and avatar images are not counted.
    expect((await get(app, '/api/auth/me', { ip, token: people.carol.token })).statusCode).toBe(200);
    expect((await get(app, '/api/health', { ip })).statusCode).toBe(200);
    expect((await get(app, '/api/auth/avatars/00000000-0000-4000-8000-000000000000.png', { ip })).statusCode).toBe(404);
  });

  test('the limits default to 200 per user and 100 per IP a minute, and 0 from the environment turns one off', () => {
    const dataDir = server.config.dataDir;
    expect(loadConfig({ JWT_SECRET: 'x' }, { dataDir })).toMatchObject({ rateLimitPerUser: 200, rateLimitPerIp: 100 });
    expect(
      loadConfig({ JWT_SECRET: 'x', RATE_LIMIT_PER_USER: '0', RATE_LIMIT_PER_IP: '0' }, { dataDir }),
    ).toMatchObject({ rateLimitPerUser: 0, rateLimitPerIp: 0 });
  });
});

describe('the next minute', () => {
  const open: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((started) => started.close()));
  });

  test('a limited user and a limited address may go again once their minute has passed, and Retry-After counts down to it', async () => {
    let now = Date.parse('2030-01-01T09:00:00Z');
    const limiter = new RequestRateLimiter({ perUser: PER_USER, perIp: PER_IP }, ONE_MINUTE, () => now);
    const started = await startTestServer({ rateLimiter: limiter });
    open.push(started);
    const { app } = started;
    const { token } = await signIn(app, 'alice@demo.local');
    const ip = '203.0.113.20';

    expect(await statusesOf(PER_USER, () => get(app, '/api/auth/me', { token }))).toEqual(allOk(PER_USER));
    expect(await statusesOf(PER_IP, () => get(app, '/api/config', { ip }))).toEqual(allOk(PER_IP));

    now += 45_000;
    const user = await get(app, '/api/auth/me', { token });
    expectRateLimited(user, 15);
    expect(user.headers['retry-after']).toBe('15');
    expect((await get(app, '/api/config', { ip })).headers['retry-after']).toBe('15');

    now += 15_000;
    expect((await get(app, '/api/auth/me', { token })).statusCode).toBe(200);
    expect((await get(app, '/api/config', { ip })).statusCode).toBe(200);
  });
});

// The throttle's other rules (same IP, the right password refused too, another email unaffected,
// the window passing, a success forgetting failures) are in routes/auth/auth.test.ts.
describe('failed sign-ins', () => {
  test('the 6th failed login for one email within 30 minutes is 429, whichever addresses the attempts come from', async () => {
    const login = (ip: string) =>
      server.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: ip,
        payload: { email: 'manager@demo.local', password: 'guessed-wrong' },
      });

    for (let attempt = 1; attempt <= 5; attempt++) {
      const res = await login(`192.0.2.${attempt}`);
      expect(res.statusCode).toBe(401);
      expect(res.json<ErrorBody>().code).toBe('invalid_credentials');
    }
    const sixth = await login('192.0.2.6');
    expect(sixth.statusCode).toBe(429);
    expect(sixth.json()).toEqual({
      code: 'rate_limited',
      message: 'Too many failed sign-in attempts. Please try again in 30 minutes.',
    });
  });
});
