import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import {
  conversationForViewerSchema,
  conversationIdFor,
  directMessageSchema,
  directTexts,
  rooms,
  type DirectMessage,
  type SendMessageAck,
} from '@office/sync-protocol';
import { directMessages, notifications } from '../db/schema';
import { newestSeq } from '../domain/change-log';
import {
  nextEvent,
  nextEventWhere,
  recordEvents,
  sleep,
  uniqueText,
  waitUntil,
  type TestSocket,
} from '../../test/support';
import { useSeededServer, type Session } from '../../test/api-client';

// One seeded server for the whole file: alice↔bob and carol↔bob exist, carol takes no part in alice↔bob,
// bob none in manager↔alice. Sockets are opened per test and closed after it; the next test starts once the
// server has seen them go.
const { server, people, db, call } = useSeededServer({ awaitOffline: true });

const base = '/api/direct-messages/conversations';
const notParticipant = 'You are not a participant in this conversation.';

/** send-message with an acknowledgement; the client's typing cannot infer the answer of an optional ack. */
const sendOverSocket = async (socket: TestSocket, payload: { conversationId: string; text: string }) =>
  (await socket.emitWithAck('send-message', payload)) as SendMessageAck;

/** Whether the server has this socket in the room of a conversation. */
const inRoom = (socket: TestSocket, conversationId: string) =>
  server.app.realtime.io
    .of('/')
    .adapter.rooms.get(rooms.conversation(conversationId))
    ?.has(socket.id ?? '') ?? false;

/** Joins a conversation's room and waits until the server has done it. */
async function join(socket: TestSocket, conversationId: string): Promise<void> {
  socket.emit('join-conversation', { conversationId });
  await waitUntil(() => inRoom(socket, conversationId));
}

const aliceBob = () => conversationIdFor(people.alice.user.id, people.bob.user.id);
const carolBob = () => conversationIdFor(people.carol.user.id, people.bob.user.id);
const managerAlice = () => conversationIdFor(people.manager.user.id, people.alice.user.id);

async function sendText(by: Session, conversationId: string, text = uniqueText('Hello')): Promise<DirectMessage> {
  const res = await call<{ message: DirectMessage }>(by, 'POST', `${base}/${conversationId}/messages`, { text });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return directMessageSchema.parse(res.body.message);
}

async function unreadOf(session: Session, conversationId: string): Promise<number | undefined> {
  const res = await call<{ conversations: unknown[] }>(session, 'GET', base);
  expect(res.status).toBe(200);
  return res.body.conversations.map((c) => conversationForViewerSchema.parse(c)).find((c) => c.id === conversationId)
    ?.unreadCount;
}

const rowsWithText = (text: string) => db().select().from(directMessages).where(eq(directMessages.text, text));

describe('joining a conversation', () => {
  test('a non-participant is refused with an error event, stays out of the room and hears no typing', async () => {
    const { alice, bob, carol } = people;
    const [aliceSocket, bobSocket, carolSocket] = [
      await server.connect(alice.token),
      await server.connect(bob.token),
      await server.connect(carol.token),
    ];
    const carolHears = {
      typing: recordEvents(carolSocket, 'user-typing'),
      stop: recordEvents(carolSocket, 'stop-typing'),
    };

    const refused = nextEvent(carolSocket, 'error');
    carolSocket.emit('join-conversation', { conversationId: aliceBob() });
    expect(await refused).toEqual({ code: 'forbidden', message: notParticipant });
    expect(inRoom(carolSocket, aliceBob())).toBe(false);

    await join(aliceSocket, aliceBob());
    await join(bobSocket, aliceBob());
    const bobHears = nextEvent(bobSocket, 'user-typing');
    aliceSocket.emit('typing-start', { conversationId: aliceBob() });
    expect(await bobHears).toMatchObject({ userId: alice.user.id, conversationId: aliceBob() });
    const bobStops = nextEvent(bobSocket, 'stop-typing');
    aliceSocket.emit('typing-stop', { conversationId: aliceBob() });
    await bobStops;

    // Carol typing into it is refused too, and bob hears nothing of her.
    const bobTyping = recordEvents(bobSocket, 'user-typing');
    const carolRefused = nextEvent(carolSocket, 'error');
    carolSocket.emit('typing-start', { conversationId: aliceBob() });
    expect(await carolRefused).toEqual({ code: 'forbidden', message: notParticipant });
    await sleep(100);
    expect(carolHears).toEqual({ typing: [], stop: [] });
    expect(bobTyping).toEqual([]);
  });

  test('a malformed or unknown conversation is refused with an error event', async () => {
    const aliceSocket = await server.connect(people.alice.token);
    const malformed = nextEvent(aliceSocket, 'error');
    aliceSocket.emit('join-conversation', { conversationId: 'not-an-id' });
    expect((await malformed).code).toBe('invalid_input');

    const unknown = nextEvent(aliceSocket, 'error');
    aliceSocket.emit('join-conversation', { conversationId: conversationIdFor(people.alice.user.id, 'nobody') });
    expect(await unknown).toEqual({ code: 'not_found', message: 'Conversation not found.' });
  });

  test('join-conversations joins every conversation of the user, and only those; leave-conversation leaves one', async () => {
    const { alice, bob, carol } = people;
    const [aliceSocket, bobSocket, carolSocket] = [
      await server.connect(alice.token),
      await server.connect(bob.token),
      await server.connect(carol.token),
    ];
    const bobTyping = recordEvents(bobSocket, 'user-typing');

    bobSocket.emit('join-conversations');
    await waitUntil(() => inRoom(bobSocket, aliceBob()) && inRoom(bobSocket, carolBob()));
    expect(inRoom(bobSocket, managerAlice())).toBe(false);
    await join(aliceSocket, aliceBob());
    await join(carolSocket, carolBob());

    aliceSocket.emit('typing-start', { conversationId: aliceBob() });
    await waitUntil(() => bobTyping.length === 1);
    carolSocket.emit('typing-start', { conversationId: carolBob() });
    await waitUntil(() => bobTyping.length === 2);
    expect(bobTyping).toEqual([
      { userId: alice.user.id, userName: 'Alice Johnson', conversationId: aliceBob() },
      { userId: carol.user.id, userName: 'Carol Davis', conversationId: carolBob() },
    ]);

    bobSocket.emit('leave-conversation', { conversationId: aliceBob() });
    await waitUntil(() => !inRoom(bobSocket, aliceBob()));
    expect(inRoom(bobSocket, carolBob())).toBe(true);
    aliceSocket.emit('typing-start', { conversationId: aliceBob() });
    await sleep(100);
    expect(bobTyping).toHaveLength(2);
  });
});

