import { describe, expect, test, vi } from 'vitest';
import { and, count, eq } from 'drizzle-orm';
import {
  errorCatalogue,
  notificationMarkerSchema,
  notificationSchema,
  notificationTexts,
  uuidv7,
  type Conversation,
  type DirectMessage,
  type Notification,
  type NotificationType,
  type ServerToClientEvents,
} from '@office/sync-protocol';
import { dialect } from '../../db/dialect';
import { chatNoticeReads, notificationMarkers, notifications } from '../../db/schema';
import { newestSeq } from '../../domain/change-log';
import { inDays, recordEvents, sleep, uniqueText, waitUntil } from '../../../test/support';
import { expectRefusal, mutation, useSeededServer, type Answer, type Session } from '../../../test/api-client';

// One seeded server for the file. Each test registers the people whose notices it counts, right before it
// makes them: a team chat message is a notice of everyone who had joined when it was sent.
const { server, people, db, call, pull, push, registerEmployee } = useSeededServer();

const notificationCount = async () => (await db().select({ n: count() }).from(notifications))[0]?.n ?? 0;
const notificationRow = async (id: string) =>
  (await db().select().from(notifications).where(eq(notifications.id, id)))[0];
const markerRow = async (userId: string) =>
  (await db().select().from(notificationMarkers).where(eq(notificationMarkers.id, userId)))[0];
const readMarks = (userId: string) => db().select().from(chatNoticeReads).where(eq(chatNoticeReads.userId, userId));

type Listed = { success: boolean; notifications: Notification[]; unreadCount: number; nextBefore: string | null };
type Marked = { success: boolean; notification: Notification };
type Sent = { success: boolean; notification: Notification };

