import { describe, expect, test } from 'vitest';
import { and, desc, eq, isNull } from 'drizzle-orm';
import {
  employeeSummarySchema,
  errorCatalogue,
  isoToday,
  type ChatMessage,
  type EmployeeSummary,
  type Task,
  type TaskStatus,
} from '@office/sync-protocol';
import { chatMessages, tasks, users } from '../../db/schema';
import { inDays, sleep, uniqueText, waitUntil } from '../../../test/support';
import { expectRefusal, useSeededServer, type Session } from '../../../test/api-client';

// One seeded server for the whole file; every test registers the employees whose numbers it checks.
const { server, people, db, call, registerEmployee } = useSeededServer();

async function createTask(fields: { assignedTo: string; status?: TaskStatus; dueDate?: string }): Promise<Task> {
  const res = await call<{ task: Task }>(people.manager, 'POST', '/api/tasks', {
    title: uniqueText('Task'),
    dueDate: inDays(3),
    ...fields,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.task;
}

/** The API refuses past due dates, so an overdue task gets its date moved afterwards (as the seed does). */
const moveDueDate = (id: string, dueDate: string) => db().update(tasks).set({ dueDate }).where(eq(tasks.id, id));

async function postChat(session: Session, text: string): Promise<ChatMessage> {
  const res = await call<{ message: ChatMessage }>(session, 'POST', '/api/messages', { text });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.message;
}

async function employees(session: Session = people.manager): Promise<EmployeeSummary[]> {
  const res = await call<{ success: boolean; employees: EmployeeSummary[] }>(session, 'GET', '/api/employees');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.success).toBe(true);
  return res.body.employees;
}

async function summaryOf(userId: string): Promise<EmployeeSummary> {
  const found = (await employees()).find((summary) => summary.user.id === userId);
  if (!found) throw new Error(`no card for ${userId}`);
  return found;
}

describe('GET /api/employees: who may read it', () => {
  test('without a token it is 401', async () => {
    expectRefusal(
      await call(null, 'GET', '/api/employees'),
      401,
      'unauthenticated',
      errorCatalogue.unauthenticated.message,
    );
  });

  test('employees and admins are refused with 403; only managers see Employee Management', async () => {
    for (const session of [people.alice, people.admin]) {
      expectRefusal(await call(session, 'GET', '/api/employees'), 403, 'forbidden', errorCatalogue.forbidden.message);
    }
    expect((await employees(people.manager)).length).toBeGreaterThan(0);
  });
});

describe('GET /api/employees: the cards', () => {
  test('one card per active employee: no manager, no admin, no deleted employee; each with every field', async () => {
    const leaving = await registerEmployee('Leaving Soon');
    expect((await employees()).map((s) => s.user.id)).toContain(leaving.user.id);
    const removed = await call(people.manager, 'DELETE', `/api/auth/users/${leaving.user.id}`);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);

    const cards = await employees();
    const expected = (
      await db()
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.role, 'employee'), isNull(users.deactivatedAt)))
    ).map((row) => row.id);
    expect(cards.map((s) => s.user.id).sort()).toEqual([...expected].sort());
    const ids = cards.map((s) => s.user.id);
    for (const name of ['alice', 'bob', 'carol'] as const) expect(ids).toContain(people[name].user.id);
    for (const name of ['manager', 'admin'] as const) expect(ids).not.toContain(people[name].user.id);
    expect(ids).not.toContain(leaving.user.id);

    for (const card of cards) {
      expect(employeeSummarySchema.safeParse(card).error).toBeUndefined();
      expect(Object.keys(card).sort()).toEqual(
        ['completionRate', 'lastSeen', 'presence', 'recentTasks', 'taskCounts', 'teamChatMessages', 'user'].sort(),
      );
      expect(card.user.role).toBe('employee');
      expect(JSON.stringify(card.user)).not.toMatch(/password|hash|argon/i);
      expect(card.recentTasks.length).toBeLessThanOrEqual(5);
    }
  });

  test("the seeded employees' numbers match their tasks and chat messages in the database", async () => {
    const today = isoToday();
    for (const card of await employees()) {
      const own = await db()
        .select()
        .from(tasks)
        .where(and(eq(tasks.assignedTo, card.user.id), isNull(tasks.deletedAt)))
        .orderBy(desc(tasks.updatedAt));
      const completed = own.filter((t) => t.status === 'completed').length;
      expect(card.taskCounts, card.user.name).toEqual({
        total: own.length,
        completed,
        working: own.filter((t) => t.status === 'working').length,
        pending: own.filter((t) => t.status === 'pending').length,
        waiting: own.filter((t) => t.status === 'waiting').length,
        inProgress: own.length - completed,
        overdue: own.filter((t) => t.status !== 'completed' && t.dueDate < today).length,
      });
      expect(card.completionRate).toBe(own.length ? Math.round((completed * 100) / own.length) : 0);
      const sent = (
        await db()
          .select({ id: chatMessages.id })
          .from(chatMessages)
          .where(and(eq(chatMessages.userId, card.user.id), isNull(chatMessages.deletedAt)))
      ).length;
      expect(card.teamChatMessages, card.user.name).toBe(sent);
      // Ties in updatedAt may come in either order: compare the stamps, and that each task is the employee's.
      expect(card.recentTasks.map((t) => t.updatedAt)).toEqual(own.slice(0, 5).map((t) => t.updatedAt));
      for (const recent of card.recentTasks) expect(own.map((t) => t.id)).toContain(recent.id);
    }
    // The demo gives alice tasks and chat messages, so the comparison above is not only of zeros.
    const alice = await summaryOf(people.alice.user.id);
    expect(alice.taskCounts.total).toBeGreaterThan(0);
    expect(alice.teamChatMessages).toBeGreaterThan(0);
  });

  test('a fresh employee starts with zeros, a rate of 0 and no recent tasks', async () => {
    const fresh = await registerEmployee('Nadia New');
    expect(await summaryOf(fresh.user.id)).toMatchObject({
      user: { id: fresh.user.id, name: 'Nadia New', role: 'employee' },
      presence: 'offline',
      lastSeen: null,
      taskCounts: { total: 0, completed: 0, working: 0, pending: 0, waiting: 0, inProgress: 0, overdue: 0 },
      teamChatMessages: 0,
      completionRate: 0,
      recentTasks: [],
    });
  });

  test('a controlled set of tasks and messages gives exact counts, a rounded rate and the 5 newest tasks', async () => {
    const zoe = await registerEmployee('Zoe Numbers');
    const plan: [key: string, status: TaskStatus, dueInDays: number][] = [
      ['A', 'completed', -3], // past due but completed: not overdue
      ['B', 'completed', 2],
      ['C', 'working', -1], // overdue
      ['D', 'working', 5],
      ['E', 'pending', -10], // overdue
      ['F', 'waiting', 1],
      ['G', 'pending', 0], // due today: not overdue
    ];
    const made: Record<string, Task> = {};
    for (const [key, status, due] of plan) {
      const task = await createTask({ assignedTo: zoe.user.id, status, dueDate: inDays(Math.max(0, due)) });
      if (due < 0) await moveDueDate(task.id, inDays(due));
      made[key] = task;
      await sleep(3); // distinct updatedAt stamps
    }
    const idOf = (key: string) => made[key]?.id;
    // Not counted: a deleted task of zoe's and a task of bob's.
    const deleted = await createTask({ assignedTo: zoe.user.id, status: 'working', dueDate: inDays(1) });
    expect((await call(people.manager, 'DELETE', `/api/tasks/${deleted.id}`)).status).toBe(200);
    await createTask({ assignedTo: people.bob.user.id, status: 'completed' });
    // Three messages of zoe's count; a fourth she deleted and bob's do not.
    for (const text of ['one', 'two', 'three']) await postChat(zoe, text);
    const gone = await postChat(zoe, 'oops');
    expect((await call(zoe, 'DELETE', `/api/messages/${gone.id}`)).status).toBe(200);
    await postChat(people.bob, 'not zoe');
    // Editing A makes it the most recently updated.
    await sleep(3);
    const edited = await call(people.manager, 'PUT', `/api/tasks/${idOf('A')}`, { priority: 'critical' });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);

    const card = await summaryOf(zoe.user.id);
    expect(card.taskCounts).toEqual({
      total: 7,
      completed: 2,
      working: 2,
      pending: 2,
      waiting: 1,
      inProgress: 5,
      overdue: 2,
    });
    // 2 / 7 = 28.57 %, rounded.
    expect(card.completionRate).toBe(29);
    expect(card.teamChatMessages).toBe(3);
    expect(card.recentTasks.map((t) => t.id)).toEqual(['A', 'G', 'F', 'E', 'D'].map(idOf));
    expect(card.recentTasks[0]).toEqual({
      id: idOf('A'),
      title: made.A?.title,
      status: 'completed',
      dueDate: inDays(-3),
      priority: 'critical',
      updatedAt: expect.any(String) as unknown,
    });
    expect(card.recentTasks[3]).toMatchObject({ id: idOf('E'), status: 'pending', dueDate: inDays(-10) });
    const stamps = card.recentTasks.map((t) => t.updatedAt);
    expect(stamps).toEqual([...stamps].sort().reverse());

    // Zoe completes the overdue task E: one overdue fewer, 3 / 7 = 42.86 % rounds to 43, E is now the newest.
    const done = await call(zoe, 'PUT', `/api/tasks/${idOf('E')}`, { status: 'completed' });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const after = await summaryOf(zoe.user.id);
    expect(after.taskCounts).toEqual({
      total: 7,
      completed: 3,
      working: 2,
      pending: 1,
      waiting: 1,
      inProgress: 4,
      overdue: 1,
    });
    expect(after.completionRate).toBe(43);
    expect(after.recentTasks.map((t) => t.id)).toEqual(['E', 'A', 'G', 'F', 'D'].map(idOf));
    expect(after.recentTasks[0]?.status).toBe('completed');
  });

  test('a connected socket makes the employee online; after it closes they are offline with a last-seen time', async () => {
    const olly = await registerEmployee('Olly Online');
    expect(await summaryOf(olly.user.id)).toMatchObject({ presence: 'offline', lastSeen: null });

    const before = new Date().toISOString();
    const socket = await server.connect(olly.token);
    // The server stores the connection once it has accepted it, after the client hears it is connected.
    await waitUntil(async () => (await summaryOf(olly.user.id)).presence === 'online');
    const online = await summaryOf(olly.user.id);
    expect(online.presence).toBe('online');
    expect(online.user.status).toBe('online');

    socket.close();
    await waitUntil(async () => (await summaryOf(olly.user.id)).presence === 'offline');
    const offline = await summaryOf(olly.user.id);
    expect(offline.user.status).toBe('offline');
    expect(offline.lastSeen).toEqual(expect.any(String));
    expect(offline.lastSeen! >= before).toBe(true);
    expect(offline.lastSeen! <= new Date().toISOString()).toBe(true);
  });
});
