import { afterEach, describe, expect, test, vi } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { AuthResponse, ErrorBody } from '@office/sync-protocol';
import { DEMO_PASSWORD } from '../../db/seed';
import { bearer, startTestServer, type TestServer } from '../../../test/support';
import { deviceCookieName } from './device-cookie';

const open: TestServer[] = [];

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(open.splice(0).map((server) => server.close()));
});

/** A small hourly allowance per address and no per-email slow-down, so the limits are reached at full speed. */
const perAddress = 12;
async function start(): Promise<TestServer> {
  const server = await startTestServer({
    throttle: { slowDown: () => 0, failuresPerAddressHour: perAddress },
  });
  open.push(server);
  return server;
}

const office = '198.51.100.7';

/** A browser: its address and the cookies the server set on it, sent back with each sign-in as a browser does. */
interface Browser {
  ip: string;
  cookies: Record<string, string>;
}
const browser = (ip = office): Browser => ({ ip, cookies: {} });

async function signInFrom(
  server: TestServer,
  from: Browser,
  email: string,
  password: string,
): Promise<LightMyRequestResponse> {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    remoteAddress: from.ip,
    cookies: from.cookies,
    payload: { email, password },
  });
  for (const cookie of res.cookies) from.cookies[cookie.name] = cookie.value;
  return res;
}

/** Failed sign-ins from the address over several emails, 4 each, under the per-email limit: the address's count. */
async function exhaustAddress(server: TestServer, ip: string): Promise<void> {
  const attacker = browser(ip);
  for (let attempt = 1; attempt <= perAddress; attempt++) {
    const res = await signInFrom(server, attacker, `user${Math.ceil(attempt / 4)}@example.com`, 'guessed');
    expect(res.statusCode).toBe(401);
  }
}

const refusal = (res: LightMyRequestResponse) => ({ status: res.statusCode, ...res.json<ErrorBody>() });

