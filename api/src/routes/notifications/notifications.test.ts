import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { count, eq } from 'drizzle-orm';
import {
  errorCatalogue,
  notificationSchema,
  pullResponseSchema,
  uuidv7,
  type ErrorCode,
  type Notification,
  type PullResponse,
  type ServerToClientEvents,
  type User,
} from '@office/sync-protocol';
import { notifications, users } from '../../db/schema';
import { bearer, connectSocket, signIn, startTestServer, type TestServer, type TestSocket } from '../../test-support';

// One seeded server for the file; each test makes its own notifications and checks them by id.
type Session = { token: string; user: User };
type Name = 'manager' | 'alice' | 'bob' | 'carol';
const names: Name[] = ['manager', 'alice', 'bob', 'carol'];

let server: TestServer;
let people: Record<Name, Session>;
const sockets: TestSocket[] = [];

beforeAll(async () => {
  server = await startTestServer();
  const entries = await Promise.all(
    names.map(async (name) => [name, await signIn(server.app, `${name}@demo.local`)] as const),
  );
  people = Object.fromEntries(entries) as Record<Name, Session>;
});

afterEach(() => {
  for (const socket of sockets.splice(0)) socket.close();
});

afterAll(async () => {
  await server.close();
});

const db = () => server.app.db;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const notificationCount = () => db().select({ n: count() }).from(notifications).get()?.n ?? 0;
const notificationRow = (id: string) => db().select().from(notifications).where(eq(notifications.id, id)).get();

interface Answer<T = unknown> {
  status: number;
  body: T;
}

async function send<T = unknown>(session: Session | null, payload: Record<string, unknown>): Promise<Answer<T>> {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/notifications',
    headers: session ? bearer(session.token) : {},
    payload,
  });
  return { status: res.statusCode, body: res.json<T>() };
}

function expectRefusal(answer: Answer, status: number, code: ErrorCode, message: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body).toMatchObject({ code, message });
}

type Sent = { success: boolean; notification: Notification };

async function sendOk(session: Session, payload: Record<string, unknown>): Promise<Notification> {
  const res = await send<Sent>(session, payload);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body.success).toBe(true);
  return notificationSchema.parse(res.body.notification);
}

async function pull(session: Session, clientId: string, cursor: number): Promise<PullResponse> {
  const res = await server.app.inject({
    method: 'GET',
    url: `/api/sync/pull?clientId=${clientId}&cursor=${cursor}`,
    headers: bearer(session.token),
  });
  expect(res.statusCode, res.body).toBe(200);
  return pullResponseSchema.parse(res.json());
}

const ref = (s: Session) => ({ _id: s.user.id, id: s.user.id, name: s.user.name });

