import { afterEach, describe, expect, test, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import { decodeJwt, SignJWT, UnsecuredJWT } from 'jose';
import type { LightMyRequestResponse } from 'fastify';
import type { AuthResponse, ErrorBody, ErrorCode, User } from '@office/sync-protocol';
import { sessions, users } from '../../db/schema';
import { DEMO_PASSWORD } from '../../db/seed';
import {
  defaultSlowDown,
  loginFailuresPerAddressHour,
  slowedAddressIntervalSeconds,
} from '../../domain/users/login-throttle';
import { KEPT_ROW_MS } from '../../db/kept-rows';
import { startGoogleJwks, TEST_GOOGLE_CLIENT_ID, type GoogleJwks } from '../../../test/google-jwks';
import { bearer, signIn, startTestServer, type TestServer } from '../../../test/support';

const open: { close(): Promise<void> }[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((closable) => closable.close()));
});

async function start(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const server = await startTestServer(options);
  open.push(server);
  return server;
}

async function startWithGoogle(): Promise<{ server: TestServer; google: GoogleJwks }> {
  const google = await startGoogleJwks();
  open.push(google);
  const server = await start({ config: { googleClientId: TEST_GOOGLE_CLIENT_ID, googleJwksUrl: google.url } });
  return { server, google };
}

const rowByEmail = async (server: TestServer, email: string) =>
  (await server.app.db.select().from(users).where(eq(users.email, email)))[0];

const allRows = (server: TestServer) => server.app.db.select().from(users);

const post = (server: TestServer, url: string, payload: object | string) =>
  server.app.inject({ method: 'POST', url, payload });

const get = (server: TestServer, url: string, token?: string) =>
  server.app.inject({ method: 'GET', url, headers: token === undefined ? {} : bearer(token) });

function expectError(
  res: LightMyRequestResponse,
  status: number,
  code: ErrorCode,
  message?: string | RegExp,
): ErrorBody {
  expect(res.statusCode).toBe(status);
  const body = res.json<ErrorBody>();
  expect(body.code).toBe(code);
  expect(typeof body.message).toBe('string');
  if (typeof message === 'string') expect(body.message).toBe(message);
  else if (message) expect(body.message).toMatch(message);
  return body;
}

const unauthenticated = (res: LightMyRequestResponse) =>
  expectError(res, 401, 'unauthenticated', 'Please sign in to continue.');

const register = (server: TestServer, payload: Record<string, unknown>) => post(server, '/api/auth/register', payload);
const login = (server: TestServer, email: string, password: string, remoteAddress = '198.51.100.7') =>
  server.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password }, remoteAddress });

const SECRET_KEY = /pass(word)?|hash|token_?version|^ver$/i;

/**
 * Walks an answer: no key names a password, hash or token version (a true/false flag such as passwordChangeRequired
 * holds no secret); no value holds a password or an argon2 hash.
 */
function expectNoSecrets(value: unknown, passwords: string[], path = '$'): void {
  if (typeof value === 'string') {
    expect(value, path).not.toContain('$argon2');
    for (const password of passwords) expect(value, path).not.toContain(password);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => expectNoSecrets(item, passwords, `${path}[${index}]`));
    return;
  }
  if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (typeof inner !== 'boolean') expect(key, `${path}.${key}`).not.toMatch(SECRET_KEY);
      if (key === 'token' && typeof inner === 'string') {
        // A JWT is base64: check what it carries instead of its characters.
        expect(Object.keys(decodeJwt(inner)).sort()).toEqual(['exp', 'iat', 'sid', 'sub']);
      } else {
        expectNoSecrets(inner, passwords, `${path}.${key}`);
      }
    }
  }
}