describe('device cookies (OWASP): trusted browsers get past lockouts aimed at their address', () => {
  test('after the address hit its failure limit, a browser that signed in before gets in; others are let through one at a time', async () => {
    const server = await start();
    const alicesLaptop = browser();
    expect((await signInFrom(server, alicesLaptop, 'alice@demo.local', DEMO_PASSWORD)).statusCode).toBe(200);
    const [cookie] = (await signInFrom(server, alicesLaptop, 'alice@demo.local', DEMO_PASSWORD)).cookies;
    expect(cookie).toMatchObject({ name: deviceCookieName, httpOnly: true, sameSite: 'Strict', path: '/api/auth' });
    expect(cookie?.maxAge).toBe(90 * 24 * 60 * 60);

    await exhaustAddress(server, office);

    // The attacker's next guess takes the address's one turn; the next untrusted sign-in waits for the next turn,
    // even with the right password and another account.
    expect((await signInFrom(server, browser(), 'user9@example.com', 'guessed')).statusCode).toBe(401);
    const waiting = await signInFrom(server, browser(), 'alice@demo.local', DEMO_PASSWORD);
    expect(refusal(waiting)).toEqual({
      status: 429,
      code: 'rate_limited',
      message: 'Too many failed sign-in attempts from this network. Please try again in 10 seconds.',
    });
    expect(Number(waiting.headers['retry-after'])).toBeLessThanOrEqual(10);
    // Alice's own browser is not held up by the address; her proof does not vouch for the manager.
    const trusted = await signInFrom(server, alicesLaptop, 'alice@demo.local', DEMO_PASSWORD);
    expect(trusted.statusCode).toBe(200);
    expect(trusted.json<AuthResponse>().user.email).toBe('alice@demo.local');
    expect((await signInFrom(server, alicesLaptop, 'manager@demo.local', DEMO_PASSWORD)).statusCode).toBe(429);
  });

  test('a slowed address gets its next turn once the interval has passed, rather than after an hour', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2030-01-01T09:00:00Z') });
    const server = await start();
    await exhaustAddress(server, office);
    expect((await signInFrom(server, browser(), 'user9@example.com', 'guessed')).statusCode).toBe(401);
    expect((await signInFrom(server, browser(), 'bob@demo.local', DEMO_PASSWORD)).statusCode).toBe(429);
    vi.setSystemTime(Date.parse('2030-01-01T09:00:11Z'));
    expect((await signInFrom(server, browser(), 'bob@demo.local', DEMO_PASSWORD)).statusCode).toBe(200);
  });

  test('failures for the email from elsewhere do not lock the trusted browser out; its own 5 failures lock its proof alone', async () => {
    const server = await start();
    const laptop = browser('203.0.113.10');
    expect((await signInFrom(server, laptop, 'carol@demo.local', DEMO_PASSWORD)).statusCode).toBe(200);

    // The same office address guessed Carol's password until that pair is locked.
    const office = browser('203.0.113.10');
    for (let attempt = 1; attempt <= 5; attempt++)
      expect((await signInFrom(server, office, 'carol@demo.local', 'guessed')).statusCode).toBe(401);
    expect((await signInFrom(server, office, 'carol@demo.local', DEMO_PASSWORD)).statusCode).toBe(429);
    expect((await signInFrom(server, laptop, 'carol@demo.local', DEMO_PASSWORD)).statusCode).toBe(200);

    // Someone at the laptop guesses: five failures lock that proof, and only it.
    for (let attempt = 1; attempt <= 5; attempt++)
      expect((await signInFrom(server, laptop, 'carol@demo.local', 'guessed')).statusCode).toBe(401);
    expect(refusal(await signInFrom(server, laptop, 'carol@demo.local', DEMO_PASSWORD))).toEqual({
      status: 429,
      code: 'rate_limited',
      message: 'Too many failed sign-in attempts. Please try again in 30 minutes.',
    });
    expect((await signInFrom(server, browser('192.0.2.44'), 'carol@demo.local', DEMO_PASSWORD)).statusCode).toBe(200);
  });

  test('a proof that was tampered with, belongs to another account or has expired is not trusted', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2030-01-01T09:00:00Z') });
    const server = await start();
    const laptop = browser();
    expect((await signInFrom(server, laptop, 'bob@demo.local', DEMO_PASSWORD)).statusCode).toBe(200);
    const proof = laptop.cookies[deviceCookieName] ?? '';
    await exhaustAddress(server, office);
    expect((await signInFrom(server, browser(), 'user9@example.com', 'guessed')).statusCode).toBe(401);

    const tampered = `${proof.slice(0, -1)}${proof.endsWith('A') ? 'B' : 'A'}`;
    const expiresLater = proof.replace(/\.(\d+)\./, (_match, expiry: string) => `.${Number(expiry) + 1}.`);
    for (const forged of [tampered, expiresLater, 'nonsense'])
      expect(
        (
          await signInFrom(
            server,
            { ip: office, cookies: { [deviceCookieName]: forged } },
            'bob@demo.local',
            DEMO_PASSWORD,
          )
        ).statusCode,
      ).toBe(429);

    vi.setSystemTime(Date.parse('2030-04-01T09:00:01Z'));
    await exhaustAddress(server, office);
    expect((await signInFrom(server, browser(), 'user9@example.com', 'guessed')).statusCode).toBe(401);
    expect(
      (
        await signInFrom(
          server,
          { ip: office, cookies: { [deviceCookieName]: proof } },
          'bob@demo.local',
          DEMO_PASSWORD,
        )
      ).statusCode,
    ).toBe(429);
  });

  test('a new password revokes the proofs of every other browser; the browser that set it stays trusted', async () => {
    const server = await start();
    const phone = browser();
    const desk = browser();
    const first = await signInFrom(server, desk, 'manager@demo.local', DEMO_PASSWORD);
    expect((await signInFrom(server, phone, 'manager@demo.local', DEMO_PASSWORD)).statusCode).toBe(200);

    const changed = await server.app.inject({
      method: 'PUT',
      url: '/api/auth/updatepassword',
      remoteAddress: office,
      cookies: desk.cookies,
      headers: bearer(first.json<AuthResponse>().token),
      payload: { currentPassword: DEMO_PASSWORD, newPassword: 'new-secret-99' },
    });
    expect(changed.statusCode).toBe(200);
    for (const cookie of changed.cookies) desk.cookies[cookie.name] = cookie.value;

    await exhaustAddress(server, office);
    expect((await signInFrom(server, browser(), 'user9@example.com', 'guessed')).statusCode).toBe(401);
    expect((await signInFrom(server, desk, 'manager@demo.local', 'new-secret-99')).statusCode).toBe(200);
    expect((await signInFrom(server, phone, 'manager@demo.local', 'new-secret-99')).statusCode).toBe(429);
  });

  test('a browser keeps the proofs of the accounts that signed in on it, each trusted for its own account', async () => {
    const server = await start();
    const sharedDesk = browser();
    for (const email of ['alice@demo.local', 'bob@demo.local'])
      expect((await signInFrom(server, sharedDesk, email, DEMO_PASSWORD)).statusCode).toBe(200);
    await exhaustAddress(server, office);
    expect((await signInFrom(server, browser(), 'user9@example.com', 'guessed')).statusCode).toBe(401);
    for (const email of ['alice@demo.local', 'bob@demo.local'])
      expect((await signInFrom(server, sharedDesk, email, DEMO_PASSWORD)).statusCode).toBe(200);
  });
});
