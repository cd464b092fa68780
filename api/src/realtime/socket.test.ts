import { afterEach, describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { io as connect } from 'socket.io-client';
import { errorCatalogue, PROTOCOL_VERSION, type ErrorBody } from '@office/sync-protocol';
import { changeLog, notificationPreferences, users } from '../db/schema';
import {
  bearer,
  connectSocket,
  nextEvent,
  nextEventWhere,
  recordEvents,
  signIn,
  startTestServer,
  waitUntil,
  type TestServer,
  type TestSocket,
} from '../../test/support';

let server: TestServer | undefined;
const sockets: TestSocket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.close();
  await server?.close();
  server = undefined;
});

async function start(): Promise<TestServer> {
  server = await startTestServer();
  return server;
}

async function connectAs(s: TestServer, email: string): Promise<{ socket: TestSocket; userId: string; token: string }> {
  const { token, user } = await signIn(s.app, email);
  const socket = await connectSocket(s.url, token);
  sockets.push(socket);
  return { socket, userId: user.id, token };
}

/** Connects a second socket with a token already issued. */
async function connectWith(s: TestServer, token: string): Promise<TestSocket> {
  const socket = await connectSocket(s.url, token);
  sockets.push(socket);
  return socket;
}

/** The refusal a connection attempt ends with: the `data` of its connect_error. */
async function refusal(url: string, token?: string): Promise<ErrorBody> {
  const error = await connectSocket(url, token).then(
    (socket) => {
      sockets.push(socket);
      throw new Error('the server accepted the connection');
    },
    (reason: unknown) => reason as Error & { data?: ErrorBody },
  );
  expect(error).toBeInstanceOf(Error);
  expect(error.data).toBeDefined();
  return error.data as ErrorBody;
}

const rowOf = async (s: TestServer, id: string) => (await s.app.db.select().from(users).where(eq(users.id, id)))[0];

