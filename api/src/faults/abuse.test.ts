import { describe, expect, test, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { conversationIdFor, uuidv7, type ErrorBody, type SendMessageAck } from '@office/sync-protocol';
import { loadConfig } from '../config';
import { directMessages } from '../db/schema';
import { useSeededServer } from '../../test/api-client';
import { bearer, recordEvents, signIn, startTestServer } from '../../test/support';

const PER_USER = 200;
const PER_IP = 100;

// The limits are off in other test files (one test process is many people on one IP); on here.
const { server, people, registerEmployee } = useSeededServer({
  config: { rateLimitPerUser: PER_USER, rateLimitPerIp: PER_IP },
});

const rateLimited = {
  code: 'rate_limited',
  message: 'Too many requests. Please wait a minute and try again.',
} satisfies ErrorBody;

/** A request as one device would send it: from `ip`, with a token or without. */
const get = (url: string, { ip = '198.51.100.1', token }: { ip?: string; token?: string } = {}) =>
  server.app.inject({ method: 'GET', url, remoteAddress: ip, headers: token === undefined ? {} : bearer(token) });

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
    const { alice, bob } = people;

    expect(await statusesOf(PER_USER, () => get('/api/auth/me', { token: alice.token }))).toEqual(allOk(PER_USER));
    expectRateLimited(await get('/api/auth/me', { token: alice.token }));
    // Counted per user, not per device: another address with the same account is limited too.
    expectRateLimited(await get('/api/tasks', { token: alice.token, ip: '198.51.100.2' }));

    expect((await get('/api/auth/me', { token: bob.token })).statusCode).toBe(200);
    // The health check is never counted.
    expect((await get('/api/health', { token: alice.token })).statusCode).toBe(200);
  });

  test('calls without a valid token get 100 a minute per IP address; the 101st is 429, and other addresses are unaffected', async () => {
    const ip = '203.0.113.10';

    expect(await statusesOf(PER_IP, () => get('/api/config', { ip }))).toEqual(allOk(PER_IP));
    expectRateLimited(await get('/api/config', { ip }));
    // A token that does not verify is no user: it counts against the address.
    expectRateLimited(await get('/api/auth/me', { ip, token: 'not.a.token' }));

    expect((await get('/api/config', { ip: '203.0.113.11' })).statusCode).toBe(200);
    // Signed in, the same address counts per user; the health check and avatar images are not counted.
    expect((await get('/api/auth/me', { ip, token: people.carol.token })).statusCode).toBe(200);
    expect((await get('/api/health', { ip })).statusCode).toBe(200);
    expect((await get('/api/auth/avatars/00000000-0000-4000-8000-000000000000.png', { ip })).statusCode).toBe(404);
  });

  test("requests with an ended session's token count against their address, never against the person it names", async () => {
    const owner = await registerEmployee('Olive Owner');
    const ended = await signIn(server.app, owner.email, owner.password);
    const logout = await server.app.inject({ method: 'POST', url: '/api/auth/logout', headers: bearer(ended.token) });
    expect(logout.statusCode).toBe(200);
    const ip = '203.0.113.30';

    // 200 replays of the ended token: 401 while the address has allowance, then 429 for the address.
    const statuses = await statusesOf(PER_USER, () => get('/api/auth/me', { ip, token: ended.token }));
    expect(statuses.slice(0, PER_IP)).toEqual(Array<number>(PER_IP).fill(401));
    expect(statuses.slice(PER_IP)).toEqual(Array<number>(PER_USER - PER_IP).fill(429));
    // The owner's allowance lost only the logout, made while that session was live.
    const owners = await statusesOf(PER_USER, () => get('/api/auth/me', { token: owner.token }));
    expect(owners).toEqual([...allOk(PER_USER - 1), 429]);
  });

  test('the limits default to 200 per user and 100 per IP a minute, and 0 from the environment turns one off', () => {
    const dataDir = server.config.dataDir;
    expect(loadConfig({ JWT_SECRET: 'x' }, { dataDir })).toMatchObject({ rateLimitPerUser: 200, rateLimitPerIp: 100 });
    expect(
      loadConfig({ JWT_SECRET: 'x', RATE_LIMIT_PER_USER: '0', RATE_LIMIT_PER_IP: '0' }, { dataDir }),
    ).toMatchObject({ rateLimitPerUser: 0, rateLimitPerIp: 0 });
  });
});

