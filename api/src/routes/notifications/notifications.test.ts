import { describe, expect, test } from 'vitest';
import { and, count, eq, isNull } from 'drizzle-orm';
import {
  errorCatalogue,
  notificationSchema,
  uuidv7,
  type Notification,
  type NotificationType,
  type ServerToClientEvents,
} from '@office/sync-protocol';
import { notifications, users } from '../../db/schema';
import { currentVersion } from '../../domain/change-log';
import { inDays, recordEvents, sleep, uniqueText, waitUntil } from '../../test-support';
import { expectRefusal, mutation, useSeededServer, type Answer, type Session } from '../../test-api-client';

// One seeded server for the file; each test makes its own notifications (or its own fresh users) and checks them by id.
const { server, people, db, call, pull, push, registerEmployee } = useSeededServer();

const notificationCount = () => db().select({ n: count() }).from(notifications).get()?.n ?? 0;
const notificationRow = (id: string) => db().select().from(notifications).where(eq(notifications.id, id)).get();
const unreadOf = (userId: string) =>
  db()
    .select({ n: count() })
    .from(notifications)
    .where(and(eq(notifications.recipientId, userId), isNull(notifications.readAt)))
    .get()?.n ?? 0;

type Sent = { success: boolean; notification: Notification };
type Listed = { success: boolean; notifications: Notification[]; unreadCount: number; nextBefore: string | null };
type Marked = { success: boolean; notification: Notification };

const send = <T = Sent>(session: Session | null, payload: Record<string, unknown>) =>
  call<T>(session, 'POST', '/api/notifications', payload);

async function sendOk(session: Session, payload: Record<string, unknown>): Promise<Notification> {
  const res = await send(session, payload);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body.success).toBe(true);
  return notificationSchema.parse(res.body.notification);
}

