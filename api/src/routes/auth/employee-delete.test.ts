import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import {
  accountTexts,
  errorCatalogue,
  uuidv7,
  type Change,
  type ChatMessage,
  type EmployeeSummary,
  type Task,
  type User,
} from '@office/sync-protocol';
import { sessions, users } from '../../db/schema';
import { newestSeq } from '../../domain/change-log';
import { connectSocket, inDays, nextEvent, signIn, uniqueText, type TestSocket } from '../../../test/support';
import { expectRefusal, useSeededServer, type Session } from '../../../test/api-client';

// One seeded server for the whole file; every test deletes employees it registered itself.
const { server, people, db, call, pull, registerEmployee } = useSeededServer();

const userRow = async (id: string) => (await db().select().from(users).where(eq(users.id, id)))[0];
const deleteUser = (by: Session | null, id: string) => call(by, 'DELETE', `/api/auth/users/${id}`);

/** Resolves with the reason the server gave when it drops the socket. */
const disconnected = (socket: TestSocket): Promise<string> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the socket was not disconnected')), 3000);
    socket.once('disconnect', (reason) => {
      clearTimeout(timer);
      resolve(reason);
    });
  });

async function createTask(assignedTo: string): Promise<Task> {
  const res = await call<{ task: Task }>(people.manager, 'POST', '/api/tasks', {
    title: uniqueText('Task'),
    assignedTo,
    dueDate: inDays(4),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.task;
}

async function ok<T>(answer: Promise<{ status: number; body: T }>, status = 200): Promise<T> {
  const { status: actual, body } = await answer;
  expect(actual, JSON.stringify(body)).toBe(status);
  return body;
}

/** A refusal of DELETE /api/auth/users/{id} that changed nothing. */
async function expectDeleteRefused(
  by: Session | null,
  id: string,
  status: number,
  code: Parameters<typeof expectRefusal>[2],
  message: string,
): Promise<void> {
  const before = await newestSeq(db());
  const row = await userRow(id);
  expectRefusal(await deleteUser(by, id), status, code, message);
  expect(await newestSeq(db())).toBe(before);
  expect(await userRow(id)).toEqual(row);
}

describe('DELETE /api/auth/users/{id}: who may delete whom', () => {
  test('without a token it is 401', async () => {
    const target = await registerEmployee('Tom Target');
    await expectDeleteRefused(null, target.user.id, 401, 'unauthenticated', errorCatalogue.unauthenticated.message);
  });

  test('an employee and an admin are refused: only managers delete employees', async () => {
    const target = await registerEmployee('Tina Target');
    for (const by of [people.alice, people.admin]) {
      await expectDeleteRefused(by, target.user.id, 403, 'forbidden', 'Only managers can delete employees.');
    }
    // Not even themselves.
    await expectDeleteRefused(people.alice, people.alice.user.id, 403, 'forbidden', accountTexts.onlyManagersDelete);
    await expectDeleteRefused(people.admin, people.bob.user.id, 403, 'forbidden', accountTexts.onlyManagersDelete);
  });

  test('a manager cannot delete an admin or another manager: only employees can be deleted', async () => {
    const other = await registerEmployee('Mark Othermanager');
    await db().update(users).set({ role: 'manager' }).where(eq(users.id, other.user.id));

    for (const id of [people.admin.user.id, other.user.id]) {
      await expectDeleteRefused(people.manager, id, 403, 'forbidden', 'Only employees can be deleted.');
    }
  });

  test('a manager cannot delete himself', async () => {
    await expectDeleteRefused(
      people.manager,
      people.manager.user.id,
      403,
      'forbidden',
      'You cannot delete your own account.',
    );
    expect((await call(people.manager, 'GET', '/api/auth/me')).status).toBe(200);
  });

  test('an unknown id is 404, a malformed id 400, an employee deleted already 404', async () => {
    await expectDeleteRefused(people.manager, uuidv7(), 404, 'user_not_found', errorCatalogue.user_not_found.message);
    const malformed = await deleteUser(people.manager, 'not-an-id');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: 'invalid_input' });

    const target = await registerEmployee('Twice Deleted');
    await ok(deleteUser(people.manager, target.user.id));
    await expectDeleteRefused(
      people.manager,
      target.user.id,
      404,
      'user_not_found',
      errorCatalogue.user_not_found.message,
    );
  });
});

