import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import {
  accessTexts,
  accountTexts,
  errorCatalogue,
  limits,
  type AuthResponse,
  type ErrorBody,
  type PasswordResetResponse,
  type SuccessResponse,
} from '@office/sync-protocol';
import { sessions, users } from '../../db/schema';
import { DEMO_PASSWORD } from '../../db/seed';
import { connectSocket } from '../../../test/support';
import { expectRefusal, useSeededServer, type Session } from '../../../test/api-client';

// Issue 41, point 11: a forgotten password. A manager (for employees) or an admin (for anyone but themselves) resets
// it to a one-time code; every session of the person ends; the code signs in once, to a session that may only choose
// a new password; then the person is in with it.

const { server, people, db, call, registerEmployee } = useSeededServer();

const reset = (by: Session, id: string) =>
  call<PasswordResetResponse>(by, 'POST', `/api/auth/users/${id}/reset-password`);
const login = (email: string, password: string) =>
  call<AuthResponse>(null, 'POST', '/api/auth/login', { email, password });
const choose = (token: string, newPassword: string) =>
  call<SuccessResponse>({ token, user: people.alice.user }, 'PUT', '/api/auth/choose-password', { newPassword });
const userRow = async (id: string) => (await db().select().from(users).where(eq(users.id, id)))[0];
const sessionsOf = (id: string) => db().select().from(sessions).where(eq(sessions.userId, id));

/** A person of the given role with a password of their own, signed in. */
async function person(name: string, role: 'employee' | 'manager' | 'admin' = 'employee') {
  const registered = await registerEmployee(name);
  if (role !== 'employee') await db().update(users).set({ role }).where(eq(users.id, registered.user.id));
  const answer = await login(registered.email, registered.password);
  return { ...registered, user: answer.body.user, token: answer.body.token };
}