describe('typing', () => {
  test('the other participant hears user-typing and stop-typing; the typist hears nothing', async () => {
    const { alice, bob } = people;
    const [aliceSocket, bobSocket] = [await server.connect(alice.token), await server.connect(bob.token)];
    await join(aliceSocket, aliceBob());
    await join(bobSocket, aliceBob());
    const aliceHears = {
      typing: recordEvents(aliceSocket, 'user-typing'),
      stop: recordEvents(aliceSocket, 'stop-typing'),
    };

    const typing = nextEvent(bobSocket, 'user-typing');
    aliceSocket.emit('typing-start', { conversationId: aliceBob() });
    expect(await typing).toEqual({ userId: alice.user.id, userName: 'Alice Johnson', conversationId: aliceBob() });

    const stop = nextEvent(bobSocket, 'stop-typing');
    aliceSocket.emit('typing-stop', { conversationId: aliceBob() });
    expect(await stop).toEqual({ userId: alice.user.id, conversationId: aliceBob() });

    await sleep(100);
    expect(aliceHears).toEqual({ typing: [], stop: [] });
  });
});

describe('send-message', () => {
  test('the message is stored, acknowledged, and both participants hear new-message; nobody else does', async () => {
    const { alice, bob, carol } = people;
    const [aliceSocket, bobSocket, carolSocket] = [
      await server.connect(alice.token),
      await server.connect(bob.token),
      await server.connect(carol.token),
    ];
    const carolHears = recordEvents(carolSocket, 'new-message');
    const aliceHears = nextEvent(aliceSocket, 'new-message');
    const bobHears = nextEvent(bobSocket, 'new-message');
    const text = uniqueText('Over the socket');

    const ack = await sendOverSocket(aliceSocket, { conversationId: aliceBob(), text: `  ${text}  ` });

    if (!('message' in ack)) throw new Error(`refused: ${JSON.stringify(ack)}`);
    const message = directMessageSchema.parse(ack.message);
    expect(message).toMatchObject({
      conversationId: aliceBob(),
      content: text,
      text,
      sender: { id: alice.user.id, name: 'Alice Johnson' },
      attachments: [],
    });
    expect(await rowsWithText(text)).toEqual([
      expect.objectContaining({ id: message.id, senderId: alice.user.id, conversationId: aliceBob(), deletedAt: null }),
    ]);
    expect(await aliceHears).toEqual({ message, conversationId: aliceBob() });
    expect(await bobHears).toEqual({ message, conversationId: aliceBob() });
    const notices = (await db().select().from(notifications)).filter((n) => n.data.messageId === message.id);
    expect(notices.map((n) => [n.recipientId, n.type])).toEqual([[bob.user.id, 'direct_message']]);
    await sleep(100);
    expect(carolHears).toEqual([]);
  });

  test('into someone else’s conversation, or without text, it is refused by error event and acknowledgement', async () => {
    const { alice, bob, carol } = people;
    const [aliceSocket, bobSocket, carolSocket] = [
      await server.connect(alice.token),
      await server.connect(bob.token),
      await server.connect(carol.token),
    ];
    const heard = [
      recordEvents(aliceSocket, 'new-message'),
      recordEvents(bobSocket, 'new-message'),
      recordEvents(carolSocket, 'new-message'),
    ];
    const before = await newestSeq(db());
    const text = uniqueText('Intruding');

    const error = nextEvent(carolSocket, 'error');
    const ack = await sendOverSocket(carolSocket, { conversationId: aliceBob(), text });
    expect(ack).toEqual({ error: { code: 'forbidden', message: notParticipant } });
    expect(await error).toEqual({ code: 'forbidden', message: notParticipant });

    const blank = await sendOverSocket(aliceSocket, { conversationId: aliceBob(), text: '   ' });
    expect(blank).toEqual({ error: { code: 'invalid_input', message: directTexts.empty } });

    expect(await rowsWithText(text)).toEqual([]);
    expect(await newestSeq(db())).toBe(before);
    await sleep(100);
    expect(heard).toEqual([[], [], []]);
  });
});