describe('POST /api/auth/register', () => {
  test('registration creates an employee with an argon2id hash and answers a token that works', async () => {
    const server = await start();
    const res = await register(server, { name: 'Dana Doe', email: 'dana@example.com', password: 'secret99' });

    expect(res.statusCode).toBe(201);
    const body = res.json<AuthResponse>();
    expect(body.ok).toBe(true);
    expect(body.message).toBe('Account created successfully');
    expect(body.user).toMatchObject({ name: 'Dana Doe', email: 'dana@example.com', role: 'employee' });
    expect(body.user._id).toBe(body.user.id);

    const row = await rowByEmail(server, 'dana@example.com');
    expect(row).toMatchObject({ id: body.user.id, name: 'Dana Doe', role: 'employee', deactivatedAt: null });
    expect(row?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(row?.passwordHash).not.toContain('secret99');

    const me = await get(server, '/api/auth/me', body.token);
    expect(me.statusCode).toBe(200);
    expect(me.json<{ user: User }>().user.id).toBe(body.user.id);
    // The new password signs in too.
    expect((await login(server, 'dana@example.com', 'secret99')).statusCode).toBe(200);
  });

  test('registration trims and lower-cases the email', async () => {
    const server = await start();
    const res = await register(server, { name: 'Dana Doe', email: '  Dana@Example.COM ', password: 'secret99' });

    expect(res.statusCode).toBe(201);
    expect(res.json<AuthResponse>().user.email).toBe('dana@example.com');
    expect(await rowByEmail(server, 'dana@example.com')).toBeDefined();
    expect(await rowByEmail(server, '  Dana@Example.COM ')).toBeUndefined();
  });

  test('an email that exists in another case is refused with 409 email_taken', async () => {
    const server = await start();
    const before = (await allRows(server)).length;
    const res = await register(server, { name: 'Other Alice', email: ' ALICE@demo.local ', password: 'secret99' });

    expectError(res, 409, 'email_taken', 'An account with this email already exists');
    expect(await allRows(server)).toHaveLength(before);
    expect((await rowByEmail(server, 'alice@demo.local'))?.name).toBe('Alice Johnson');
  });

  test.each([
    ['the name', { email: 'dana@example.com', password: 'secret99' }],
    ['the email', { name: 'Dana Doe', password: 'secret99' }],
    ['the password', { name: 'Dana Doe', email: 'dana@example.com' }],
    ['every field', {}],
    ['a blank name', { name: '   ', email: 'dana@example.com', password: 'secret99' }],
  ])('registration without %s asks to fill in all fields', async (_what, payload) => {
    const server = await start();
    const before = (await allRows(server)).length;

    expectError(await register(server, payload), 400, 'invalid_input', 'Please fill in all fields');
    expect(await allRows(server)).toHaveLength(before);
  });

  test('a password of 5 characters is refused, naming the 6-character minimum', async () => {
    const server = await start();
    const res = await register(server, { name: 'Dana Doe', email: 'dana@example.com', password: '12345' });

    expectError(res, 400, 'invalid_input', /6 characters/);
    expect(await rowByEmail(server, 'dana@example.com')).toBeUndefined();
    // Six is enough.
    expect(
      (await register(server, { name: 'Dana Doe', email: 'dana@example.com', password: '123456' })).statusCode,
    ).toBe(201);
  });

  test('an invalid email is refused', async () => {
    const server = await start();
    const before = (await allRows(server)).length;
    const res = await register(server, { name: 'Dana Doe', email: 'dana-at-example', password: 'secret99' });

    expectError(res, 400, 'invalid_input', 'Please enter a valid email address');
    expect(await allRows(server)).toHaveLength(before);
  });

  test.each([
    ['a numeric name', { name: 123, email: 'dana@example.com', password: 'secret99' }],
    ['an array email', { name: 'Dana', email: ['dana@example.com'], password: 'secret99' }],
    ['an object password', { name: 'Dana', email: 'dana@example.com', password: { length: 8 } }],
    ['a null name', { name: null, email: 'dana@example.com', password: 'secret99' }],
  ])('registration with %s is a 400, never a 500', async (_what, payload) => {
    const server = await start();
    const before = (await allRows(server)).length;

    const body = expectError(await register(server, payload), 400, 'invalid_input');
    expect(body.message.length).toBeGreaterThan(0);
    expect(await allRows(server)).toHaveLength(before);
  });

  test('two registrations of one email at once give one account and one 409', async () => {
    const server = await start();
    const results = await Promise.all([
      register(server, { name: 'Dana One', email: 'dana@example.com', password: 'secret99' }),
      register(server, { name: 'Dana Two', email: 'DANA@example.com', password: 'secret99' }),
    ]);

    expect(results.map((res) => res.statusCode).sort()).toEqual([201, 409]);
    const refused = results.find((res) => res.statusCode === 409);
    if (refused) expectError(refused, 409, 'email_taken', 'An account with this email already exists');
    expect((await allRows(server)).filter((row) => row.email === 'dana@example.com')).toHaveLength(1);
  });

  test('registration cannot choose a role: the account is an employee', async () => {
    const server = await start();
    const res = await register(server, {
      name: 'Sneaky',
      email: 'sneaky@example.com',
      password: 'secret99',
      role: 'admin',
    });

    expect(res.statusCode).toBe(201);
    expect(res.json<AuthResponse>().user.role).toBe('employee');
    expect((await rowByEmail(server, 'sneaky@example.com'))?.role).toBe('employee');
  });
});

describe('POST /api/auth/login', () => {
  test('the right email and password answer the user and a working token', async () => {
    const server = await start();
    const res = await login(server, ' Alice@Demo.Local ', DEMO_PASSWORD);

    expect(res.statusCode).toBe(200);
    const body = res.json<AuthResponse>();
    expect(body.ok).toBe(true);
    expect(body.user).toMatchObject({ email: 'alice@demo.local', name: 'Alice Johnson', role: 'employee' });
    expect(body.user.id).toBe((await rowByEmail(server, 'alice@demo.local'))?.id);
    expect(decodeJwt(body.token).sub).toBe(body.user.id);
    expect((await get(server, '/api/auth/me', body.token)).statusCode).toBe(200);
  });

  test('a wrong password and an unknown email get the same 401 "Invalid email or password"', async () => {
    const server = await start();

    const wrongPassword = expectError(
      await login(server, 'alice@demo.local', 'wrong-password'),
      401,
      'invalid_credentials',
    );
    const unknownEmail = expectError(
      await login(server, 'nobody@demo.local', DEMO_PASSWORD),
      401,
      'invalid_credentials',
    );
    expect(wrongPassword.message).toBe('Invalid email or password');
    expect(unknownEmail).toEqual(wrongPassword);
  });

  test('a deactivated account cannot sign in, even with the right password', async () => {
    const server = await start();
    await server.app.db
      .update(users)
      .set({ deactivatedAt: new Date().toISOString() })
      .where(eq(users.email, 'alice@demo.local'));

    expectError(
      await login(server, 'alice@demo.local', DEMO_PASSWORD),
      401,
      'invalid_credentials',
      'Invalid email or password',
    );
  });

  test.each([
    ['an empty email', { email: '', password: DEMO_PASSWORD }],
    ['a blank email', { email: '   ', password: DEMO_PASSWORD }],
    ['an empty password', { email: 'alice@demo.local', password: '' }],
    ['no fields', {}],
    ['a numeric email', { email: 42, password: DEMO_PASSWORD }],
  ])('login with %s asks to fill in all fields', async (_what, payload) => {
    const server = await start();
    expectError(await post(server, '/api/auth/login', payload), 400, 'invalid_input', 'Please fill in all fields');
  });

  /** A throttle without the per-email slow-down, so tests of the hard limits run at full speed. */
  const noSlowDown = () => ({ slowDown: () => 0 });

  test('after 5 failures for one email from one address even the right password from there gets 429 until the 30 minutes pass', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2030-01-01T09:00:00Z') });
    try {
      const server = await start({ throttle: noSlowDown() });
      for (let attempt = 1; attempt <= 5; attempt++) {
        expectError(await login(server, 'alice@demo.local', `wrong-${attempt}`), 401, 'invalid_credentials');
      }
      const limited = expectError(await login(server, 'alice@demo.local', DEMO_PASSWORD), 429, 'rate_limited');
      expect(limited.message).toBe('Too many failed sign-in attempts. Please try again in 30 minutes.');
      // Another spelling of the same email is the same email.
      expectError(await login(server, ' ALICE@demo.local', DEMO_PASSWORD), 429, 'rate_limited');
      // Another email from the same address is unaffected.
      expect((await login(server, 'bob@demo.local', DEMO_PASSWORD)).statusCode).toBe(200);

      vi.setSystemTime(Date.parse('2030-01-01T09:29:30Z'));
      const late = await login(server, 'alice@demo.local', DEMO_PASSWORD);
      expectError(late, 429, 'rate_limited', 'Too many failed sign-in attempts. Please try again in 1 minute.');
      expect(late.headers['retry-after']).toBe('30');

      vi.setSystemTime(Date.parse('2030-01-01T09:30:01Z'));
      const res = await login(server, 'alice@demo.local', DEMO_PASSWORD);
      expect(res.statusCode).toBe(200);
      expect(res.json<AuthResponse>().user.email).toBe('alice@demo.local');
    } finally {
      vi.useRealTimers();
    }
  });

  test('failures for one email from many addresses never lock its owner out: the right password from another address signs in', async () => {
    const server = await start({ throttle: noSlowDown() });
    // Five wrong passwords from each of four addresses: 20 failures for the email, none of them from the owner.
    for (let address = 1; address <= 4; address++) {
      for (let attempt = 1; attempt <= 5; attempt++) {
        expectError(
          await login(server, 'manager@demo.local', 'guessed', `192.0.2.${address}`),
          401,
          'invalid_credentials',
        );
      }
      expectError(await login(server, 'manager@demo.local', 'guessed', `192.0.2.${address}`), 429, 'rate_limited');
    }
    const owner = await login(server, 'manager@demo.local', DEMO_PASSWORD, '203.0.113.50');
    expect(owner.statusCode).toBe(200);
    expect(owner.json<AuthResponse>().user.email).toBe('manager@demo.local');
  });

  test('past 5 failures for an email, each attempt on it waits longer before it is answered, the right one included', async () => {
    const slowDowns: number[] = [];
    const throttle = {
      slowDown: (failures: number) => {
        const ms = failures >= 5 ? 100 * (failures - 4) : 0;
        slowDowns.push(ms);
        return ms;
      },
    };
    const server = await start({ throttle });
    for (let address = 1; address <= 6; address++) {
      expectError(await login(server, 'carol@demo.local', 'guessed', `192.0.2.${address}`), 401, 'invalid_credentials');
    }
    expect(slowDowns).toEqual([0, 0, 0, 0, 0, 100]);

    const started = Date.now();
    expect((await login(server, 'carol@demo.local', DEMO_PASSWORD, '203.0.113.60')).statusCode).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    // The right password ends the run of failures: the next attempt waits no more.
    expect((await login(server, 'carol@demo.local', DEMO_PASSWORD, '203.0.113.60')).statusCode).toBe(200);
    expect(slowDowns.slice(-2)).toEqual([200, 0]);
  });

  test('the default slow-down starts at the 5th failure with 1 s and doubles to at most 5 s', () => {
    expect([4, 5, 6, 7, 8, 20].map(defaultSlowDown)).toEqual([0, 1000, 2000, 4000, 5000, 5000]);
  });

  test('one address gets a number of failed sign-ins an hour over all emails (100 by default), then one attempt per 10 s for any email; other addresses are unaffected', async () => {
    expect(loginFailuresPerAddressHour).toBe(100);
    expect(slowedAddressIntervalSeconds).toBe(10);
    const perAddress = 12;
    const server = await start({
      throttle: { slowDown: () => 0, failuresPerAddressHour: perAddress },
    });
    const address = '198.51.100.99';
    for (let attempt = 1; attempt <= perAddress; attempt++) {
      // Four per email stays under the per-email limit: only the address's count is reached.
      const email = `user${Math.ceil(attempt / 4)}@example.com`;
      expectError(await login(server, email, 'guessed', address), 401, 'invalid_credentials');
    }
    // The address's turn: the right password gets in; the next attempt from there waits for the next turn.
    expect((await login(server, 'alice@demo.local', DEMO_PASSWORD, address)).statusCode).toBe(200);
    const limited = expectError(await login(server, 'bob@demo.local', DEMO_PASSWORD, address), 429, 'rate_limited');
    expect(limited.message).toMatch(
      /^Too many failed sign-in attempts from this network. Please try again in \d+ seconds?\.$/,
    );
    expect((await login(server, 'alice@demo.local', DEMO_PASSWORD, '198.51.100.100')).statusCode).toBe(200);
  });

  test('4 failures do not throttle', async () => {
    const server = await start({ throttle: noSlowDown() });
    for (let attempt = 1; attempt <= 4; attempt++) {
      expectError(await login(server, 'alice@demo.local', 'wrong'), 401, 'invalid_credentials');
    }
    expect((await login(server, 'alice@demo.local', DEMO_PASSWORD)).statusCode).toBe(200);
  });

  test('a successful sign-in forgets the failures before it', async () => {
    const server = await start({ throttle: noSlowDown() });
    for (let attempt = 1; attempt <= 4; attempt++) {
      expectError(await login(server, 'alice@demo.local', 'wrong'), 401, 'invalid_credentials');
    }
    expect((await login(server, 'alice@demo.local', DEMO_PASSWORD)).statusCode).toBe(200);

    for (let attempt = 1; attempt <= 4; attempt++) {
      expectError(await login(server, 'alice@demo.local', 'one-more-typo'), 401, 'invalid_credentials');
    }
    expect((await login(server, 'alice@demo.local', DEMO_PASSWORD)).statusCode).toBe(200);
  });

  test('failures against an unknown email are throttled like any other', async () => {
    const server = await start({ throttle: noSlowDown() });
    for (let attempt = 1; attempt <= 5; attempt++) {
      expectError(await login(server, 'ghost@demo.local', 'guess'), 401, 'invalid_credentials');
    }
    expectError(await login(server, 'ghost@demo.local', 'guess'), 429, 'rate_limited');
  });
});