async function resetByManager(target: { user: { id: string } }): Promise<PasswordResetResponse> {
  const res = await reset(people.manager, target.user.id);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

describe('who may reset whom', () => {
  test('a manager resets an employee: a one-time code, shown once; the old password stops', async () => {
    const emma = await person('Emma Reset');
    const res = await reset(people.manager, emma.user.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.code).toMatch(/^[A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}$/);
    expect(res.body.message).toBe(`${emma.user.name}'s password was reset.`);
    expect(Date.parse(res.body.expiresAt) - Date.now()).toBeGreaterThan((limits.resetCodeTtlHours - 1) * 3_600_000);
    const row = await userRow(emma.user.id);
    expect(row).toMatchObject({ mustChangePassword: true, passwordResetUsedAt: null });
    expect(row?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(JSON.stringify(row)).not.toContain(res.body.code);
    expectRefusal(await login(emma.email, emma.password), 401, 'invalid_credentials', 'Invalid email or password');
    // Two resets make two different codes.
    expect((await resetByManager(emma)).code).not.toBe(res.body.code);
  });

  test('managers reset employees only; admins anyone but themselves; nobody their own; employees nobody', async () => {
    const employee = await person('Eli Target');
    const otherManager = await person('Max Target', 'manager');
    const otherAdmin = await person('Ada Target', 'admin');
    const refusals: [Session, string, string][] = [
      [people.manager, otherManager.user.id, accessTexts.managersResetEmployees],
      [people.manager, otherAdmin.user.id, accessTexts.managersResetEmployees],
      [people.manager, people.manager.user.id, accessTexts.cannotResetOwn],
      [people.admin, people.admin.user.id, accessTexts.cannotResetOwn],
      [people.alice, employee.user.id, errorCatalogue.forbidden.message],
      [people.alice, people.alice.user.id, accessTexts.cannotResetOwn],
    ];
    for (const [by, id, message] of refusals) {
      const before = await userRow(id);
      expectRefusal(await reset(by, id), 403, 'forbidden', message);
      expect(await userRow(id)).toEqual(before);
    }
    for (const target of [employee, otherManager, otherAdmin]) {
      expect((await reset(people.admin, target.user.id)).status).toBe(200);
    }
    expect((await reset(people.manager, employee.user.id)).status).toBe(200);
  });

  test('an unknown or deleted person is 404; without a session it is 401', async () => {
    const gone = await person('Gus Gone');
    expect((await call(people.manager, 'DELETE', `/api/auth/users/${gone.user.id}`)).status).toBe(200);
    expectRefusal(
      await reset(people.manager, gone.user.id),
      404,
      'user_not_found',
      errorCatalogue.user_not_found.message,
    );
    expectRefusal(
      await reset(people.admin, '01890000-0000-7000-8000-000000000000'),
      404,
      'user_not_found',
      errorCatalogue.user_not_found.message,
    );
    expectRefusal(
      await call(null, 'POST', `/api/auth/users/${people.alice.user.id}/reset-password`),
      401,
      'unauthenticated',
      errorCatalogue.unauthenticated.message,
    );
  });
});

describe('after a reset', () => {
  test('every session of the person ends: tokens are told the password was reset, sockets drop', async () => {
    const fay = await person('Fay Sessions');
    const second = (await login(fay.email, fay.password)).body.token;
    const socket = await connectSocket(server.url, second);
    try {
      const dropped = new Promise<string>((resolve) => socket.once('disconnect', resolve));
      await resetByManager(fay);
      expect(await dropped).toBe('io server disconnect');
      expect(await sessionsOf(fay.user.id)).toEqual([]);
      for (const token of [fay.token, second]) {
        expectRefusal(
          await call({ token, user: fay.user }, 'GET', '/api/auth/me'),
          401,
          'password_reset',
          'Your password was reset by a manager or administrator. Sign in with the one-time code they gave you.',
        );
      }
    } finally {
      socket.close();
    }
  });

  test('the code signs in once, to a session refused everything but choosing a password and signing out', async () => {
    const gil = await person('Gil Code');
    const { code } = await resetByManager(gil);
    // Typed in lower case and without its dashes, it still signs in.
    const signedIn = await login(gil.email, code.replace(/-/g, '').toLowerCase());
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    expect(signedIn.body.passwordChangeRequired).toBe(true);
    const restricted = { token: signedIn.body.token, user: gil.user };
    expect((await userRow(gil.user.id))?.passwordResetUsedAt).not.toBeNull();

    const refusedCalls = [
      ['GET', '/api/auth/me'],
      ['GET', '/api/tasks'],
      ['GET', '/api/messages'],
      ['GET', '/api/sync/pull?clientId=01890000-0000-7000-8000-000000000001&cursor=0'],
      ['PUT', '/api/auth/updatepassword'],
      ['POST', `/api/auth/users/${people.alice.user.id}/reset-password`],
    ] as const;
    for (const [method, url] of refusedCalls) {
      expectRefusal(
        await call(restricted, method, url, method === 'PUT' ? { currentPassword: code, newPassword: 'x' } : undefined),
        403,
        'password_change_required',
        'Choose a new password to continue.',
      );
    }
    const socketRefusal = await connectSocket(server.url, restricted.token).then(
      (socket) => {
        socket.close();
        throw new Error('the restricted session connected a socket');
      },
      (reason: unknown) => (reason as { data?: ErrorBody }).data,
    );
    expect(socketRefusal).toEqual({ code: 'password_change_required', message: 'Choose a new password to continue.' });

    // Once: the code does not sign in a second time.
    expectRefusal(
      await login(gil.email, code),
      401,
      'reset_code_used',
      'This one-time code was already used. Ask your manager or administrator for a new one.',
    );
    // A wrong code is a wrong password, as ever.
    expectRefusal(await login(gil.email, 'AAAA-AAAA-AAAA'), 401, 'invalid_credentials', 'Invalid email or password');
  });

  test('choosing a new password lifts the restriction on the same token; the new password signs in, the code never again', async () => {
    const hal = await person('Hal Choose');
    const { code } = await resetByManager(hal);
    const { token } = (await login(hal.email, code)).body;

    expectRefusal(
      await choose(token, '123'),
      400,
      'invalid_input',
      `New password must be at least ${limits.passwordMinLength} characters long`,
    );
    expectRefusal(await choose(token, code.toLowerCase()), 400, 'invalid_input', accessTexts.sameAsCode);
    const chosen = await choose(token, 'brand-new-secret');
    expect(chosen.status, JSON.stringify(chosen.body)).toBe(200);
    expect(chosen.body).toEqual({ success: true, message: accountTexts.passwordUpdated });
    expect(await userRow(hal.user.id)).toMatchObject({ mustChangePassword: false });

    const me = await call<{ user: { id: string } }>({ token, user: hal.user }, 'GET', '/api/auth/me');
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(hal.user.id);
    const fresh = await login(hal.email, 'brand-new-secret');
    expect(fresh.status).toBe(200);
    expect(fresh.body.passwordChangeRequired).toBe(false);
    expectRefusal(await login(hal.email, code), 401, 'invalid_credentials', 'Invalid email or password');
    // Choosing again is not a way around the current password.
    expectRefusal(await choose(token, 'another-secret'), 400, 'invalid_input', accessTexts.noPendingChange);
  });

  test('a code expires', async () => {
    const ivy = await person('Ivy Late');
    const { code } = await resetByManager(ivy);
    const longAgo = new Date(Date.now() - (limits.resetCodeTtlHours * 3_600_000 + 60_000)).toISOString();
    await db().update(users).set({ passwordResetAt: longAgo }).where(eq(users.id, ivy.user.id));
    expectRefusal(
      await login(ivy.email, code),
      401,
      'reset_code_expired',
      'This one-time code has expired. Ask your manager or administrator for a new one.',
    );
    expect(await sessionsOf(ivy.user.id)).toEqual([]);
  });

  test('signing out works while restricted, and a new reset makes a new code that signs in', async () => {
    const jo = await person('Jo Again');
    const first = await resetByManager(jo);
    const { token } = (await login(jo.email, first.code)).body;
    const out = await call({ token, user: jo.user }, 'POST', '/api/auth/logout');
    expect(out.status).toBe(200);
    const second = await resetByManager(jo);
    const again = await login(jo.email, second.code);
    expect(again.status).toBe(200);
    expect(again.body.passwordChangeRequired).toBe(true);
  });

  test('a normal session cannot use choose-password to skip the current password', async () => {
    expectRefusal(
      await call(people.bob, 'PUT', '/api/auth/choose-password', { newPassword: 'hijacked1' }),
      400,
      'invalid_input',
      accessTexts.noPendingChange,
    );
    expect((await login('bob@demo.local', DEMO_PASSWORD)).status).toBe(200);
  });
});