describe('DELETE /api/auth/users/{id}: what deleting an employee does', () => {
  test('the account stops at once, leaves every list, and its history keeps its name', async () => {
    const { manager, alice } = people;
    const dora = await registerEmployee('Dora Doomed');
    const secondSession = await signIn(server.app, dora.email, 'secret99');

    // Dora's work: two open tasks, one she completed, a comment, a status change with a note, a chat message.
    const openPending = await createTask(dora.user.id);
    const openWaiting = await createTask(dora.user.id);
    const completed = await createTask(dora.user.id);
    await ok(call(dora, 'POST', `/api/tasks/${openPending.id}/comments`, { text: 'On it tomorrow' }), 201);
    await ok(call(dora, 'PUT', `/api/tasks/${openWaiting.id}`, { status: 'waiting', note: 'Blocked by design' }));
    await ok(call(dora, 'PUT', `/api/tasks/${completed.id}`, { status: 'completed', note: 'Done' }));
    const chat = await ok(call<{ message: ChatMessage }>(dora, 'POST', '/api/messages', { text: 'Hello team' }), 201);
    // Another employee's task is left alone.
    const alicesTask = await createTask(alice.user.id);

    const managerClient = uuidv7();
    const aliceClient = uuidv7();
    const { cursor: managerCursor } = await pull(manager, managerClient, '0');
    const { cursor: aliceCursor } = await pull(alice, aliceClient, '0');

    const doraSockets = [await server.connect(dora.token), await server.connect(secondSession.token)];
    const dropped = doraSockets.map(disconnected);
    const observer = await server.connect(alice.token);
    const offline = nextEvent(observer, 'user-offline');
    const seen: Change[] = [];
    observer.on('sync.change', ({ change }) => seen.push(change));

    const answer = await deleteUser(manager, dora.user.id);
    expect(answer).toEqual({ status: 200, body: { success: true, message: 'Employee deleted successfully' } });

    // Both sessions end at once: tokens refused, sockets dropped, reconnection refused, sign-in refused.
    for (const token of [dora.token, secondSession.token]) {
      expectRefusal(
        await call({ token, user: dora.user }, 'GET', '/api/auth/me'),
        401,
        'unauthenticated',
        errorCatalogue.unauthenticated.message,
      );
    }
    expect(await Promise.all(dropped)).toEqual(['io server disconnect', 'io server disconnect']);
    expect(await db().select().from(sessions).where(eq(sessions.userId, dora.user.id))).toEqual([]);
    await expect(connectSocket(server.url, dora.token)).rejects.toMatchObject({
      data: { code: 'unauthenticated' },
    });
    expectRefusal(
      await call(null, 'POST', '/api/auth/login', { email: dora.email, password: 'secret99' }),
      401,
      'invalid_credentials',
      'Invalid email or password',
    );
    expect(await offline).toMatchObject({ userId: dora.user.id, lastSeen: expect.any(String) as unknown });
    expect(await userRow(dora.user.id)).toMatchObject({
      status: 'offline',
      deactivatedAt: expect.any(String) as unknown,
    });

    // Gone from every list.
    for (const url of ['/api/auth/team-members', '/api/auth/users', '/api/auth/all-users']) {
      const { users: listed } = await ok(call<{ users: User[] }>(manager, 'GET', url));
      expect(listed.length, url).toBeGreaterThan(0);
      expect(
        listed.map((u) => u.id),
        url,
      ).not.toContain(dora.user.id);
    }
    const { employees } = await ok(call<{ employees: EmployeeSummary[] }>(manager, 'GET', '/api/employees'));
    expect(employees.map((e) => e.user.id)).not.toContain(dora.user.id);
    expect(employees.map((e) => e.user.id)).toContain(alice.user.id);

    // Her chat message keeps her name.
    const { messages } = await ok(call<{ messages: ChatMessage[] }>(alice, 'GET', '/api/messages'));
    expect(messages.find((m) => m.id === chat.message.id)).toMatchObject({
      text: 'Hello team',
      userName: 'Dora Doomed',
      userId: { id: dora.user.id, name: 'Dora Doomed' },
    });

    // Open tasks lose their assignee; the completed one keeps her; comments and history keep her name.
    const { tasks } = await ok(call<{ tasks: Task[] }>(manager, 'GET', '/api/tasks'));
    const byId = (id: string) => {
      const task = tasks.find((t) => t.id === id);
      if (!task) throw new Error(`task ${id} missing`);
      return task;
    };
    expect(byId(openPending.id).assignedTo).toBeNull();
    expect(byId(openPending.id).comments).toEqual([
      expect.objectContaining({ userId: dora.user.id, userName: 'Dora Doomed', text: 'On it tomorrow' }),
    ]);
    expect(byId(openWaiting.id)).toMatchObject({ assignedTo: null, status: 'waiting' });
    expect(byId(openWaiting.id).statusHistory.at(-1)).toMatchObject({
      status: 'waiting',
      note: 'Blocked by design',
      updatedBy: { id: dora.user.id, name: 'Dora Doomed' },
    });
    expect(byId(completed.id)).toMatchObject({
      status: 'completed',
      assignedTo: { id: dora.user.id, name: 'Dora Doomed' },
    });
    expect(byId(completed.id).statusHistory.at(-1)?.updatedBy.name).toBe('Dora Doomed');
    expect(byId(alicesTask.id).assignedTo?.id).toBe(alice.user.id);

    // Sync: everyone's pull removes her from the directory; the manager's also brings the unassigned tasks.
    const alices = await pull(alice, aliceClient, aliceCursor);
    expect(alices.changes).toContainEqual({ entity: 'user', op: 'delete', id: dora.user.id });
    const managers = await pull(manager, managerClient, managerCursor);
    expect(managers.changes).toContainEqual({ entity: 'user', op: 'delete', id: dora.user.id });
    const taskPuts = managers.changes.flatMap((c) => (c.entity === 'task' && c.op === 'put' ? [c.data] : []));
    expect(taskPuts.map((t) => [t.id, t.assignedTo]).sort()).toEqual(
      [
        [openPending.id, null],
        [openWaiting.id, null],
      ].sort(),
    );
    const bootstrap = await pull(alice, uuidv7(), '0');
    const directory = bootstrap.changes.flatMap((c) => (c.entity === 'user' && c.op === 'put' ? [c.data.id] : []));
    expect(directory).toContain(alice.user.id);
    expect(directory).not.toContain(dora.user.id);
    // Alice's open socket heard the removal live.
    expect(seen).toContainEqual({ entity: 'user', op: 'delete', id: dora.user.id });
  });
});