describe('secrets', () => {
  test('no answer carries a password, a hash or a token version', async () => {
    const server = await start();
    const password = 'Unique-Pa55word';
    const checks: [string, LightMyRequestResponse][] = [];

    const registered = await register(server, { name: 'Dana Doe', email: 'dana@example.com', password });
    checks.push(['register', registered]);
    const loggedIn = await login(server, 'dana@example.com', password);
    checks.push(['login', loggedIn]);
    const { token } = loggedIn.json<AuthResponse>();
    for (const path of ['me', 'users', 'all-users', 'team-members'])
      checks.push([path, await get(server, `/api/auth/${path}`, token)]);
    checks.push([
      'updatedetails',
      await server.app.inject({
        method: 'PUT',
        url: '/api/auth/updatedetails',
        headers: bearer(token),
        payload: { name: 'Dana D.', email: 'dana@example.com' },
      }),
    ]);

    for (const [name, res] of checks) {
      expect(res.statusCode, name).toBeLessThan(300);
      expect(res.body, name).not.toMatch(/"(password|passwordHash|password_hash|tokenVersion|token_version|hash)"/i);
      expectNoSecrets(res.json(), [password, DEMO_PASSWORD]);
    }
    // The lists did include people with hashes (the demo users), so the check was not vacuous.
    expect(checks.find(([name]) => name === 'all-users')?.[1].json<{ users: User[] }>().users.length).toBeGreaterThan(
      5,
    );
  });
});