describe('POST /api/notifications', () => {
  test('the sender is always the caller, whatever sender the payload names', async () => {
    const { alice, bob, carol } = people;
    const data = { messageId: uuidv7(), conversationId: uuidv7(), messageText: 'Hi Bob', senderName: alice.user.name };

    const res = await send<Sent>(alice, {
      recipient: bob.user.id,
      sender: carol.user.id,
      type: 'direct_message',
      title: `New Direct Message from ${alice.user.name}`,
      message: 'Hi Bob...',
      relatedTask: null,
      data,
    });

    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.success).toBe(true);
    const notification = notificationSchema.parse(res.body.notification);
    expect(notification).toMatchObject({
      recipient: bob.user.id,
      sender: ref(alice),
      type: 'direct_message',
      title: `New Direct Message from ${alice.user.name}`,
      message: 'Hi Bob...',
      relatedTask: null,
      data,
      read: false,
    });
    expect(res.body.notification._id).toBe(notification.id);
    expect(notificationRow(notification.id)).toMatchObject({
      recipientId: bob.user.id,
      senderId: alice.user.id,
      type: 'direct_message',
      title: `New Direct Message from ${alice.user.name}`,
      message: 'Hi Bob...',
      relatedTaskId: null,
      data,
      readAt: null,
    });
  });

  test('the type defaults to custom and the data to an empty object', async () => {
    const { alice, bob } = people;
    const notification = await sendOk(bob, { recipient: alice.user.id, title: 'Lunch?', message: 'At noon' });
    expect(notification).toMatchObject({ type: 'custom', data: {}, sender: ref(bob) });
    expect(notificationRow(notification.id)).toMatchObject({ type: 'custom', data: {}, senderId: bob.user.id });
  });

  test('a notification to a recipient who does not exist is refused with 404 and stores nothing', async () => {
    const { alice, carol } = people;
    const before = notificationCount();

    expectRefusal(
      await send(alice, { recipient: uuidv7(), title: 'Hello', message: 'Anyone there?' }),
      404,
      'user_not_found',
      'The recipient does not exist.',
    );

    // A deactivated account is no recipient either.
    db().update(users).set({ deactivatedAt: new Date().toISOString() }).where(eq(users.id, carol.user.id)).run();
    try {
      expectRefusal(
        await send(alice, { recipient: carol.user.id, title: 'Hello', message: 'Still there?' }),
        404,
        'user_not_found',
        'The recipient does not exist.',
      );
    } finally {
      db().update(users).set({ deactivatedAt: null }).where(eq(users.id, carol.user.id)).run();
    }
    expect(notificationCount()).toBe(before);
  });

  test('a notification without a title, with a blank one or with a malformed recipient id is refused with 400 and stores nothing', async () => {
    const { alice, bob } = people;
    const before = notificationCount();

    const missing = await send(alice, { recipient: bob.user.id, message: 'No title here' });
    expectRefusal(missing, 400, 'invalid_input', 'A title is required');
    expect(missing.body).toMatchObject({ details: [expect.objectContaining({ path: 'title' })] });
    expectRefusal(
      await send(alice, { recipient: bob.user.id, title: '   ', message: 'Blank title' }),
      400,
      'invalid_input',
      'A title is required',
    );
    expectRefusal(
      await send(alice, { recipient: 'not-an-id', title: 'Hi', message: 'Bad id' }),
      400,
      'invalid_input',
      'Must be a UUID',
    );
    expect(notificationCount()).toBe(before);
  });

  test('a call without a token is refused with 401 and stores nothing', async () => {
    const before = notificationCount();
    expectRefusal(
      await send(null, { recipient: people.bob.user.id, title: 'Anonymous', message: 'Boo' }),
      401,
      'unauthenticated',
      errorCatalogue.unauthenticated.message,
    );
    expect(notificationCount()).toBe(before);
  });

  test('the answer is the notification just made, even when the recipient holds one with a larger id', async () => {
    const { manager, bob } = people;
    // UUIDv7 ids of the same millisecond order at random; the largest possible id stands in for such a tie.
    const planted = 'ffffffff-ffff-7fff-bfff-ffffffffffff';
    db()
      .insert(notifications)
      .values({
        id: planted,
        recipientId: bob.user.id,
        senderId: null,
        type: 'custom',
        title: 'Planted',
        message: 'Older',
      })
      .run();

    const notification = await sendOk(manager, { recipient: bob.user.id, title: 'Fresh', message: 'Just now' });

    expect(notification.id).not.toBe(planted);
    expect(notification).toMatchObject({ title: 'Fresh', message: 'Just now', sender: ref(manager) });
    expect(notificationRow(notification.id)).toMatchObject({ title: 'Fresh', senderId: manager.user.id });
  });

  test("the recipient's socket receives it as a sync.change, and it never appears in another user's pull", async () => {
    const { alice, bob, carol } = people;
    const clients = { alice: uuidv7(), bob: uuidv7(), carol: uuidv7() };
    const cursors = {
      alice: (await pull(alice, clients.alice, 0)).cursor,
      bob: (await pull(bob, clients.bob, 0)).cursor,
      carol: (await pull(carol, clients.carol, 0)).cursor,
    };
    const bobSocket = await connectSocket(server.url, bob.token);
    const carolSocket = await connectSocket(server.url, carol.token);
    sockets.push(bobSocket, carolSocket);
    type SyncChange = Parameters<ServerToClientEvents['sync.change']>[0];
    const carols: SyncChange[] = [];
    carolSocket.on('sync.change', (payload) => carols.push(payload));
    const bobs: SyncChange[] = [];
    bobSocket.on('sync.change', (payload) => bobs.push(payload));

    const notification = await sendOk(alice, { recipient: bob.user.id, title: 'Ping', message: 'Are you free?' });

    const deadline = Date.now() + 3000;
    while (!bobs.some((e) => e.change.id === notification.id) && Date.now() < deadline) await sleep(10);
    const event = bobs.find((e) => e.change.id === notification.id);
    expect(event?.change).toEqual({ entity: 'notification', op: 'put', id: notification.id, data: notification });
    expect(event?.seq).toBe(notificationRow(notification.id)?.version);

    const bobsPull = await pull(bob, clients.bob, cursors.bob);
    expect(bobsPull.changes).toEqual([{ entity: 'notification', op: 'put', id: notification.id, data: notification }]);
    expect((await pull(alice, clients.alice, cursors.alice)).changes).toEqual([]);
    expect((await pull(carol, clients.carol, cursors.carol)).changes).toEqual([]);
    for (const session of [alice, carol]) {
      expect((await pull(session, uuidv7(), 0)).changes.map((c) => c.id)).not.toContain(notification.id);
    }
    expect((await pull(bob, uuidv7(), 0)).changes.map((c) => c.id)).toContain(notification.id);
    await sleep(50);
    expect(carols.filter((e) => e.change.id === notification.id)).toEqual([]);
  });
});
