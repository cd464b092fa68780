import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { errorCatalogue, type SuccessResponse, type User } from '@office/sync-protocol';
import { sessions } from '../../db/schema';
import { connectSocket, signIn } from '../../../test/support';
import { expectRefusal, useSeededServer, type Session } from '../../../test/api-client';

// One seeded server for the whole file; every test signs its own sessions in.
const { server, db, call, registerEmployee } = useSeededServer();

const me = (session: Session) => call<{ user: User }>(session, 'GET', '/api/auth/me');
const logout = (session: Session | null) => call<SuccessResponse>(session, 'POST', '/api/auth/logout');
const sessionIdOf = (token: string) => String(decodeJwt(token).sid);
const sessionRow = async (token: string) =>
  (
    await db()
      .select()
      .from(sessions)
      .where(eq(sessions.id, sessionIdOf(token)))
  )[0];

describe('POST /api/auth/logout', () => {
  test('ends this session only: its token and socket stop at once, the same user on another device goes on', async () => {
    const lee = await registerEmployee('Lee Logout');
    const phone = await signIn(server.app, lee.email, lee.password);
    const laptopSocket = await server.connect(lee.token);
    const phoneSocket = await server.connect(phone.token);
    const dropped = new Promise<string>((resolve) => laptopSocket.once('disconnect', resolve));

    const res = await logout(lee);
    expect(res).toEqual({ status: 200, body: { success: true, message: 'Signed out' } });

    expect(await sessionRow(lee.token)).toBeUndefined();
    expectRefusal(await me(lee), 401, 'unauthenticated', errorCatalogue.unauthenticated.message);
    expect(await dropped).toBe('io server disconnect');
    await expect(connectSocket(server.url, lee.token)).rejects.toMatchObject({ data: { code: 'unauthenticated' } });

    expect(await sessionRow(phone.token)).toMatchObject({ userId: lee.user.id });
    expect((await me(phone)).body.user.id).toBe(lee.user.id);
    expect(phoneSocket.connected).toBe(true);
  });

  test('a token that has logged out cannot log out again (401), and without a token it is 401', async () => {
    const lou = await registerEmployee('Lou Twice');
    expect((await logout(lou)).status).toBe(200);
    expectRefusal(await logout(lou), 401, 'unauthenticated', errorCatalogue.unauthenticated.message);
    expectRefusal(await logout(null), 401, 'unauthenticated', errorCatalogue.unauthenticated.message);
  });

  test('a body-less logout labelled as JSON is accepted, as many clients send it', async () => {
    const ray = await registerEmployee('Ray Empty');
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { authorization: `Bearer ${ray.token}`, 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(200);
    expect(await sessionRow(ray.token)).toBeUndefined();
  });
});

describe('session rows', () => {
  test("a sign-in clears the user's expired sessions and keeps the live ones", async () => {
    const eve = await registerEmployee('Eve Expired');
    const stale = { id: '01890000-0000-7000-8000-00000000e0e0', userId: eve.user.id };
    await db()
      .insert(sessions)
      .values({ ...stale, createdAt: '2020-01-01T00:00:00.000Z', expiresAt: '2020-01-08T00:00:00.000Z' });

    const again = await signIn(server.app, eve.email, eve.password);

    const ids = (await db().select({ id: sessions.id }).from(sessions).where(eq(sessions.userId, eve.user.id)))
      .map((row) => row.id)
      .sort();
    expect(ids).toEqual([sessionIdOf(eve.token), sessionIdOf(again.token)].sort());
  });

  test('a session past its expiry is refused even if its row is still there', async () => {
    const old = await registerEmployee('Olga Old');
    await db()
      .update(sessions)
      .set({ expiresAt: new Date(Date.now() - 1000).toISOString() })
      .where(eq(sessions.id, sessionIdOf(old.token)));
    expectRefusal(await me(old), 401, 'unauthenticated', errorCatalogue.unauthenticated.message);
  });
});