describe('tokens', () => {
  const protectedReads = ['/api/auth/me', '/api/auth/users', '/api/auth/all-users', '/api/auth/team-members'];

  const signWith = (secret: string, claims: { sub: string; sid: string }, expiresAt: number) =>
    new SignJWT({ sid: claims.sid })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.sub)
      .setIssuedAt(expiresAt - 3600)
      .setExpirationTime(expiresAt)
      .sign(new TextEncoder().encode(secret));

  const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

  test('a request without a token is refused with 401 unauthenticated', async () => {
    const server = await start();
    for (const url of protectedReads) unauthenticated(await get(server, url));
    unauthenticated(
      await server.app.inject({
        method: 'PUT',
        url: '/api/auth/updatedetails',
        payload: { name: 'X', email: 'x@example.com' },
      }),
    );
  });

  /** Alice's user id and the session of a real sign-in of hers. */
  async function aliceSession(server: TestServer): Promise<{ sub: string; sid: string }> {
    const { token } = await signIn(server.app, 'alice@demo.local');
    const { sub, sid } = decodeJwt(token);
    if (typeof sub !== 'string' || typeof sid !== 'string') throw new Error('a token without sub and sid');
    return { sub, sid };
  }

  test('a token signed with another secret is refused', async () => {
    const server = await start();
    const claims = await aliceSession(server);

    // The same claims signed with the server's secret pass, so only the signature is at fault.
    const genuine = await signWith(server.config.jwtSecret, claims, inAnHour());
    expect((await get(server, '/api/auth/me', genuine)).statusCode).toBe(200);

    const forged = await signWith('another-secret-'.padEnd(48, 'y'), claims, inAnHour());
    for (const url of protectedReads) unauthenticated(await get(server, url, forged));
  });

  test('a token signed with the right secret but another algorithm is refused', async () => {
    const server = await start();
    const alice = await rowByEmail(server, 'alice@demo.local');
    if (!alice) throw new Error('no alice');
    const hs512 = await new SignJWT({ sid: (await aliceSession(server)).sid })
      .setProtectedHeader({ alg: 'HS512', typ: 'JWT' })
      .setSubject(alice.id)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(server.config.jwtSecret));

    unauthenticated(await get(server, '/api/auth/me', hs512));
  });

  test('an unsigned token with alg none is refused', async () => {
    const server = await start();
    const alice = await rowByEmail(server, 'alice@demo.local');
    if (!alice) throw new Error('no alice');
    const { sid } = await aliceSession(server);
    const unsigned = new UnsecuredJWT({ sid }).setSubject(alice.id).setIssuedAt().setExpirationTime('1h').encode();

    unauthenticated(await get(server, '/api/auth/me', unsigned));
    // The same with a trailing signature segment that means nothing.
    unauthenticated(await get(server, '/api/auth/me', `${unsigned}c2lnbmF0dXJl`));
  });

  test.each([
    ['a random string', { authorization: 'Bearer not-a-token' }],
    ['three dotted garbage parts', { authorization: 'Bearer aaa.bbb.ccc' }],
    ['a Basic header', { authorization: 'Basic YWxpY2U6ZGVtbzEyMzQ=' }],
    ['an empty Bearer', { authorization: 'Bearer ' }],
  ])('a malformed token (%s) is refused with 401', async (_what, headers) => {
    const server = await start();
    unauthenticated(await server.app.inject({ method: 'GET', url: '/api/auth/me', headers }));
  });

  test('an expired token is refused with 401 token_expired', async () => {
    const server = await start();
    const alice = await rowByEmail(server, 'alice@demo.local');
    if (!alice) throw new Error('no alice');

    const expired = await signWith(
      server.config.jwtSecret,
      await aliceSession(server),
      Math.floor(Date.now() / 1000) - 60,
    );
    const res = await get(server, '/api/auth/me', expired);
    expectError(res, 401, 'token_expired', 'Your session has expired. Please sign in again.');
  });

  test('a token accepted while valid is refused once it has expired (verified tokens are kept only until then)', async () => {
    const server = await start();
    const inAMinute = Math.floor(Date.now() / 1000) + 60;
    const token = await signWith(server.config.jwtSecret, await aliceSession(server), inAMinute);
    expect((await get(server, '/api/auth/me', token)).statusCode).toBe(200);

    vi.useFakeTimers({ toFake: ['Date'], now: (inAMinute + 1) * 1000 });
    try {
      expectError(
        await get(server, '/api/auth/me', token),
        401,
        'token_expired',
        'Your session has expired. Please sign in again.',
      );
    } finally {
      vi.useRealTimers();
    }
  });

  test("a session ended behind the server's back is refused once it may no longer be kept, while the same user's other sessions go on", async () => {
    const server = await start();
    const ended = await signIn(server.app, 'alice@demo.local');
    const other = await signIn(server.app, 'alice@demo.local');
    expect((await get(server, '/api/auth/me', ended.token)).statusCode).toBe(200);

    // Not through logout, a password change or a deactivation, which end it at once (their own tests): the row goes.
    const { sid } = decodeJwt(ended.token);
    await server.app.db.delete(sessions).where(eq(sessions.id, String(sid)));

    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + KEPT_ROW_MS });
    try {
      for (const url of protectedReads) unauthenticated(await get(server, url, ended.token));
      expect((await get(server, '/api/auth/me', other.token)).statusCode).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });

  test("a token naming another user's session is refused, though that session has just answered its owner", async () => {
    const server = await start();
    const bob = await rowByEmail(server, 'bob@demo.local');
    if (!bob) throw new Error('no bob');
    const alice = await signIn(server.app, 'alice@demo.local');
    expect((await get(server, '/api/auth/me', alice.token)).statusCode).toBe(200);
    const sid = String(decodeJwt(alice.token).sid);

    unauthenticated(
      await get(server, '/api/auth/me', await signWith(server.config.jwtSecret, { sub: bob.id, sid }, inAnHour())),
    );
    expect((await get(server, '/api/auth/me', alice.token)).statusCode).toBe(200);
  });

  test('a session that has just answered is refused once it expires, even if its token has not', async () => {
    const server = await start();
    const session = await aliceSession(server);
    const inThirtySeconds = Date.now() + 30_000;
    await server.app.db
      .update(sessions)
      .set({ expiresAt: new Date(inThirtySeconds).toISOString() })
      .where(eq(sessions.id, session.sid));
    const token = await signWith(server.config.jwtSecret, session, inAnHour());
    expect((await get(server, '/api/auth/me', token)).statusCode).toBe(200);

    vi.useFakeTimers({ toFake: ['Date'], now: inThirtySeconds + 1 });
    try {
      unauthenticated(await get(server, '/api/auth/me', token));
    } finally {
      vi.useRealTimers();
    }
  });

  test('every sign-in starts its own session, which expires with its token', async () => {
    const server = await start();
    const { token, user } = await signIn(server.app, 'alice@demo.local');
    const { sid, exp } = decodeJwt(token);
    const [row] = await server.app.db
      .select()
      .from(sessions)
      .where(eq(sessions.id, String(sid)));
    expect(row?.userId).toBe(user.id);
    // The session ends when its token does (the token's exp has whole seconds).
    expect(Math.abs(Date.parse(row?.expiresAt ?? '') - (exp ?? 0) * 1000)).toBeLessThan(1000);
    await signIn(server.app, 'alice@demo.local');
    expect(await server.app.db.select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(2);
  });

  test('a token of a deactivated user is refused', async () => {
    const server = await start();
    const { token, user } = await signIn(server.app, 'alice@demo.local');
    await server.app.db.update(users).set({ deactivatedAt: new Date().toISOString() }).where(eq(users.id, user.id));

    unauthenticated(await get(server, '/api/auth/me', token));
  });

  test('a token of a user that does not exist is refused', async () => {
    const server = await start();
    const token = await signWith(
      server.config.jwtSecret,
      { sub: '01890000-0000-7000-8000-000000000000', sid: '01890000-0000-7000-8000-000000000001' },
      inAnHour(),
    );
    unauthenticated(await get(server, '/api/auth/me', token));
  });
});