describe('socket authentication', () => {
  test('a socket with a good token connects and marks the user online', async () => {
    const s = await start();
    const { socket, userId } = await connectAs(s, 'alice@demo.local');

    expect(socket.connected).toBe(true);
    // The server stores the connection once it has accepted it, after the client hears it is connected.
    await waitUntil(async () => (await rowOf(s, userId))?.status === 'online');
    expect(s.app.realtime.presence.isOnline(userId)).toBe(true);
  });

  test('a socket without a token is refused as unauthenticated', async () => {
    const s = await start();
    const data = await refusal(s.url);

    expect(data).toEqual({ code: 'unauthenticated', message: 'Please sign in to continue.' });
    expect(s.app.realtime.presence.onlineUserIds()).toEqual([]);
  });

  test.each([
    ['a random string', () => Promise.resolve('not-a-token')],
    [
      'a token signed with another secret',
      () =>
        new SignJWT({ sid: '01890000-0000-7000-8000-000000000001' })
          .setProtectedHeader({ alg: 'HS256' })
          .setSubject('01890000-0000-7000-8000-000000000000')
          .setExpirationTime('1h')
          .sign(new TextEncoder().encode('another-secret-'.padEnd(48, 'y'))),
    ],
  ])('a socket with %s is refused as unauthenticated', async (_what, makeToken) => {
    const s = await start();
    const data = await refusal(s.url, await makeToken());

    expect(data.code).toBe('unauthenticated');
    expect(await s.app.db.select().from(users).where(eq(users.status, 'online'))).toEqual([]);
  });

  test('a socket whose session has ended (logout) is refused', async () => {
    const s = await start();
    const { token, user } = await signIn(s.app, 'alice@demo.local');
    const out = await s.app.inject({ method: 'POST', url: '/api/auth/logout', headers: bearer(token) });
    expect(out.statusCode).toBe(200);

    expect((await refusal(s.url, token)).code).toBe('unauthenticated');
    expect((await rowOf(s, user.id))?.status).toBe('offline');
  });

  test('a handshake announcing another protocol version is refused as client_outdated; one announcing ours or none connects', async () => {
    const s = await start();
    const { token } = await signIn(s.app, 'alice@demo.local');
    const outdated = connect(s.url, {
      path: '/socket.io',
      transports: ['websocket'],
      reconnection: false,
      auth: { token, protocolVersion: PROTOCOL_VERSION - 1 },
    });
    const refused = await new Promise<Error & { data?: ErrorBody }>((resolve) =>
      outdated.once('connect_error', resolve),
    );
    outdated.close();
    expect(refused.data).toEqual({ code: 'client_outdated', message: errorCatalogue.client_outdated.message });

    const current = connect(s.url, {
      path: '/socket.io',
      transports: ['websocket'],
      reconnection: false,
      auth: { token, protocolVersion: PROTOCOL_VERSION },
    });
    await new Promise<void>((resolve) => current.once('connect', resolve));
    current.close();
    sockets.push(await connectSocket(s.url, token));
  });

  test('a socket with an expired token is refused as token_expired', async () => {
    const s = await start();
    const { user } = await signIn(s.app, 'alice@demo.local');
    const expired = await new SignJWT({ sid: '01890000-0000-7000-8000-000000000001' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(user.id)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 3600)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(new TextEncoder().encode(s.config.jwtSecret));

    expect((await refusal(s.url, expired)).code).toBe('token_expired');
  });
});

describe('presence', () => {
  test('a second user connecting tells the first with user-online', async () => {
    const s = await start();
    const alice = await connectAs(s, 'alice@demo.local');
    const { token, user: bob } = await signIn(s.app, 'bob@demo.local');

    const online = nextEventWhere(alice.socket, 'user-online', (p) => p.userId !== alice.userId);
    await connectWith(s, token);

    expect(await online).toEqual({ userId: bob.id });
    expect((await rowOf(s, bob.id))?.status).toBe('online');
  });

  test('disconnecting the last socket of a user sends user-offline and stores offline', async () => {
    const s = await start();
    const alice = await connectAs(s, 'alice@demo.local');
    const bob = await connectAs(s, 'bob@demo.local');
    expect((await rowOf(s, alice.userId))?.status).toBe('online');

    const offline = nextEventWhere(bob.socket, 'user-offline', (p) => p.userId === alice.userId);
    alice.socket.close();
    const payload = await offline;

    expect(payload.userId).toBe(alice.userId);
    expect(Number.isNaN(Date.parse(payload.lastSeen))).toBe(false);
    expect(await rowOf(s, alice.userId)).toMatchObject({ status: 'offline', lastSeen: payload.lastSeen });
    expect(s.app.realtime.presence.isOnline(alice.userId)).toBe(false);
  });

  test('closing one of two sockets of a user sends no user-offline; closing the second does', async () => {
    const s = await start();
    const alice = await connectAs(s, 'alice@demo.local');
    const bob = await connectAs(s, 'bob@demo.local');
    const online = recordEvents(bob.socket, 'user-online');
    const offline = recordEvents(bob.socket, 'user-offline');

    const aliceSecond = await connectWith(s, alice.token);
    const socketCount = () => s.app.realtime.io.of('/').sockets.size;
    expect(socketCount()).toBe(3);

    alice.socket.close();
    // The server has handled that disconnect once the socket is gone from its namespace.
    await waitUntil(() => socketCount() === 2);
    // Events to bob arrive in order: this one comes after anything the disconnect could have sent.
    aliceSecond.emit('update-presence', { status: 'away' });
    await nextEventWhere(bob.socket, 'user-presence-update', (p) => p.userId === alice.userId);

    expect(offline).toEqual([]);
    expect(online.filter((p) => p.userId === alice.userId)).toEqual([]);
    expect((await rowOf(s, alice.userId))?.status).toBe('away');
    expect(s.app.realtime.presence.isOnline(alice.userId)).toBe(true);

    const last = nextEventWhere(bob.socket, 'user-offline', (p) => p.userId === alice.userId);
    aliceSecond.close();
    expect((await last).userId).toBe(alice.userId);
    expect((await rowOf(s, alice.userId))?.status).toBe('offline');
  });

  test('a connecting socket hears who is online or away now, so a device that was disconnected corrects itself', async () => {
    const s = await start();
    const alice = await connectAs(s, 'alice@demo.local');
    const bob = await connectAs(s, 'bob@demo.local');
    const away = nextEventWhere(alice.socket, 'user-presence-update', (p) => p.userId === bob.userId);
    bob.socket.emit('update-presence', { status: 'away' });
    await away;
    const offline = nextEventWhere(alice.socket, 'user-offline', (p) => p.userId === bob.userId);
    bob.socket.close();
    await offline;
    const carol = await connectAs(s, 'carol@demo.local');
    const carolAway = nextEventWhere(alice.socket, 'user-presence-update', (p) => p.userId === carol.userId);
    carol.socket.emit('update-presence', { status: 'away' });
    await carolAway;

    const { token, user: maya } = await signIn(s.app, 'manager@demo.local');
    const socket: TestSocket = connect(s.url, {
      path: '/socket.io',
      transports: ['websocket'],
      reconnection: false,
      auth: { token },
    });
    sockets.push(socket);
    const snapshot = await nextEvent(socket, 'presence.snapshot');

    expect(new Map(snapshot.present.map((entry) => [entry.userId, entry.status]))).toEqual(
      new Map([
        [alice.userId, 'online'],
        [carol.userId, 'away'],
        [maya.id, 'online'],
      ]),
    );
  });

  test('the time zone a handshake names becomes the person’s (the digest and quiet hours follow it); an unknown one is ignored', async () => {
    const s = await start();
    const { token, user } = await signIn(s.app, 'carol@demo.local');
    const handshake = async (timeZone: string) => {
      const socket: TestSocket = connect(s.url, {
        path: '/socket.io',
        transports: ['websocket'],
        reconnection: false,
        auth: { token, protocolVersion: PROTOCOL_VERSION, timeZone },
      });
      sockets.push(socket);
      await nextEvent(socket, 'presence.snapshot');
    };
    const stored = async () =>
      (await s.app.db.select().from(notificationPreferences).where(eq(notificationPreferences.id, user.id)))[0];
    // The sequence numbers of the changes written to the person's preferences (a row's version is not one of them
    // on PostgreSQL, where it counts the row's own writes).
    const writes = async () =>
      (
        await s.app.db
          .select({ seq: changeLog.seq })
          .from(changeLog)
          .where(and(eq(changeLog.entity, 'notificationPreferences'), eq(changeLog.entityId, user.id)))
      ).map((write) => write.seq);

    // The server adopts the zone beside accepting the socket, not before the snapshot: wait for the write.
    await handshake('Asia/Kolkata');
    await waitUntil(async () => (await stored())?.timeZone === 'Asia/Kolkata');
    expect(await stored()).toMatchObject({ timeZone: 'Asia/Kolkata', teamChat: 'all' });
    expect((await stored())?.digestDueAt).toEqual(expect.any(String));
    const before = Math.max(0, ...(await writes()));

    await handshake('Asia/Kolkata');
    await handshake('Nowhere/Special');
    // A new known zone last: once it is stored, the two before it were handled long since, and wrote nothing.
    await handshake('Europe/Paris');
    await waitUntil(async () => (await stored())?.timeZone === 'Europe/Paris');
    expect((await writes()).filter((seq) => seq > before)).toHaveLength(1);
  });

  test('update-presence away tells the others and stores away', async () => {
    const s = await start();
    const alice = await connectAs(s, 'alice@demo.local');
    const bob = await connectAs(s, 'bob@demo.local');

    const update = nextEventWhere(bob.socket, 'user-presence-update', (p) => p.userId === alice.userId);
    alice.socket.emit('update-presence', { status: 'away' });
    const payload = await update;

    expect(payload).toMatchObject({ userId: alice.userId, status: 'away' });
    expect(typeof payload.lastSeen).toBe('string');
    expect(await rowOf(s, alice.userId)).toMatchObject({ status: 'away', lastSeen: payload.lastSeen });

    const back = nextEventWhere(bob.socket, 'user-presence-update', (p) => p.userId === alice.userId);
    alice.socket.emit('update-presence', { status: 'online' });
    expect((await back).status).toBe('online');
    expect((await rowOf(s, alice.userId))?.status).toBe('online');
  });

  test('update-presence with offline or an unknown status is refused with an error event', async () => {
    const s = await start();
    const alice = await connectAs(s, 'alice@demo.local');
    const bob = await connectAs(s, 'bob@demo.local');
    const updates = recordEvents(bob.socket, 'user-presence-update');

    for (const status of ['offline', 'sleeping']) {
      const error = nextEvent(alice.socket, 'error');
      // A misbehaving client can send anything; the cast stands for that.
      alice.socket.emit('update-presence', { status } as { status: 'away' });
      expect(await error).toEqual({ code: 'invalid_input', message: 'Presence must be online or away.' });
    }

    expect((await rowOf(s, alice.userId))?.status).toBe('online');
    // A valid update afterwards is the first and only one bob hears.
    const away = nextEventWhere(bob.socket, 'user-presence-update', (p) => p.userId === alice.userId);
    alice.socket.emit('update-presence', { status: 'away' });
    await away;
    expect(updates.map((p) => p.status)).toEqual(['away']);
  });
});