async function list(session: Session, query = ''): Promise<Listed> {
  const res = await call<Listed>(session, 'GET', `/api/notifications${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.success).toBe(true);
  for (const notification of res.body.notifications) notificationSchema.parse(notification);
  return res.body;
}

/** Every page of the caller's list, following nextBefore; the ids in order and each page's answer. */
async function walk(session: Session, limit: number): Promise<{ ids: string[]; pages: Listed[] }> {
  const pages: Listed[] = [];
  let before: string | null = null;
  do {
    const page = await list(session, `?limit=${limit}${before ? `&before=${before}` : ''}`);
    pages.push(page);
    before = page.nextBefore;
    if (pages.length > 100) throw new Error('paging does not end');
  } while (before);
  return { ids: pages.flatMap((page) => page.notifications.map((n) => n.id)), pages };
}

const markRead = (session: Session | null, id: string) =>
  call<Marked>(session, 'PATCH', `/api/notifications/${id}/read`);
const markAllRead = (session: Session | null) =>
  call<{ success: boolean; marked: number }>(session, 'PATCH', '/api/notifications/read-all');

/** Stores a notification row directly, at a chosen time (ties and old rows the commands cannot make). */
function plant(
  recipient: Session,
  createdAt: string,
  fields: { title?: string; type?: NotificationType } = {},
): string {
  const id = uuidv7(new Date(createdAt).getTime());
  db()
    .insert(notifications)
    .values({
      id,
      recipientId: recipient.user.id,
      senderId: people.manager.user.id,
      type: fields.type ?? 'custom',
      title: fields.title ?? uniqueText('Planted'),
      message: 'Planted for the test',
      createdAt,
    })
    .run();
  return id;
}

/** The recipient's notification ids as the list must order them: newest first, the larger id first on a tie. */
const expectedOrder = (userId: string) =>
  db()
    .select({ id: notifications.id, createdAt: notifications.createdAt })
    .from(notifications)
    .where(eq(notifications.recipientId, userId))
    .all()
    .sort((a, b) => (a.createdAt === b.createdAt ? b.id.localeCompare(a.id) : b.createdAt.localeCompare(a.createdAt)))
    .map((row) => row.id);

const ref = (s: Session) => ({ _id: s.user.id, id: s.user.id, name: s.user.name });

describe('GET /api/notifications', () => {
  test("lists only the caller's, newest first, with their unread count", async () => {
    const { manager, alice, bob } = people;
    const nora = await registerEmployee('Nora List');
    const first = await sendOk(manager, { recipient: nora.user.id, title: 'First', message: 'One' });
    await sleep(5);
    const second = await sendOk(alice, { recipient: nora.user.id, title: 'Second', message: 'Two' });
    // Someone else's, made in between, never shows.
    const bobs = await sendOk(manager, { recipient: bob.user.id, title: 'For Bob', message: 'Not Nora' });

    const page = await list(nora);
    expect(page.notifications.map((n) => n.id)).toEqual([second.id, first.id]);
    expect(page.notifications[0]).toEqual(second);
    expect(page.notifications[1]).toMatchObject({ sender: ref(manager), recipient: nora.user.id, read: false });
    expect(page.unreadCount).toBe(2);
    expect(page.nextBefore).toBeNull();

    // Bob's list has his, never Nora's; nobody's list holds another recipient's notification.
    const bobsPage = await list(bob, '?limit=100');
    expect(bobsPage.notifications.map((n) => n.id)).toContain(bobs.id);
    expect(bobsPage.notifications.map((n) => n.id)).not.toContain(first.id);
    expect(bobsPage.notifications.every((n) => n.recipient === bob.user.id)).toBe(true);
    expect(bobsPage.unreadCount).toBe(unreadOf(bob.user.id));
  });

  test('pages by limit and before=nextBefore with no duplicates or gaps, even among notifications of one instant', async () => {
    const { bob } = people;
    const nora = await registerEmployee('Nora Pages');
    const instant = new Date(Date.now() - 60_000).toISOString();
    // Three old ones, six sharing one instant (UUIDv7 ids of one millisecond order at random), two later ones.
    for (let i = 0; i < 3; i += 1) plant(nora, new Date(Date.now() - 120_000 + i).toISOString());
    for (let i = 0; i < 6; i += 1) plant(nora, instant);
    for (let i = 0; i < 2; i += 1) plant(nora, new Date(Date.now() - 30_000).toISOString());
    // And one from a chat message, which notifies the whole team in one instant.
    const chat = await call(bob, 'POST', '/api/messages', { text: uniqueText('Hello team') });
    expect(chat.status, JSON.stringify(chat.body)).toBe(201);
    const expected = expectedOrder(nora.user.id);
    expect(expected).toHaveLength(12);

    for (const limit of [1, 4, 5, 12, 20]) {
      const { ids, pages } = await walk(nora, limit);
      expect(ids, `limit ${limit}`).toEqual(expected);
      expect(pages).toHaveLength(Math.max(1, Math.ceil(12 / limit)));
      for (const page of pages) {
        expect(page.notifications.length).toBeLessThanOrEqual(limit);
        expect(page.unreadCount).toBe(12);
      }
    }
    expect((await list(nora)).notifications).toHaveLength(12);
  });

  test("a before naming someone else's notification never shows theirs", async () => {
    const { alice, bob } = people;
    const bobs = await sendOk(alice, { recipient: bob.user.id, title: 'Private', message: 'For Bob only' });
    const page = await list(alice, `?limit=100&before=${bobs.id}`);
    expect(page.notifications.every((n) => n.recipient === alice.user.id)).toBe(true);
    expect(page.notifications.map((n) => n.id)).not.toContain(bobs.id);
  });

  test('a bad limit or before is refused with 400, a call without a token with 401', async () => {
    const { alice } = people;
    for (const query of ['?limit=0', '?limit=101', '?limit=abc', '?before=not-an-id']) {
      const res = await call(alice, 'GET', `/api/notifications${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body, query).toMatchObject({ code: 'invalid_input' });
    }
    expectRefusal(
      await call(null, 'GET', '/api/notifications'),
      401,
      'unauthenticated',
      errorCatalogue.unauthenticated.message,
    );
  });
});