describe('user reads', () => {
  test('me answers the signed-in user, with id and _id equal', async () => {
    const server = await start();
    const { token } = await signIn(server.app, 'alice@demo.local');
    // The PWA sends a JSON content type even on this GET.
    const res = await server.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { ...bearer(token), 'content-type': 'application/json' },
    });

    expect(res.statusCode).toBe(200);
    const { user } = res.json<{ user: User }>();
    const row = await rowByEmail(server, 'alice@demo.local');
    expect(user).toMatchObject({
      id: row?.id,
      _id: row?.id,
      name: 'Alice Johnson',
      email: 'alice@demo.local',
      role: 'employee',
    });
    expect(user.department).toBe('Engineering');
  });

  test('users lists every active user but the caller', async () => {
    const server = await start();
    const { token, user } = await signIn(server.app, 'alice@demo.local');
    const res = await get(server, '/api/auth/users', token);

    expect(res.statusCode).toBe(200);
    const listed = res.json<{ users: User[] }>().users;
    const others = (await allRows(server)).filter((row) => row.id !== user.id);
    expect(listed.map((u) => u.id).sort()).toEqual(others.map((row) => row.id).sort());
    for (const u of listed) expect(u._id).toBe(u.id);
  });

  test.each(['all-users', 'team-members'])('%s lists every active user with their department', async (path) => {
    const server = await start();
    const { token } = await signIn(server.app, 'manager@demo.local');
    const carol = await rowByEmail(server, 'carol@demo.local');
    await server.app.db
      .update(users)
      .set({ deactivatedAt: new Date().toISOString() })
      .where(eq(users.email, 'carol@demo.local'));

    const res = await get(server, `/api/auth/${path}`, token);
    expect(res.statusCode).toBe(200);
    const listed = res.json<{ users: User[] }>().users;

    const active = (await allRows(server)).filter((row) => !row.deactivatedAt);
    expect(listed.map((u) => u.id).sort()).toEqual(active.map((row) => row.id).sort());
    expect(listed.map((u) => u.id)).not.toContain(carol?.id);
    for (const u of listed) {
      expect(u._id).toBe(u.id);
      const row = active.find((r) => r.id === u.id);
      expect(u).toMatchObject({
        name: row?.name,
        email: row?.email,
        role: row?.role,
        department: row?.department,
        avatar: row?.avatar,
      });
    }
    expect(listed.find((u) => u.email === 'bob@demo.local')?.department).toBe('Design');
  });
});

