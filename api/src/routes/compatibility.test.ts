import { describe, expect, test } from 'vitest';
import { and, eq, isNull } from 'drizzle-orm';
import {
  conversationIdFor,
  errorCatalogue,
  PROTOCOL_VERSION,
  protocolVersionHeader,
  rooms,
  type Task,
} from '@office/sync-protocol';
import { conversations, directMessages, tasks } from '../db/schema';
import { bearer, inDays, nextEvent, uniqueText, waitUntil, type TestSocket } from '../../test/support';
import { useSeededServer, type Session } from '../../test/api-client';

// What a client written from spec section 7 alone sends, and what it must get back.
const { server, people, db, call } = useSeededServer({ awaitOffline: true });

const json = { 'content-type': 'application/json' };

async function createTask(): Promise<Task> {
  const res = await call<{ task: Task }>(people.manager, 'POST', '/api/tasks', {
    title: uniqueText('Compat'),
    assignedTo: people.alice.user.id,
    dueDate: inDays(2),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.task;
}

describe('a request without a body but labelled as JSON is an empty body', () => {
  test('DELETE /api/tasks/{id} with Content-Type: application/json and no body deletes the task', async () => {
    const task = await createTask();
    const res = await server.app.inject({
      method: 'DELETE',
      url: `/api/tasks/${task.id}`,
      headers: { ...bearer(people.manager.token), ...json },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ success: true, message: 'Task deleted successfully' });
    const [row] = await db().select().from(tasks).where(eq(tasks.id, task.id));
    expect(row?.deletedAt).toEqual(expect.any(String));
  });

  test('PATCH /api/direct-messages/conversations/{id}/read with Content-Type: application/json and no body marks it read', async () => {
    const { alice, bob } = people;
    const conversationId = conversationIdFor(alice.user.id, bob.user.id);
    const sent = await call(bob, 'POST', `/api/direct-messages/conversations/${conversationId}/messages`, {
      text: uniqueText('Read me'),
    });
    expect(sent.status).toBe(201);

    const res = await server.app.inject({
      method: 'PATCH',
      url: `/api/direct-messages/conversations/${conversationId}/read`,
      headers: { ...bearer(alice.token), ...json },
    });
    expect(res.statusCode, res.body).toBe(200);
    const [row] = await db().select().from(conversations).where(eq(conversations.id, conversationId));
    const aliceReadAt = row?.userA === alice.user.id ? row.userAReadAt : row?.userBReadAt;
    expect(aliceReadAt).toBe(res.json<{ readAt: string }>().readAt);
  });

  test('a POST with an empty JSON body is answered with the missing fields, not "malformed JSON"', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/tasks',
      headers: { ...bearer(people.manager.token), ...json },
      payload: '',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_input', message: 'Title, assignee and due date are required' });
  });

  test('malformed JSON is still refused as malformed_json', async () => {
    const res = await server.app.inject({
      method: 'DELETE',
      url: `/api/tasks/${(await createTask()).id}`,
      headers: { ...bearer(people.manager.token), ...json },
      payload: '{"half":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: 'malformed_json', message: errorCatalogue.malformed_json.message });
  });
});

describe('socket events name the conversation by its bare id, as the spec does', () => {
  const inRoom = (socket: TestSocket, conversationId: string) =>
    server.app.realtime.io
      .of('/')
      .adapter.rooms.get(rooms.conversation(conversationId))
      ?.has(socket.id ?? '') ?? false;

  test('join-conversation, typing-start, typing-stop and leave-conversation accept a bare id as well as { conversationId }', async () => {
    const { alice, bob } = people;
    const conversationId = conversationIdFor(alice.user.id, bob.user.id);
    const aliceSocket = await server.connect(alice.token);
    const bobSocket = await server.connect(bob.token);

    aliceSocket.emit('join-conversation', conversationId);
    bobSocket.emit('join-conversation', { conversationId });
    await waitUntil(() => inRoom(aliceSocket, conversationId) && inRoom(bobSocket, conversationId));

    const typing = nextEvent(bobSocket, 'user-typing');
    aliceSocket.emit('typing-start', conversationId);
    expect(await typing).toEqual({ userId: alice.user.id, userName: alice.user.name, conversationId });
    const stopped = nextEvent(bobSocket, 'stop-typing');
    aliceSocket.emit('typing-stop', conversationId);
    expect(await stopped).toEqual({ userId: alice.user.id, conversationId });

    aliceSocket.emit('leave-conversation', conversationId);
    await waitUntil(() => !inRoom(aliceSocket, conversationId));
  });

  test('a bare id of a conversation one takes no part in is refused like the object form', async () => {
    const { alice, bob, carol } = people;
    const carolSocket = await server.connect(carol.token);
    const refused = nextEvent(carolSocket, 'error');
    carolSocket.emit('join-conversation', conversationIdFor(alice.user.id, bob.user.id));
    expect(await refused).toEqual({ code: 'forbidden', message: 'You are not a participant in this conversation.' });
  });
});

describe('the protocol version a client announces', () => {
  const me = (session: Session, version?: string) =>
    server.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { ...bearer(session.token), ...(version === undefined ? {} : { [protocolVersionHeader]: version }) },
    });

  test('a call announcing an older protocol version is answered 409 client_outdated; ours or none is served', async () => {
    const outdated = await me(people.alice, String(PROTOCOL_VERSION - 1));
    expect(outdated.statusCode).toBe(409);
    expect(outdated.json()).toEqual({ code: 'client_outdated', message: errorCatalogue.client_outdated.message });

    expect((await me(people.alice, String(PROTOCOL_VERSION))).statusCode).toBe(200);
    // A client written from the spec announces nothing.
    expect((await me(people.alice)).statusCode).toBe(200);
  });

  test('a push announcing an older protocol version changes nothing', async () => {
    const text = uniqueText('Outdated push');
    const conversationId = conversationIdFor(people.alice.user.id, people.bob.user.id);
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/sync/push',
      headers: { ...bearer(people.alice.token), [protocolVersionHeader]: String(PROTOCOL_VERSION - 1) },
      payload: {
        clientId: '01890000-0000-7000-8000-0000000000c1',
        mutations: [
          {
            id: 1,
            name: 'dm.send',
            args: { id: '01890000-0000-7000-8000-0000000000d1', conversationId, text },
            at: new Date().toISOString(),
          },
        ],
      },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json<{ code: string }>().code).toBe('client_outdated');
    const stored = await db()
      .select()
      .from(directMessages)
      .where(and(eq(directMessages.text, text), isNull(directMessages.deletedAt)));
    expect(stored).toEqual([]);
  });
});