describe('socket writes', () => {
  test('socket writes share the per-person allowance with HTTP: a flood of 400 direct messages stops at it with rate_limited errors', async () => {
    const sender = await registerEmployee('Flo Flood');
    const reader = await registerEmployee('Rita Reader');
    const started = await server.app.inject({
      method: 'POST',
      url: '/api/direct-messages/conversations',
      headers: bearer(sender.token),
      payload: { recipientId: reader.user.id },
    });
    expect(started.statusCode).toBe(201);
    const conversationId = conversationIdFor(sender.user.id, reader.user.id);
    const socket = await server.connect(sender.token);
    const errors = recordEvents(socket, 'error');

    const acks = await Promise.all(
      Array.from(
        { length: 400 },
        (_, i) =>
          socket.emitWithAck('send-message', {
            conversationId,
            id: uuidv7(),
            text: `flood ${i}`,
          }) as Promise<SendMessageAck>,
      ),
    );

    const sent = acks.filter((ack) => 'message' in ack);
    const refused = acks.filter((ack) => 'error' in ack);
    // One HTTP request (starting the conversation) came out of the same minute's allowance.
    expect(sent).toHaveLength(PER_USER - 1);
    expect(refused).toHaveLength(400 - (PER_USER - 1));
    expect(refused.every((ack) => 'error' in ack && ack.error.code === 'rate_limited')).toBe(true);
    expect(errors.filter((error) => error.code === 'rate_limited')).toHaveLength(refused.length);
    const stored = server.app.db.select().from(directMessages).where(eq(directMessages.conversationId, conversationId));
    expect(stored.all()).toHaveLength(PER_USER - 1);
    // The allowance is spent for HTTP too, and for the other socket writes.
    expectRateLimited(await get('/api/auth/me', { token: sender.token }));
    socket.emit('typing-start', conversationId);
    await vi.waitFor(() => expect(errors.length).toBe(refused.length + 1));
    expect(errors.at(-1)).toEqual(rateLimited);
  });
});

describe('the next minute', () => {
  test('a limited user and a limited address may go again once their minute has passed, and Retry-After counts down to it', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2030-01-01T09:00:00Z') });
    const started = await startTestServer({ config: { rateLimitPerUser: PER_USER, rateLimitPerIp: PER_IP } });
    try {
      const { app } = started;
      const at = (url: string, options: { ip?: string; token?: string } = {}) =>
        app.inject({
          method: 'GET',
          url,
          remoteAddress: options.ip ?? '198.51.100.1',
          headers: options.token ? bearer(options.token) : {},
        });
      const { token } = await signIn(app, 'alice@demo.local');
      const ip = '203.0.113.20';

      expect(await statusesOf(PER_USER, () => at('/api/auth/me', { token }))).toEqual(allOk(PER_USER));
      expect(await statusesOf(PER_IP, () => at('/api/config', { ip }))).toEqual(allOk(PER_IP));

      vi.setSystemTime(Date.parse('2030-01-01T09:00:45Z'));
      const user = await at('/api/auth/me', { token });
      expectRateLimited(user, 15);
      expect(user.headers['retry-after']).toBe('15');
      expect((await at('/api/config', { ip })).headers['retry-after']).toBe('15');

      vi.setSystemTime(Date.parse('2030-01-01T09:01:00Z'));
      expect((await at('/api/auth/me', { token })).statusCode).toBe(200);
      expect((await at('/api/config', { ip })).statusCode).toBe(200);
    } finally {
      await started.close();
      vi.useRealTimers();
    }
  });
});

