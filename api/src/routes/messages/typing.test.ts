import { describe, expect, test } from 'vitest';
import { eq, isNull } from 'drizzle-orm';
import type { ErrorBody, User } from '@office/sync-protocol';
import { users } from '../../db/schema';
import { bearer, nextEvent, recordEvents, sleep } from '../../../test/support';
import { useSeededServer, type Session } from '../../../test/api-client';

// One seeded server for the whole file; sockets are opened per test and closed after it, and the next test starts
// once the server has seen them go.
const { server, people } = useSeededServer({ awaitOffline: true });

async function post<T>(session: Session | null, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${server.url}/api/messages${path}`, {
    method: 'POST',
    headers: {
      ...(session ? bearer(session.token) : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

const rowOf = async (id: string) => (await server.app.db.select().from(users).where(eq(users.id, id)))[0];

describe('typing in the team chat', () => {
  test('the others hear who is typing and when they stop; the typist does not hear themselves', async () => {
    const { manager, alice, bob } = people;
    const aliceSocket = await server.connect(alice.token);
    const bobSocket = await server.connect(bob.token);
    const managerSocket = await server.connect(manager.token);
    const aliceHears = {
      typing: recordEvents(aliceSocket, 'user-typing'),
      stop: recordEvents(aliceSocket, 'stop-typing'),
    };

    const typing = nextEvent(bobSocket, 'user-typing');
    const managerTyping = nextEvent(managerSocket, 'user-typing');
    const res = await post<{ success: boolean }>(alice, '/typing', { isTyping: true });
    expect(res).toEqual({ status: 200, body: { success: true } });
    const expected = { userId: alice.user.id, userName: 'Alice Johnson', conversationId: null };
    expect(await typing).toEqual(expected);
    expect(await managerTyping).toEqual(expected);

    const stop = nextEvent(bobSocket, 'stop-typing');
    expect((await post(alice, '/typing', { isTyping: false })).status).toBe(200);
    expect(await stop).toEqual({ userId: alice.user.id, conversationId: null });

    // Both were sent to bob before these answers; alice's socket had the same chance to hear them.
    await sleep(100);
    expect(aliceHears).toEqual({ typing: [], stop: [] });
  });

  test('the typist is not heard on any of their own sockets', async () => {
    const { alice, bob } = people;
    const [first, second] = [await server.connect(alice.token), await server.connect(alice.token)];
    const bobSocket = await server.connect(bob.token);
    const seenByFirst = recordEvents(first, 'user-typing');
    const seenBySecond = recordEvents(second, 'user-typing');

    const typing = nextEvent(bobSocket, 'user-typing');
    expect((await post(alice, '/typing', { isTyping: true })).status).toBe(200);
    expect((await typing).userId).toBe(alice.user.id);
    await sleep(100);
    expect([...seenByFirst, ...seenBySecond]).toEqual([]);
  });

  test('typing is live state: nothing about it is stored', async () => {
    const { alice } = people;
    const before = await rowOf(alice.user.id);
    expect((await post(alice, '/typing', { isTyping: true })).status).toBe(200);
    expect(await rowOf(alice.user.id)).toEqual(before);
  });

  test.each([
    ['a missing flag', {}],
    ['a string flag', { isTyping: 'yes' }],
    ['a number flag', { isTyping: 1 }],
    ['an array body', [true]],
  ])('%s is refused with 400 and nobody hears anything', async (_what, body) => {
    const { alice, bob } = people;
    const bobSocket = await server.connect(bob.token);
    const heard = recordEvents(bobSocket, 'user-typing');
    const stops = recordEvents(bobSocket, 'stop-typing');
    const res = await post<ErrorBody>(alice, '/typing', body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_input');
    expect(res.body.message).toEqual(expect.any(String));
    await sleep(50);
    expect([...heard, ...stops]).toEqual([]);
  });

  test('a body that is not JSON is refused with 400', async () => {
    const { alice } = people;
    const res = await post<ErrorBody>(alice, '/typing', '{isTyping: true');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'malformed_json', message: 'The request body is not valid JSON.' });
  });

  test('typing needs a token', async () => {
    const { bob } = people;
    const bobSocket = await server.connect(bob.token);
    const heard = recordEvents(bobSocket, 'user-typing');
    const res = await post<ErrorBody>(null, '/typing', { isTyping: true });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthenticated');
    await sleep(50);
    expect(heard).toEqual([]);
  });
});

describe('presence', () => {
  interface ActiveUser {
    id: string;
    _id: string;
    name: string;
    status: string;
    lastSeen: string | null;
    avatar: string | null;
  }

  test('the active users list every member with id, _id, name, status, lastSeen and avatar; a connected one is online', async () => {
    const { alice, bob } = people;
    await server.connect(alice.token);
    const res = await fetch(`${server.url}/api/messages/active-users`, { headers: bearer(bob.token) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { success: boolean; data: ActiveUser[] };
    expect(body.success).toBe(true);

    const members = await server.app.db.select().from(users).where(isNull(users.deactivatedAt));
    expect(body.data.map((u) => u.id).sort()).toEqual(members.map((u) => u.id).sort());
    for (const entry of body.data) {
      expect(Object.keys(entry).sort()).toEqual(['_id', 'avatar', 'id', 'lastSeen', 'name', 'status']);
      const row = members.find((m) => m.id === entry.id);
      expect(entry).toEqual({
        id: row?.id,
        _id: row?.id,
        name: row?.name,
        status: row?.status,
        lastSeen: row?.lastSeen,
        avatar: row?.avatar,
      });
    }
    const aliceEntry = body.data.find((u) => u.id === alice.user.id);
    expect(aliceEntry).toMatchObject({
      name: 'Alice Johnson',
      status: 'online',
      lastSeen: expect.any(String) as unknown,
    });
    // Bob asked over HTTP but has no socket: he is not online.
    expect(body.data.find((u) => u.id === bob.user.id)?.status).toBe('offline');
    // No password hash or email leaks into the list.
    expect(JSON.stringify(body)).not.toMatch(/password|@demo\.local/);
  });

  test('a deactivated member is not an active user', async () => {
    const { bob } = people;
    const reg = await fetch(`${server.url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Dora Departed', email: 'dora@demo.local', password: 'demo1234' }),
    });
    expect(reg.status).toBe(201);
    const { user } = (await reg.json()) as { user: User };
    const listed = async () => {
      const res = await fetch(`${server.url}/api/messages/active-users`, { headers: bearer(bob.token) });
      return ((await res.json()) as { data: ActiveUser[] }).data.map((u) => u.id);
    };
    expect(await listed()).toContain(user.id);

    await server.app.db.update(users).set({ deactivatedAt: new Date().toISOString() }).where(eq(users.id, user.id));
    expect(await listed()).not.toContain(user.id);
  });

  test('the active users need a token', async () => {
    const res = await fetch(`${server.url}/api/messages/active-users`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as ErrorBody).code).toBe('unauthenticated');
  });

  test('setting away stores it and tells the team', async () => {
    const { alice, bob } = people;
    await server.connect(alice.token);
    const bobSocket = await server.connect(bob.token);
    const update = nextEvent(bobSocket, 'user-presence-update');

    const res = await post<{ success: boolean; status: string }>(alice, '/status', { status: 'away' });
    expect(res).toEqual({ status: 200, body: { success: true, status: 'away' } });

    const event = await update;
    expect(event).toEqual({ userId: alice.user.id, status: 'away', lastSeen: expect.any(String) as unknown });
    const row = await rowOf(alice.user.id);
    expect(row?.status).toBe('away');
    expect(row?.lastSeen).toBe(event.lastSeen);

    const list = await fetch(`${server.url}/api/messages/active-users`, { headers: bearer(bob.token) });
    const { data } = (await list.json()) as { data: ActiveUser[] };
    expect(data.find((u) => u.id === alice.user.id)?.status).toBe('away');

    // Back to online.
    const back = nextEvent(bobSocket, 'user-presence-update');
    expect((await post(alice, '/status', { status: 'online' })).status).toBe(200);
    expect(await back).toMatchObject({ userId: alice.user.id, status: 'online' });
    expect((await rowOf(alice.user.id))?.status).toBe('online');
  });

  test.each([
    ['offline', { status: 'offline' }],
    ['an unknown status', { status: 'busy' }],
    ['a number', { status: 1 }],
    ['no status', {}],
    ['a bare string', 'away'],
  ])('a status of %s is refused with 400 and nothing changes', async (_what, body) => {
    const { alice, bob } = people;
    await server.connect(alice.token);
    const bobSocket = await server.connect(bob.token);
    const updates = recordEvents(bobSocket, 'user-presence-update');
    const before = await rowOf(alice.user.id);

    const res = await post<ErrorBody>(alice, '/status', body);
    expect(res.status).toBe(400);
    expect(res.body.code).toMatch(/^(invalid_input|malformed_json)$/);
    expect(res.body.message).toEqual(expect.any(String));

    await sleep(50);
    expect(updates).toEqual([]);
    expect(await rowOf(alice.user.id)).toEqual(before);
  });

  test('setting a status needs a token', async () => {
    const res = await post<ErrorBody>(null, '/status', { status: 'away' });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthenticated');
  });
});