describe('PATCH /api/notifications/{id}/read', () => {
  test('marks one of the caller’s as read, lowers the unread count, and a second mark changes nothing', async () => {
    const { manager } = people;
    const nora = await registerEmployee('Nora Read');
    const one = await sendOk(manager, { recipient: nora.user.id, title: 'One', message: 'First' });
    const two = await sendOk(manager, { recipient: nora.user.id, title: 'Two', message: 'Second' });
    expect((await list(nora)).unreadCount).toBe(2);

    const res = await markRead(nora, one.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.success).toBe(true);
    const marked = notificationSchema.parse(res.body.notification);
    expect(marked).toMatchObject({ id: one.id, read: true, title: 'One', sender: ref(manager) });
    const readAt = notificationRow(one.id)?.readAt;
    expect(readAt).toEqual(expect.any(String));
    expect(notificationRow(two.id)?.readAt).toBeNull();

    const page = await list(nora);
    expect(page.unreadCount).toBe(1);
    expect(page.notifications.find((n) => n.id === one.id)?.read).toBe(true);
    expect(page.notifications.find((n) => n.id === two.id)?.read).toBe(false);

    // Idempotent: the same answer, the first read time kept, nothing new to sync.
    const version = currentVersion(db());
    const again = await markRead(nora, one.id);
    expect(again.status).toBe(200);
    expect(again.body.notification).toEqual(marked);
    expect(notificationRow(one.id)?.readAt).toBe(readAt);
    expect(currentVersion(db())).toBe(version);
    expect((await list(nora)).unreadCount).toBe(1);
  });

  test("another user's notification answers 404 and stays unread; an unknown id 404, a malformed one 400", async () => {
    const { alice, bob, manager } = people;
    const bobs = await sendOk(alice, { recipient: bob.user.id, title: 'Mine', message: 'Bob’s' });
    const before = notificationRow(bobs.id);

    for (const session of [alice, manager]) {
      expectRefusal(await markRead(session, bobs.id), 404, 'not_found', 'Notification not found.');
    }
    expect(notificationRow(bobs.id)).toEqual(before);
    expectRefusal(await markRead(alice, uuidv7()), 404, 'not_found', 'Notification not found.');
    expect((await markRead(alice, 'not-an-id')).status).toBe(400);
    expectRefusal(await markRead(null, bobs.id), 401, 'unauthenticated', errorCatalogue.unauthenticated.message);
    expect(notificationRow(bobs.id)?.readAt).toBeNull();
  });
});

describe('PATCH /api/notifications/read-all', () => {
  test("marks every one of the caller's and nobody else's", async () => {
    const { manager, bob } = people;
    const nora = await registerEmployee('Nora All');
    for (const title of ['A', 'B', 'C']) await sendOk(manager, { recipient: nora.user.id, title, message: title });
    const bobs = await sendOk(manager, { recipient: bob.user.id, title: 'Bob', message: 'Still unread' });
    const bobsUnread = unreadOf(bob.user.id);

    const res = await markAllRead(nora);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ success: true, marked: 3 });
    const page = await list(nora);
    expect(page.unreadCount).toBe(0);
    expect(page.notifications.map((n) => n.read)).toEqual([true, true, true]);
    expect(notificationRow(bobs.id)?.readAt).toBeNull();
    expect(unreadOf(bob.user.id)).toBe(bobsUnread);

    // Nothing left: marks none and records nothing.
    const version = currentVersion(db());
    expect((await markAllRead(nora)).body).toEqual({ success: true, marked: 0 });
    expect(currentVersion(db())).toBe(version);
    expectRefusal(await markAllRead(null), 401, 'unauthenticated', errorCatalogue.unauthenticated.message);
  });
});