describe('mark-message-read', () => {
  test('the sender hears message-read with the message, the reader and the time; the unread count follows', async () => {
    const { alice, bob } = people;
    const [aliceSocket, bobSocket] = [await server.connect(alice.token), await server.connect(bob.token)];
    // Bob starts with nothing unread (earlier tests wrote to him).
    expect((await call(bob, 'PATCH', `${base}/${aliceBob()}/read`)).status).toBe(200);
    expect(await unreadOf(bob, aliceBob())).toBe(0);
    await sleep(2);
    const first = await sendText(alice, aliceBob());
    await sleep(2);
    const second = await sendText(alice, aliceBob());
    expect(await unreadOf(bob, aliceBob())).toBe(2);

    // Bob's PATCH above may still be on its way to alice as a message-read without a message id.
    const read = nextEventWhere(aliceSocket, 'message-read', (p) => p.messageId === first.id);
    bobSocket.emit('mark-message-read', { conversationId: aliceBob(), messageId: first.id });
    expect(await read).toEqual({
      conversationId: aliceBob(),
      messageId: first.id,
      userId: bob.user.id,
      readAt: first.createdAt,
    });
    expect(await unreadOf(bob, aliceBob())).toBe(1);

    const readAll = nextEventWhere(aliceSocket, 'message-read', (p) => p.messageId === second.id);
    bobSocket.emit('mark-message-read', { conversationId: aliceBob(), messageId: second.id });
    expect(await readAll).toMatchObject({ messageId: second.id, userId: bob.user.id, readAt: second.createdAt });
    expect(await unreadOf(bob, aliceBob())).toBe(0);
    expect(await unreadOf(alice, aliceBob())).toBe(0);
  });

  test('an unknown message or someone else’s conversation is refused with an error event', async () => {
    const { alice, carol } = people;
    const [aliceSocket, carolSocket] = [await server.connect(alice.token), await server.connect(carol.token)];
    const message = await sendText(alice, aliceBob());
    const reads = recordEvents(aliceSocket, 'message-read');
    const before = await newestSeq(db());

    const unknown = nextEvent(aliceSocket, 'error');
    aliceSocket.emit('mark-message-read', { conversationId: aliceBob(), messageId: conversationIdFor('x', 'y') });
    expect(await unknown).toEqual({ code: 'message_not_found', message: 'Message not found.' });

    const forbidden = nextEvent(carolSocket, 'error');
    carolSocket.emit('mark-message-read', { conversationId: aliceBob(), messageId: message.id });
    expect(await forbidden).toEqual({ code: 'forbidden', message: notParticipant });

    await sleep(100);
    expect(reads).toEqual([]);
    expect(await newestSeq(db())).toBe(before);
  });
});

describe('delete-message', () => {
  test('a REST delete reaches both participants as delete-message, and nobody else', async () => {
    const { alice, bob, carol } = people;
    const [aliceSocket, bobSocket, carolSocket] = [
      await server.connect(alice.token),
      await server.connect(bob.token),
      await server.connect(carol.token),
    ];
    const carolHears = recordEvents(carolSocket, 'delete-message');
    const message = await sendText(bob, aliceBob());
    const aliceHears = nextEvent(aliceSocket, 'delete-message');
    const bobHears = nextEvent(bobSocket, 'delete-message');

    const res = await call(bob, 'DELETE', `${base}/${aliceBob()}/messages/${message.id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);

    const expected = { conversationId: aliceBob(), messageId: message.id };
    expect(await aliceHears).toEqual(expected);
    expect(await bobHears).toEqual(expected);
    await sleep(100);
    expect(carolHears).toEqual([]);
  });
});