async function list(session: Session, query = '?limit=100'): Promise<Listed> {
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
async function plant(
  recipient: Session,
  createdAt: string,
  fields: { title?: string; type?: NotificationType } = {},
): Promise<string> {
  const id = uuidv7(new Date(createdAt).getTime());
  await db()
    .insert(notifications)
    .values({
      id,
      recipientId: recipient.user.id,
      senderId: people.manager.user.id,
      type: fields.type ?? 'task_updated',
      title: fields.title ?? uniqueText('Planted'),
      message: 'Planted for the test',
      createdAt,
    });
  return id;
}

/** Posts a team chat message; its id. */
async function chat(session: Session, text = uniqueText('Team news')): Promise<string> {
  const res = await call<{ message: { id: string } }>(session, 'POST', '/api/messages', { text });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.message.id;
}

/** Sends a direct message from one to another (starting their conversation); the message and conversation. */
async function directMessage(
  from: Session,
  to: Session,
  text = uniqueText('Hello'),
): Promise<{ message: DirectMessage; conversation: Conversation }> {
  const started = await call<{ conversation: Conversation }>(from, 'POST', '/api/direct-messages/conversations', {
    recipientId: to.user.id,
  });
  expect(started.status, JSON.stringify(started.body)).toBeLessThan(300);
  const conversation = started.body.conversation;
  const sent = await call<{ message: DirectMessage }>(
    from,
    'POST',
    `/api/direct-messages/conversations/${conversation.id}/messages`,
    { text },
  );
  expect(sent.status, JSON.stringify(sent.body)).toBe(201);
  return { message: sent.body.message, conversation };
}

/** The stored notice a direct message made for its recipient. */
const noticeOfMessage = async (recipient: Session, messageId: string) =>
  (
    await db()
      .select()
      .from(notifications)
      .where(and(eq(notifications.recipientId, recipient.user.id), eq(notifications.messageId, messageId)))
  )[0];

/** The recipient's notice ids as the list must order them: newest first, the larger id first on a tie. */
const byNewest = (items: { id: string; createdAt: string }[]) =>
  [...items]
    .sort((a, b) => (a.createdAt === b.createdAt ? b.id.localeCompare(a.id) : b.createdAt.localeCompare(a.createdAt)))
    .map((item) => item.id);

const ref = (s: Session) => ({ _id: s.user.id, id: s.user.id, name: s.user.name });

describe('team chat notices (derived from the message, one row for the whole team)', () => {
  test('a chat message is a notice of every other member, not of its author, with the spec’s title and text', async () => {
    const ann = await registerEmployee('Ann Chat');
    const ben = await registerEmployee('Ben Chat');
    const cal = await registerEmployee('Cal Chat');
    const long = `${'A long announcement about the offsite '.repeat(3)}end`;
    const before = await list(ben);
    const id = await chat(ann, long);

    for (const reader of [ben, cal]) {
      const page = await list(reader);
      expect(page.notifications[0]).toEqual({
        _id: id,
        id,
        recipient: reader.user.id,
        sender: ref(ann),
        type: 'chat_message',
        title: `New message from ${ann.user.name}`,
        message: `${long.slice(0, 50)}...`,
        relatedTask: null,
        data: { messageId: id },
        read: false,
        createdAt: expect.any(String) as unknown,
        version: expect.any(Number) as unknown,
      });
    }
    expect((await list(ben)).unreadCount).toBe(before.unreadCount + 1);
    expect((await list(ann)).notifications.map((n) => n.id)).not.toContain(id);
    // Nothing stored per member.
    expect(await db().select().from(notifications).where(eq(notifications.type, 'chat_message'))).toEqual([]);
  });

  test('a member who joined after a message sees nothing older; an edit shows in the notice, a delete removes it', async () => {
    const ann = await registerEmployee('Ann Joined');
    const early = await chat(ann, 'Before Dan joined');
    await sleep(5);
    const dan = await registerEmployee('Dan Joined');
    const later = await chat(ann, 'After Dan joined');
    const dans = await list(dan);
    expect(dans.notifications.map((n) => n.id)).toEqual([later]);
    expect(dans.unreadCount).toBe(1);
    expect(dans.notifications.map((n) => n.id)).not.toContain(early);

    expect((await call(ann, 'PUT', `/api/messages/${later}`, { text: 'After Dan joined (edited)' })).status).toBe(200);
    expect((await list(dan)).notifications[0]).toMatchObject({ id: later, message: 'After Dan joined (edited)' });
    expect((await call(ann, 'DELETE', `/api/messages/${later}`)).status).toBe(200);
    const after = await list(dan);
    expect(after.notifications).toEqual([]);
    expect(after.unreadCount).toBe(0);
  });

  test('marking one chat notice read is that person’s alone: one mark row, nothing per member', async () => {
    const ann = await registerEmployee('Ann Mark');
    const ben = await registerEmployee('Ben Mark');
    const cal = await registerEmployee('Cal Mark');
    const first = await chat(ann);
    const second = await chat(ann);
    const rows = await notificationCount();

    const res = await markRead(ben, first);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.notification).toMatchObject({
      id: first,
      read: true,
      type: 'chat_message',
      recipient: ben.user.id,
    });
    expect(await readMarks(ben.user.id)).toEqual([
      expect.objectContaining({ messageId: first, messageCreatedAt: res.body.notification.createdAt }),
    ]);
    const bens = await list(ben);
    expect(bens.notifications.find((n) => n.id === first)?.read).toBe(true);
    expect(bens.notifications.find((n) => n.id === second)?.read).toBe(false);
    expect(bens.unreadCount).toBe(1);
    const cals = await list(cal);
    expect(cals.notifications.filter((n) => !n.read).map((n) => n.id)).toEqual([second, first]);
    expect(cals.unreadCount).toBe(2);
    expect(await notificationCount()).toBe(rows);

    // Again: the same answer, nothing new to sync.
    const version = await newestSeq(db());
    expect((await markRead(ben, first)).body.notification).toEqual(res.body.notification);
    expect(await newestSeq(db())).toBe(version);
    // The author has no notice of their own message.
    expectRefusal(await markRead(ann, first), 404, 'not_found', 'Notification not found.');
  });

  test.runIf(dialect === 'sqlite')(
    'the unread count reads the live messages index alone, never the table',
    async () => {
      const cal = await registerEmployee('Cal Count');
      const dee = await registerEmployee('Dee Count');
      await chat(cal);
      await chat(dee);
      const client = db().$client;
      const prepare = vi.spyOn(client, 'prepare');
      let sources: string[];
      try {
        expect((await list(dee)).unreadCount).toBe(1);
      } finally {
        sources = prepare.mock.calls.map(([source]) => source);
        prepare.mockRestore();
      }
      const counts = sources.filter((source) => /^select count\(\*\).* from "chat_messages"/.test(source));
      expect(counts.length).toBeGreaterThan(0);
      for (const source of counts) {
        const plan = client.prepare(`EXPLAIN QUERY PLAN ${source}`);
        const params = source.split('?').length - 1;
        const steps = (plan.all(...Array.from({ length: params }, () => '')) as { detail: string }[]).map(
          (s) => s.detail,
        );
        expect(steps, source).toEqual([expect.stringContaining('USING COVERING INDEX chat_messages_live')]);
      }
    },
  );

  test('"Mark all as read" is one write, whatever it covers; later notices stay unread', async () => {
    const ann = await registerEmployee('Ann All');
    const ben = await registerEmployee('Ben All');
    for (let i = 0; i < 5; i += 1) await chat(ann);
    const { message } = await directMessage(ann, ben);
    const planted = await plant(ben, new Date().toISOString());
    const marked = await chat(ann);
    await markRead(ben, marked);
    expect((await list(ben)).unreadCount).toBe(7);

    const version = await newestSeq(db());
    const res = await markAllRead(ben);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ success: true, marked: 7 });
    // One change-log row: the marker; the stored notices keep their rows as they were.
    expect(await newestSeq(db())).toBe(version + 1);
    expect((await markerRow(ben.user.id))?.readThrough).toEqual(expect.any(String));
    expect(await readMarks(ben.user.id)).toEqual([]);
    expect((await noticeOfMessage(ben, message.id))?.readAt).toBeNull();
    expect((await notificationRow(planted))?.readAt).toBeNull();
    const page = await list(ben);
    expect(page.unreadCount).toBe(0);
    expect(page.notifications.every((n) => n.read)).toBe(true);
    expect(page.notifications.map((n) => n.id)).toEqual(
      expect.arrayContaining([planted, marked, message.id ? (await noticeOfMessage(ben, message.id))?.id : '']),
    );

    await sleep(5);
    const fresh = await chat(ann);
    const after = await list(ben);
    expect(after.unreadCount).toBe(1);
    expect(after.notifications[0]).toMatchObject({ id: fresh, read: false });

    // Nothing left to mark: marks none, yet the marker still moves (one change), since a device that asked moved
    // its own copy and only a change of the server's row brings every device back to one value.
    await markRead(ben, fresh);
    const before = await newestSeq(db());
    expect((await markAllRead(ben)).body).toEqual({ success: true, marked: 0 });
    expect(await newestSeq(db())).toBe(before + 1);
    expectRefusal(await markAllRead(null), 401, 'unauthenticated', errorCatalogue.unauthenticated.message);
  });
});