describe('behind a balancer', () => {
  const balancer = '10.0.0.5';
  const fromBalancer = (app: FastifyInstance, forwardedFor: string) =>
    app.inject({
      method: 'GET',
      url: '/api/config',
      remoteAddress: balancer,
      headers: { 'x-forwarded-for': forwardedFor },
    });

  test.each([
    ["the balancer's range", ['10.0.0.0/8']],
    ['one hop', 1],
  ])('with TRUST_PROXY as %s, each address X-Forwarded-For names has its own allowance', async (_what, trustProxy) => {
    const started = await startTestServer({ seed: false, config: { rateLimitPerIp: PER_IP, trustProxy } });
    try {
      const { app } = started;
      expect(await statusesOf(PER_IP, () => fromBalancer(app, '203.0.113.40'))).toEqual(allOk(PER_IP));
      expectRateLimited(await fromBalancer(app, '203.0.113.40'));
      // Another person behind the same balancer is not limited by the first one's requests.
      expect((await fromBalancer(app, '203.0.113.41')).statusCode).toBe(200);
      // A client that writes its own header is counted by the address the balancer appended last.
      expectRateLimited(await fromBalancer(app, '198.51.100.99, 203.0.113.40'));
    } finally {
      await started.close();
    }
  });

  test('without TRUST_PROXY the header is not read: a made-up X-Forwarded-For does not buy a new allowance', async () => {
    const started = await startTestServer({ seed: false, config: { rateLimitPerIp: PER_IP } });
    try {
      const { app } = started;
      const forged = (index: number) => fromBalancer(app, `203.0.113.${index % 250}`);
      let sent = 0;
      expect(await statusesOf(PER_IP, () => forged(sent++))).toEqual(allOk(PER_IP));
      expectRateLimited(await forged(sent++));
    } finally {
      await started.close();
    }
  });

  test('TRUST_PROXY takes hops or addresses and ranges, and refuses anything else by name', () => {
    const dataDir = server.config.dataDir;
    const trustOf = (value: string | undefined) =>
      loadConfig({ JWT_SECRET: 'x', TRUST_PROXY: value }, { dataDir }).trustProxy;
    expect(trustOf(undefined)).toBe(false);
    expect(trustOf('1')).toBe(1);
    expect(trustOf('loopback, 10.0.0.0/8, fd00::/8')).toEqual(['loopback', '10.0.0.0/8', 'fd00::/8']);
    for (const bad of ['true', '10.0.0.0/33', 'balancer.local']) expect(() => trustOf(bad)).toThrow(`not ${bad}`);
  });
});

// The throttle's other rules (per address, slow-down, the window passing, a success forgetting failures) are
// in routes/auth/auth.test.ts.
describe('failed sign-ins', () => {
  test('5 failed logins for one email from one address make the 6th 429 there, while the owner signs in from another address', async () => {
    const login = (ip: string, password: string) =>
      server.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        remoteAddress: ip,
        payload: { email: 'manager@demo.local', password },
      });

    for (let attempt = 1; attempt <= 5; attempt++) {
      const res = await login('192.0.2.1', 'guessed-wrong');
      expect(res.statusCode).toBe(401);
      expect(res.json<ErrorBody>().code).toBe('invalid_credentials');
    }
    const sixth = await login('192.0.2.1', 'demo1234');
    expect(sixth.statusCode).toBe(429);
    expect(sixth.headers['retry-after']).toBe('1800');
    expect(sixth.json()).toEqual({
      code: 'rate_limited',
      message: 'Too many failed sign-in attempts. Please try again in 30 minutes.',
    });
    // The failures for the email only slow it down elsewhere: the right password signs in (in about 1 s).
    expect((await login('192.0.2.99', 'demo1234')).statusCode).toBe(200);
  });
});