describe('PUT /api/auth/updatedetails', () => {
  const update = (server: TestServer, token: string, payload: Record<string, unknown>) =>
    server.app.inject({ method: 'PUT', url: '/api/auth/updatedetails', headers: bearer(token), payload });

  test('updatedetails changes the name and email and answers the user with a message', async () => {
    const server = await start();
    const { token, user } = await signIn(server.app, 'alice@demo.local');
    const res = await update(server, token, { name: '  Alice Cooper ', email: ' Alice.Cooper@Demo.Local ' });

    expect(res.statusCode).toBe(200);
    const body = res.json<{ user: User; message: string }>();
    expect(body.message).toBe('Profile updated successfully!');
    expect(body.user).toMatchObject({
      id: user.id,
      _id: user.id,
      name: 'Alice Cooper',
      email: 'alice.cooper@demo.local',
    });

    const [row] = await server.app.db.select().from(users).where(eq(users.id, user.id));
    expect(row).toMatchObject({ name: 'Alice Cooper', email: 'alice.cooper@demo.local' });
    expect(await rowByEmail(server, 'alice@demo.local')).toBeUndefined();
    // The session goes on, and the new email signs in.
    expect((await get(server, '/api/auth/me', token)).json<{ user: User }>().user.email).toBe(
      'alice.cooper@demo.local',
    );
    expect((await login(server, 'alice.cooper@demo.local', DEMO_PASSWORD)).statusCode).toBe(200);
  });

  test.each([
    ['a blank name', { name: '   ', email: 'alice@demo.local' }],
    ['a blank email', { name: 'Alice', email: '' }],
    ['no name', { email: 'alice@demo.local' }],
  ])('updatedetails with %s answers "Name and email are required"', async (_what, payload) => {
    const server = await start();
    const { token, user } = await signIn(server.app, 'alice@demo.local');

    expectError(await update(server, token, payload), 400, 'invalid_input', 'Name and email are required');
    expect((await server.app.db.select().from(users).where(eq(users.id, user.id)))[0]).toMatchObject({
      name: 'Alice Johnson',
      email: 'alice@demo.local',
    });
  });

  test("another user's email is refused with 409 email_taken", async () => {
    const server = await start();
    const { token, user } = await signIn(server.app, 'alice@demo.local');

    expectError(
      await update(server, token, { name: 'Alice', email: ' BOB@demo.local ' }),
      409,
      'email_taken',
      'An account with this email already exists',
    );
    expect((await server.app.db.select().from(users).where(eq(users.id, user.id)))[0]?.email).toBe('alice@demo.local');
    expect((await allRows(server)).filter((row) => row.email === 'bob@demo.local')).toHaveLength(1);
  });

  test('a malformed email is refused with 400', async () => {
    const server = await start();
    const { token, user } = await signIn(server.app, 'alice@demo.local');

    expectError(
      await update(server, token, { name: 'Alice', email: 'alice@' }),
      400,
      'invalid_input',
      'Please enter a valid email address',
    );
    expect((await server.app.db.select().from(users).where(eq(users.id, user.id)))[0]?.email).toBe('alice@demo.local');
  });

  test("keeping one's own email with a new name is allowed", async () => {
    const server = await start();
    const { token, user } = await signIn(server.app, 'alice@demo.local');
    const res = await update(server, token, { name: 'Alice J.', email: 'ALICE@demo.local' });

    expect(res.statusCode).toBe(200);
    expect((await server.app.db.select().from(users).where(eq(users.id, user.id)))[0]).toMatchObject({
      name: 'Alice J.',
      email: 'alice@demo.local',
    });
  });
});