describe('GET /api/notifications', () => {
  test("lists only the caller's, stored and chat notices merged newest first, with their unread count", async () => {
    const nora = await registerEmployee('Nora List');
    const { bob } = people;
    const task = await call<{ task: { id: string } }>(people.manager, 'POST', '/api/tasks', {
      title: uniqueText('Listed task'),
      assignedTo: nora.user.id,
      dueDate: inDays(3),
    });
    expect(task.status).toBe(201);
    await sleep(5);
    const chatId = await chat(bob);
    await sleep(5);
    const { message } = await directMessage(people.alice, nora);
    const dmNotice = await noticeOfMessage(nora, message.id);
    // Someone else's, made in between, never shows.
    const bobs = await directMessage(people.alice, bob);

    const page = await list(nora);
    expect(page.notifications.map((n) => [n.type, n.sender?.id])).toEqual([
      ['direct_message', people.alice.user.id],
      ['chat_message', bob.user.id],
      ['task_assigned', people.manager.user.id],
    ]);
    expect(page.notifications.map((n) => n.id)).toEqual([dmNotice?.id, chatId, expect.any(String)]);
    expect(page.notifications.every((n) => n.recipient === nora.user.id && !n.read)).toBe(true);
    expect(page.unreadCount).toBe(3);
    expect(page.nextBefore).toBeNull();
    expect(page.notifications.map((n) => n.id)).not.toContain((await noticeOfMessage(bob, bobs.message.id))?.id);
  });

  test('pages by limit and before=nextBefore with no duplicates or gaps, even among notices of one instant', async () => {
    const nora = await registerEmployee('Nora Pages');
    const instant = new Date(Date.now() + 1).toISOString();
    await sleep(5);
    // Six stored ones sharing one instant (UUIDv7 ids of one millisecond order at random), two later ones,
    // and chat notices in between.
    const stored: { id: string; createdAt: string }[] = [];
    for (let i = 0; i < 6; i++) stored.push({ id: await plant(nora, instant), createdAt: instant });
    const chats = [await chat(people.bob), await chat(people.carol), await chat(people.bob)];
    await sleep(5);
    const later = new Date().toISOString();
    stored.push({ id: await plant(nora, later), createdAt: later }, { id: await plant(nora, later), createdAt: later });
    const chatRows = (await list(nora)).notifications.filter((n) => chats.includes(n.id));
    const expected = byNewest([...stored, ...chatRows]);
    expect(expected).toHaveLength(11);

    for (const limit of [1, 4, 5, 11, 20]) {
      const { ids, pages } = await walk(nora, limit);
      expect(ids, `limit ${limit}`).toEqual(expected);
      expect(pages).toHaveLength(Math.max(1, Math.ceil(11 / limit)));
      for (const page of pages) {
        expect(page.notifications.length).toBeLessThanOrEqual(limit);
        expect(page.unreadCount).toBe(11);
      }
    }
  });

  test("a before naming someone else's notice never shows theirs", async () => {
    const { alice, bob } = people;
    const { message } = await directMessage(alice, bob);
    const bobs = await noticeOfMessage(bob, message.id);
    if (!bobs) throw new Error('no notice');
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
  test('marks one of the caller’s stored notices, lowers the unread count, and a second mark changes nothing', async () => {
    const nora = await registerEmployee('Nora Read');
    const one = await plant(nora, new Date(Date.now() - 2000).toISOString(), { title: 'One' });
    const two = await plant(nora, new Date(Date.now() - 1000).toISOString(), { title: 'Two' });
    expect((await list(nora)).unreadCount).toBe(2);

    const res = await markRead(nora, one);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const marked = notificationSchema.parse(res.body.notification);
    expect(marked).toMatchObject({ id: one, read: true, title: 'One', sender: ref(people.manager) });
    const readAt = (await notificationRow(one))?.readAt;
    expect(readAt).toEqual(expect.any(String));
    expect((await notificationRow(two))?.readAt).toBeNull();
    const page = await list(nora);
    expect(page.unreadCount).toBe(1);
    expect(page.notifications.find((n) => n.id === two)?.read).toBe(false);

    const version = await newestSeq(db());
    const again = await markRead(nora, one);
    expect(again.status).toBe(200);
    expect(again.body.notification).toEqual(marked);
    expect((await notificationRow(one))?.readAt).toBe(readAt);
    expect(await newestSeq(db())).toBe(version);
  });

  test("another user's notice answers 404 and stays unread; an unknown id 404, a malformed one 400", async () => {
    const { alice, bob, manager } = people;
    const { message } = await directMessage(alice, bob);
    const bobs = await noticeOfMessage(bob, message.id);
    if (!bobs) throw new Error('no notice');
    for (const session of [alice, manager]) {
      expectRefusal(await markRead(session, bobs.id), 404, 'not_found', 'Notification not found.');
    }
    expectRefusal(await markRead(alice, uuidv7()), 404, 'not_found', 'Notification not found.');
    expect((await markRead(alice, 'not-an-id')).status).toBe(400);
    expectRefusal(await markRead(null, bobs.id), 401, 'unauthenticated', errorCatalogue.unauthenticated.message);
    expect((await notificationRow(bobs.id))?.readAt).toBeNull();
  });
});

describe('POST /api/notifications (the spec’s client, after a direct message)', () => {
  const specPayload = (from: Session, to: Session, message: DirectMessage, extra: Record<string, unknown> = {}) => ({
    recipient: to.user.id,
    sender: from.user.id,
    type: 'direct_message',
    title: `New Direct Message from ${from.user.name}`,
    message: `${message.text.slice(0, 50)}...`,
    relatedTask: null,
    data: {
      messageId: message.id,
      conversationId: message.conversationId,
      messageText: message.text,
      senderName: from.user.name,
      timestamp: message.createdAt,
    },
    ...extra,
  });

  test('answers the notice the message already has: one notice per message, worded by the server', async () => {
    const { alice, bob } = people;
    const { message } = await directMessage(alice, bob, 'Lunch at noon?');
    const stored = await noticeOfMessage(bob, message.id);
    const rows = await notificationCount();

    const res = await call<Sent>(alice, 'POST', '/api/notifications', {
      ...specPayload(alice, bob, message),
      title: 'You won a prize',
      message: 'Click here',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.success).toBe(true);
    expect(notificationSchema.parse(res.body.notification)).toMatchObject({
      id: stored?.id,
      recipient: bob.user.id,
      sender: ref(alice),
      type: 'direct_message',
      title: `New Direct Message from ${alice.user.name}`,
      message: 'Lunch at noon?',
      data: { messageId: message.id, conversationId: message.conversationId, messageText: 'Lunch at noon?' },
    });
    expect(await notificationCount()).toBe(rows);
    expect((await call(alice, 'POST', '/api/notifications', specPayload(alice, bob, message))).status).toBe(200);
    expect(await notificationCount()).toBe(rows);
  });

  test('makes the notice when the message has none (once), in the spec’s format', async () => {
    const { carol, bob } = people;
    const { message } = await directMessage(carol, bob, 'x'.repeat(80));
    await db().delete(notifications).where(eq(notifications.messageId, message.id));

    const res = await call<Sent>(carol, 'POST', '/api/notifications', specPayload(carol, bob, message));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.notification).toMatchObject({
      title: `New Direct Message from ${carol.user.name}`,
      message: `${'x'.repeat(50)}...`,
      data: {
        messageId: message.id,
        conversationId: message.conversationId,
        messageText: message.text,
        senderName: carol.user.name,
        timestamp: message.createdAt,
      },
    });
    expect((await noticeOfMessage(bob, message.id))?.id).toBe(res.body.notification.id);
    const again = await call<Sent>(carol, 'POST', '/api/notifications', specPayload(carol, bob, message));
    expect(again.status).toBe(200);
    expect(again.body.notification.id).toBe(res.body.notification.id);
  });

  test('forged notices are refused and store nothing', async () => {
    const { alice, bob, carol } = people;
    const { message, conversation } = await directMessage(alice, bob);
    const rows = await notificationCount();
    const payload = specPayload(alice, bob, message);

    const refusals: [Answer, number, string, string][] = [
      // Another type, with any title and message.
      [
        await call(alice, 'POST', '/api/notifications', { ...payload, type: 'task_assigned' }),
        400,
        'invalid_input',
        notificationTexts.directOnly,
      ],
      [
        await call(alice, 'POST', '/api/notifications', { ...payload, type: 'custom' }),
        400,
        'invalid_input',
        notificationTexts.directOnly,
      ],
      // Without naming a message, or with data beyond the spec's fields (a megabyte of it).
      [
        await call(alice, 'POST', '/api/notifications', { ...payload, data: {} }),
        400,
        'invalid_input',
        notificationTexts.messageRequired,
      ],
      [
        await call(alice, 'POST', '/api/notifications', {
          ...payload,
          data: { ...payload.data, blob: 'x'.repeat(100_000) },
        }),
        400,
        'invalid_input',
        notificationTexts.specFieldsOnly,
      ],
      // Bob claims Alice's message.
      [
        await call(bob, 'POST', '/api/notifications', specPayload(bob, alice, message)),
        403,
        'forbidden',
        notificationTexts.notYourMessage,
      ],
      // To someone outside the conversation.
      [
        await call(alice, 'POST', '/api/notifications', { ...payload, recipient: carol.user.id }),
        403,
        'forbidden',
        notificationTexts.notTheRecipient,
      ],
      // About a conversation the caller is not part of.
      [
        await call(carol, 'POST', '/api/notifications', { ...payload, recipient: bob.user.id }),
        404,
        'message_not_found',
        errorCatalogue.message_not_found.message,
      ],
      [
        await call(alice, 'POST', '/api/notifications', {
          ...payload,
          data: { ...payload.data, messageId: uuidv7(), conversationId: conversation.id },
        }),
        404,
        'message_not_found',
        errorCatalogue.message_not_found.message,
      ],
      [
        await call(null, 'POST', '/api/notifications', payload),
        401,
        'unauthenticated',
        errorCatalogue.unauthenticated.message,
      ],
    ];
    for (const [answer, status, code, text] of refusals) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(status);
      expect(answer.body).toMatchObject({ code, message: text });
    }
    expect(await notificationCount()).toBe(rows);
  });
});

describe('realtime', () => {
  type SyncChange = Parameters<ServerToClientEvents['sync.change']>[0];

  test("a stored notice reaches its recipient's socket as a sync.change and a 'notification', nobody else's", async () => {
    const { alice, bob, carol } = people;
    const bobSocket = await server.connect(bob.token);
    const carolSocket = await server.connect(carol.token);
    const bobs: SyncChange[] = recordEvents(bobSocket, 'sync.change');
    const carols: SyncChange[] = recordEvents(carolSocket, 'sync.change');
    const bobNotices = recordEvents(bobSocket, 'notification');
    const carolNotices = recordEvents(carolSocket, 'notification');

    const { message } = await directMessage(alice, bob);
    const id = (await noticeOfMessage(bob, message.id))?.id;
    await waitUntil(() => bobs.some((e) => e.change.id === id) && bobNotices.length > 0);
    const event = bobs.find((e) => e.change.id === id);
    expect(event?.change).toMatchObject({ entity: 'notification', op: 'put', id });
    expect(event?.change).toMatchObject({ data: { version: (await notificationRow(id ?? ''))?.version } });
    expect(bobNotices[0]?.notification).toMatchObject({ id, recipient: bob.user.id });
    await sleep(50);
    expect(carols.filter((e) => e.change.id === id)).toEqual([]);
    expect(carolNotices).toEqual([]);
  });

  test('a chat message reaches every member as one chat message change, no per-member notice event', async () => {
    const { alice, bob, carol } = people;
    const sockets = [await server.connect(bob.token), await server.connect(carol.token)];
    const changes = sockets.map((socket) => recordEvents(socket, 'sync.change'));
    const notices = sockets.map((socket) => recordEvents(socket, 'notification'));
    const id = await chat(alice);
    await waitUntil(() => changes.every((seen) => seen.some((e) => e.change.id === id)));
    await sleep(50);
    for (const seen of changes) expect(seen.map((e) => [e.change.entity, e.change.id])).toEqual([['chatMessage', id]]);
    expect(notices).toEqual([[], []]);
  });
});

describe('sync', () => {
  test('notification.markRead marks the pusher’s own notices, stored or chat; someone else’s is rejected', async () => {
    const ann = await registerEmployee('Ann Sync');
    const ben = await registerEmployee('Ben Sync');
    const chatId = await chat(ann);
    const { message } = await directMessage(ann, ben);
    const dmNotice = await noticeOfMessage(ben, message.id);
    const { message: other } = await directMessage(ben, ann);
    const annsNotice = await noticeOfMessage(ann, other.id);
    const clientId = uuidv7();

    const answer = await push(ben, clientId, [
      mutation(1, 'notification.markRead', { id: dmNotice?.id }),
      mutation(2, 'notification.markRead', { id: chatId }),
      mutation(3, 'notification.markRead', { id: annsNotice?.id }),
    ]);
    expect(answer.outcomes).toEqual([
      { id: 1, status: 'applied' },
      { id: 2, status: 'applied' },
      { id: 3, status: 'rejected', code: 'not_found', message: 'Notification not found.' },
    ]);
    expect((await noticeOfMessage(ben, message.id))?.readAt).toEqual(expect.any(String));
    expect((await readMarks(ben.user.id)).map((mark) => mark.messageId)).toEqual([chatId]);
    expect((await noticeOfMessage(ann, other.id))?.readAt).toBeNull();
    expect((await list(ben)).unreadCount).toBe(0);
  });

  test('notification.markAllRead marks those up to `through` only, and nobody else’s', async () => {
    const ann = await registerEmployee('Ann Through');
    const ben = await registerEmployee('Ben Through');
    const old = await plant(ben, new Date(Date.now() - 60_000).toISOString());
    const earlyChat = await chat(ann);
    const through = new Date().toISOString();
    await sleep(5);
    const recent = await chat(ann);
    const clientId = uuidv7();

    const bounded = await push(ben, clientId, [mutation(1, 'notification.markAllRead', { through })]);
    expect(bounded.outcomes).toEqual([{ id: 1, status: 'applied' }]);
    const page = await list(ben);
    expect(Object.fromEntries(page.notifications.map((n) => [n.id, n.read]))).toEqual({
      [old]: true,
      [earlyChat]: true,
      [recent]: false,
    });
    expect((await list(ann)).unreadCount).toBe(0);

    await push(ben, clientId, [mutation(2, 'notification.markAllRead', {})]);
    expect((await list(ben)).unreadCount).toBe(0);
  });

  test('the read marker reaches only its person’s pull and bootstrap', async () => {
    const ann = await registerEmployee('Ann Pull');
    const ben = await registerEmployee('Ben Pull');
    const chatId = await chat(ann);
    const clients = { ann: uuidv7(), ben: uuidv7() };
    const cursors = {
      ann: (await pull(ann, clients.ann, '0')).cursor,
      ben: (await pull(ben, clients.ben, '0')).cursor,
    };

    await push(ben, clients.ben, [mutation(1, 'notification.markRead', { id: chatId })]);
    const bens = await pull(ben, clients.ben, cursors.ben);
    expect(bens.changes).toHaveLength(1);
    const marker = notificationMarkerSchema.parse(bens.changes[0]?.op === 'put' ? bens.changes[0].data : null);
    expect(marker).toMatchObject({ id: ben.user.id, readThrough: null, chatReads: [chatId] });
    expect((await pull(ann, clients.ann, cursors.ann)).changes).toEqual([]);
  });
});