describe('POST /api/notifications', () => {
  test('the sender is always the caller, whatever sender the payload names', async () => {
    const { alice, bob, carol } = people;
    const data = { messageId: uuidv7(), conversationId: uuidv7(), messageText: 'Hi Bob', senderName: alice.user.name };

    const res = await send(alice, {
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

  test('a missing message or recipient, an unknown type, an overlong title or non-object data is refused with 400', async () => {
    const { alice, bob } = people;
    const before = notificationCount();
    const valid = { recipient: bob.user.id, title: 'Hi', message: 'Hello' };

    expectRefusal(
      await send(alice, { recipient: bob.user.id, title: 'Hi' }),
      400,
      'invalid_input',
      'A message is required',
    );
    const refusals: Answer[] = [
      await send(alice, { title: 'Hi', message: 'No recipient' }),
      await send(alice, { ...valid, type: 'party_invite' }),
      await send(alice, { ...valid, title: 'x'.repeat(201) }),
      await send(alice, { ...valid, message: 'x'.repeat(1001) }),
      await send(alice, { ...valid, data: 'not an object' }),
      await send(alice, { ...valid, relatedTask: 'not-an-id' }),
    ];
    for (const answer of refusals) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body).toMatchObject({ code: 'invalid_input' });
    }
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
});

describe('realtime', () => {
  type SyncChange = Parameters<ServerToClientEvents['sync.change']>[0];

  test("the recipient's socket receives it as a sync.change, and it never appears in another user's pull", async () => {
    const { alice, bob, carol } = people;
    const clients = { alice: uuidv7(), bob: uuidv7(), carol: uuidv7() };
    const cursors = {
      alice: (await pull(alice, clients.alice, 0)).cursor,
      bob: (await pull(bob, clients.bob, 0)).cursor,
      carol: (await pull(carol, clients.carol, 0)).cursor,
    };
    const bobSocket = await server.connect(bob.token);
    const carolSocket = await server.connect(carol.token);
    const carols: SyncChange[] = recordEvents(carolSocket, 'sync.change');
    const bobs: SyncChange[] = recordEvents(bobSocket, 'sync.change');

    const notification = await sendOk(alice, { recipient: bob.user.id, title: 'Ping', message: 'Are you free?' });

    await waitUntil(() => bobs.some((e) => e.change.id === notification.id));
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

  test("the 'notification' event reaches only the recipient's sockets", async () => {
    const { manager, alice, bob } = people;
    const aliceSockets = [await server.connect(alice.token), await server.connect(alice.token)];
    const bobSocket = await server.connect(bob.token);
    const managerSocket = await server.connect(manager.token);
    const alices = aliceSockets.map((socket) => recordEvents(socket, 'notification'));
    const bobs = recordEvents(bobSocket, 'notification');
    const managers = recordEvents(managerSocket, 'notification');

    const forAlice = await sendOk(manager, { recipient: alice.user.id, title: 'For Alice', message: 'Only her' });
    await waitUntil(() => alices.every((seen) => seen.length === 1));
    for (const seen of alices) expect(seen).toEqual([{ notification: forAlice }]);

    // Events reach one socket in the order they were sent: once Bob hears his own, he would have heard Alice's.
    const forBob = await sendOk(manager, { recipient: bob.user.id, title: 'For Bob', message: 'Only him' });
    await waitUntil(() => bobs.length > 0);
    expect(bobs).toEqual([{ notification: forBob }]);
    expect(managers).toEqual([]);
    expect(alices.map((seen) => seen.length)).toEqual([1, 1]);
  });

  test('a task assignment tells the assignee’s socket with the task_assigned notification', async () => {
    const { manager, alice } = people;
    const socket = await server.connect(alice.token);
    const seen = recordEvents(socket, 'notification');
    const title = uniqueText('Socket task');
    const res = await call<{ task: { id: string } }>(manager, 'POST', '/api/tasks', {
      title,
      assignedTo: alice.user.id,
      dueDate: inDays(3),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await waitUntil(() => seen.some((e) => e.notification.relatedTask === res.body.task.id));
    expect(seen.find((e) => e.notification.relatedTask === res.body.task.id)?.notification).toMatchObject({
      recipient: alice.user.id,
      sender: ref(manager),
      type: 'task_assigned',
      title: 'New Task Assigned',
      message: `${manager.user.name} assigned you "${title}"`,
      read: false,
    });
  });
});

describe('sync', () => {
  test('notification.markRead marks the pusher’s own; someone else’s is rejected and stays unread', async () => {
    const { manager, alice, bob } = people;
    const mine = await sendOk(manager, { recipient: alice.user.id, title: 'Sync read', message: 'Mark me' });
    const bobs = await sendOk(manager, { recipient: bob.user.id, title: 'Not yours', message: 'Leave me' });
    const clientId = uuidv7();

    const answer = await push(alice, clientId, [
      mutation(1, 'notification.markRead', { id: mine.id }),
      mutation(2, 'notification.markRead', { id: bobs.id }),
      mutation(3, 'notification.markRead', { id: mine.id }),
    ]);
    expect(answer.outcomes).toEqual([
      { id: 1, status: 'applied' },
      { id: 2, status: 'rejected', code: 'not_found', message: 'Notification not found.' },
      { id: 3, status: 'applied' },
    ]);
    expect(notificationRow(mine.id)?.readAt).toEqual(expect.any(String));
    expect(notificationRow(bobs.id)?.readAt).toBeNull();
    expect((await list(alice, '?limit=100')).notifications.find((n) => n.id === mine.id)?.read).toBe(true);
    expect((await list(bob, '?limit=100')).notifications.find((n) => n.id === bobs.id)?.read).toBe(false);
  });

  test('notification.markAllRead marks all of the pusher’s, or only those up to `through`, and nobody else’s', async () => {
    const { manager, bob } = people;
    const nora = await registerEmployee('Nora Sync');
    const old = plant(nora, new Date(Date.now() - 60_000).toISOString());
    const through = new Date(Date.now() - 30_000).toISOString();
    const recent = await sendOk(manager, { recipient: nora.user.id, title: 'Recent', message: 'After through' });
    const bobs = await sendOk(manager, { recipient: bob.user.id, title: 'Bob', message: 'Not Nora’s' });
    const clientId = uuidv7();

    const bounded = await push(nora, clientId, [mutation(1, 'notification.markAllRead', { through })]);
    expect(bounded.outcomes).toEqual([{ id: 1, status: 'applied' }]);
    expect(notificationRow(old)?.readAt).toEqual(expect.any(String));
    expect(notificationRow(recent.id)?.readAt).toBeNull();

    const all = await push(nora, clientId, [mutation(2, 'notification.markAllRead', {})]);
    expect(all.outcomes).toEqual([{ id: 2, status: 'applied' }]);
    expect(notificationRow(recent.id)?.readAt).toEqual(expect.any(String));
    expect((await list(nora)).unreadCount).toBe(0);
    expect(notificationRow(bobs.id)?.readAt).toBeNull();
  });

  test('the read state change reaches only the recipient’s pull', async () => {
    const { manager, alice, bob } = people;
    const notification = await sendOk(manager, { recipient: alice.user.id, title: 'Pull me', message: 'Read later' });
    const clients = { alice: uuidv7(), bob: uuidv7(), manager: uuidv7() };
    const cursors = {
      alice: (await pull(alice, clients.alice, 0)).cursor,
      bob: (await pull(bob, clients.bob, 0)).cursor,
      manager: (await pull(manager, clients.manager, 0)).cursor,
    };

    const answer = await push(alice, clients.alice, [mutation(1, 'notification.markRead', { id: notification.id })]);
    expect(answer.outcomes).toEqual([{ id: 1, status: 'applied' }]);

    const alicesPull = await pull(alice, clients.alice, cursors.alice);
    const change = alicesPull.changes.find((c) => c.id === notification.id);
    expect(change).toMatchObject({ entity: 'notification', op: 'put', id: notification.id });
    const data = change && 'data' in change ? change.data : undefined;
    expect(notificationSchema.parse(data)).toMatchObject({ id: notification.id, read: true });
    for (const [session, clientId, cursor] of [
      [bob, clients.bob, cursors.bob],
      [manager, clients.manager, cursors.manager],
    ] as const) {
      expect((await pull(session, clientId, cursor)).changes.map((c) => c.id)).not.toContain(notification.id);
    }
  });
});