describe('POST /api/auth/google', () => {
  const googleLogin = (server: TestServer, tokenId: unknown) => post(server, '/api/auth/google', { tokenId });

  test('a valid ID token for an unknown email creates an employee account and signs it in', async () => {
    const { server, google } = await startWithGoogle();
    const before = (await allRows(server)).length;
    const tokenId = await google.signIdToken({ sub: 'google-123', email: 'Gina@Gmail.com', name: 'Gina Google' });

    const res = await googleLogin(server, tokenId);
    expect(res.statusCode).toBe(200);
    const body = res.json<AuthResponse>();
    expect(body.ok).toBe(true);
    expect(body.user).toMatchObject({ name: 'Gina Google', email: 'gina@gmail.com', role: 'employee' });

    expect(await allRows(server)).toHaveLength(before + 1);
    const row = await rowByEmail(server, 'gina@gmail.com');
    expect(row).toMatchObject({ id: body.user.id, role: 'employee', googleSub: 'google-123', passwordHash: null });
    expectNoSecrets(body, []);

    const me = await get(server, '/api/auth/me', body.token);
    expect(me.json<{ user: User }>().user.id).toBe(body.user.id);
    // Signing in again finds the same account.
    const again = await googleLogin(server, await google.signIdToken({ sub: 'google-123', email: 'gina@gmail.com' }));
    expect(again.json<AuthResponse>().user.id).toBe(body.user.id);
    expect(await allRows(server)).toHaveLength(before + 1);
  });

  test('a valid ID token for an existing email signs that user in', async () => {
    const { server, google } = await startWithGoogle();
    const before = (await allRows(server)).length;
    const alice = await rowByEmail(server, 'alice@demo.local');

    const res = await googleLogin(
      server,
      await google.signIdToken({ email: 'alice@demo.local', name: 'Someone Else' }),
    );
    expect(res.statusCode).toBe(200);
    const body = res.json<AuthResponse>();
    expect(body.user).toMatchObject({ id: alice?.id, name: 'Alice Johnson', role: 'employee' });
    expect(decodeJwt(body.token).sub).toBe(alice?.id);
    expect(await allRows(server)).toHaveLength(before);
  });

  const past = () => Math.floor(Date.now() / 1000) - 600;
  test.each<[string, { audience?: string; issuer?: string; foreignKey?: boolean; expired?: boolean }]>([
    ['a wrong audience', { audience: 'someone-else.apps.googleusercontent.com' }],
    ['a wrong issuer', { issuer: 'https://evil.example.com' }],
    ['an expiry in the past', { expired: true }],
    ['a signature by another key', { foreignKey: true }],
  ])('an ID token with %s is refused with "Google login failed"', async (_what, variant) => {
    const { server, google } = await startWithGoogle();
    const before = (await allRows(server)).length;
    const { expired, ...options } = variant;
    const tokenId = await google.signIdToken(
      { email: 'gina@gmail.com' },
      { ...options, ...(expired ? { expiresAt: past() } : {}) },
    );

    expectError(await googleLogin(server, tokenId), 401, 'google_token_invalid', 'Google login failed');
    expect(await allRows(server)).toHaveLength(before);
    expect(await rowByEmail(server, 'gina@gmail.com')).toBeUndefined();
    // The same claims, correctly made, would have been accepted.
    expect((await googleLogin(server, await google.signIdToken({ email: 'gina@gmail.com' }))).statusCode).toBe(200);
  });

  test('an ID token whose email Google did not verify is refused', async () => {
    const { server, google } = await startWithGoogle();
    const tokenId = await google.signIdToken({ email: 'alice@demo.local', email_verified: false });

    expectError(await googleLogin(server, tokenId), 401, 'google_token_invalid');
  });

  test('a token id that is not a JWT is refused, and a missing one is a 400', async () => {
    const { server } = await startWithGoogle();
    expectError(await googleLogin(server, 'garbage'), 401, 'google_token_invalid', 'Google login failed');
    expectError(await post(server, '/api/auth/google', {}), 400, 'invalid_input');
  });

  test('without a Google client id the server answers 501 google_not_configured', async () => {
    const server = await start();
    expectError(
      await googleLogin(server, 'anything'),
      501,
      'google_not_configured',
      'Google sign-in is not configured on this server.',
    );
  });

  test('GET /api/config answers the Google client id, or null when unset', async () => {
    const { server } = await startWithGoogle();
    const configured = await get(server, '/api/config');
    expect(configured.statusCode).toBe(200);
    expect(configured.json()).toEqual({ googleClientId: TEST_GOOGLE_CLIENT_ID });

    const plain = await start();
    expect((await get(plain, '/api/config')).json()).toEqual({ googleClientId: null });
  });
});
