import { describe, expect, test } from 'vitest';
import { and, asc, eq, isNull } from 'drizzle-orm';
import {
  compareCursors,
  errorCatalogue,
  isoToday,
  taskMessages,
  taskSchema,
  uuidv7,
  type Change,
  type Mutation,
  type Task,
} from '@office/sync-protocol';
import { notifications, syncClients, taskComments, taskStatusHistory, tasks } from '../../db/schema';
import { newestSeq } from '../../domain/change-log';
import {
  cursorNow,
  inDays,
  recordEvents,
  sleep,
  uniqueText,
  waitUntil,
  type EventPayload,
} from '../../../test/support';
import { expectRefusal, useSeededServer, type Session } from '../../../test/api-client';

// One seeded server for the whole file (a fresh one costs about two seconds); every test makes its own tasks
// and reads expectations from the database, so the tests do not depend on each other's leftovers.
const { server, people, db, call, pull, push } = useSeededServer();

type TaskAnswer = { success: boolean; task: Task; message: string };

async function createTask(by: Session, fields: Record<string, unknown> = {}): Promise<Task> {
  const res = await call<TaskAnswer>(by, 'POST', '/api/tasks', {
    title: uniqueText('Task'),
    assignedTo: people.alice.user.id,
    dueDate: inDays(3),
    ...fields,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return taskSchema.parse(res.body.task);
}

async function listTasks(session: Session): Promise<Task[]> {
  const res = await call<{ tasks: Task[] }>(session, 'GET', '/api/tasks');
  expect(res.status).toBe(200);
  return res.body.tasks;
}

const ref = (s: Session) => ({ _id: s.user.id, id: s.user.id, name: s.user.name });
const sortedIds = (items: { id: string }[]) => items.map((item) => item.id).sort();

const taskRow = async (id: string) => (await db().select().from(tasks).where(eq(tasks.id, id)))[0];
const historyRows = (taskId: string) =>
  db()
    .select()
    .from(taskStatusHistory)
    .where(eq(taskStatusHistory.taskId, taskId))
    .orderBy(asc(taskStatusHistory.updatedAt), asc(taskStatusHistory.id));
const commentRows = (taskId: string) =>
  db().select().from(taskComments).where(eq(taskComments.taskId, taskId)).orderBy(asc(taskComments.createdAt));
/** The notifications about a task as [recipient, type, sender, title, message], in a stable order. */
const noticesAbout = async (taskId: string) =>
  (await db().select().from(notifications).where(eq(notifications.relatedTaskId, taskId)))
    .map((n) => [n.recipientId, n.type, n.senderId, n.title, n.message] as const)
    .sort((a, b) => a.join('|').localeCompare(b.join('|')));
const sortNotices = <T extends readonly (string | null)[]>(rows: T[]) =>
  [...rows].sort((a, b) => a.join('|').localeCompare(b.join('|')));

const taskChanges = (changes: Change[], id: string) => changes.filter((c) => c.entity === 'task' && c.id === id);
const taskPuts = (changes: Change[]): Task[] =>
  changes.flatMap((c) => (c.entity === 'task' && c.op === 'put' ? [c.data] : []));

describe('who sees which tasks', () => {
  test('the task routes refuse a call without a token', async () => {
    const before = await newestSeq(db());
    for (const [method, url] of [
      ['GET', '/api/tasks'],
      ['POST', '/api/tasks'],
      ['PUT', `/api/tasks/${uuidv7()}`],
      ['DELETE', `/api/tasks/${uuidv7()}`],
      ['POST', `/api/tasks/${uuidv7()}/comments`],
    ] as const) {
      expectRefusal(
        await call(null, method, url, method === 'GET' || method === 'DELETE' ? undefined : { title: 'x' }),
        401,
        'unauthenticated',
        errorCatalogue.unauthenticated.message,
      );
    }
    expect(await newestSeq(db())).toBe(before);
  });

  test("an employee's GET /api/tasks holds only tasks assigned to or by them, managers and admins see every task", async () => {
    const { manager, admin, alice, bob, carol } = people;
    // An employee who assigned a task (a former manager) sees it too: carol assigned this one to bob.
    const byCarol = await createTask(manager, { assignedTo: bob.user.id, title: uniqueText('Handed over by Carol') });
    await db().update(tasks).set({ assignedBy: carol.user.id }).where(eq(tasks.id, byCarol.id));
    const live = await db().select().from(tasks).where(isNull(tasks.deletedAt));
    const expectedFor = (userId: string) =>
      sortedIds(live.filter((row) => row.assignedTo === userId || row.assignedBy === userId));

    const alices = await listTasks(alice);
    expect(sortedIds(alices)).toEqual(expectedFor(alice.user.id));
    expect(alices.map((t) => t.title)).toEqual(
      expect.arrayContaining([
        'Prepare Q4 sales report',
        'Update onboarding checklist',
        'Fix login page layout on mobile',
        'Migrate CI pipeline',
      ]),
    );
    expect(alices.map((t) => t.title)).not.toContain('Design new landing page hero');
    expect(alices.map((t) => t.id)).not.toContain(byCarol.id);

    const carols = await listTasks(carol);
    expect(sortedIds(carols)).toEqual(expectedFor(carol.user.id));
    expect(carols.map((t) => t.id)).toContain(byCarol.id);
    const bobs = await listTasks(bob);
    expect(sortedIds(bobs)).toEqual(expectedFor(bob.user.id));
    expect(bobs.map((t) => t.id)).toContain(byCarol.id);

    expect(sortedIds(await listTasks(manager))).toEqual(sortedIds(live));
    expect(sortedIds(await listTasks(admin))).toEqual(sortedIds(live));
    expect(live.length).toBeGreaterThan(alices.length + 4);
  });

  test('GET /api/tasks?page=&limit= pages the visible tasks, most recently updated first, with the total', async () => {
    const { manager, alice } = people;
    await createTask(manager);
    const everything = await listTasks(manager);
    const firstPage = await call<{ tasks: Task[]; page: number; limit: number; total: number }>(
      manager,
      'GET',
      '/api/tasks?page=1&limit=3',
    );
    expect(firstPage.status).toBe(200);
    expect(firstPage.body).toMatchObject({ page: 1, limit: 3, total: everything.length });
    const secondPage = await call<{ tasks: Task[] }>(manager, 'GET', '/api/tasks?page=2&limit=3');
    expect([...firstPage.body.tasks, ...secondPage.body.tasks].map((task) => task.id)).toEqual(
      everything.slice(0, 6).map((task) => task.id),
    );

    const alicesPage = await call<{ tasks: Task[]; total: number }>(alice, 'GET', '/api/tasks?page=1');
    expect(alicesPage.body.total).toBe((await listTasks(alice)).length);
    expect(
      alicesPage.body.tasks.every(
        (task) => task.assignedTo?.id === alice.user.id || task.assignedBy.id === alice.user.id,
      ),
    ).toBe(true);
    expect((await call(manager, 'GET', '/api/tasks?page=0')).status).toBe(400);
    expect((await call(manager, 'GET', '/api/tasks?limit=101')).status).toBe(400);
  });

  test('a bootstrap pull holds the same tasks as GET /api/tasks for employees, managers and admins, and only own notifications', async () => {
    const { manager, admin, alice, bob } = people;
    for (const session of [alice, bob, manager, admin]) {
      const bootstrap = await pull(session, uuidv7(), '0');
      expect(bootstrap.reset).toBe(true);
      expect(sortedIds(taskPuts(bootstrap.changes))).toEqual(sortedIds(await listTasks(session)));
      const notices = bootstrap.changes.flatMap((c) => (c.entity === 'notification' && c.op === 'put' ? [c.data] : []));
      expect(sortedIds(notices)).toEqual(
        sortedIds(await db().select().from(notifications).where(eq(notifications.recipientId, session.user.id))),
      );
    }
    const alices = taskPuts((await pull(alice, uuidv7(), '0')).changes);
    expect(alices.length).toBeGreaterThanOrEqual(4);
    expect(alices.every((t) => t.assignedTo?.id === alice.user.id || t.assignedBy.id === alice.user.id)).toBe(true);
    const managers = taskPuts((await pull(manager, uuidv7(), '0')).changes);
    expect(managers.some((t) => t.assignedTo?.id === bob.user.id)).toBe(true);
  });

  test("a task created for bob is in bob's incremental pull, with his notification, and never in alice's", async () => {
    const { manager, alice, bob } = people;
    const aliceClient = uuidv7();
    const bobClient = uuidv7();
    const { cursor: aliceCursor } = await pull(alice, aliceClient, '0');
    const { cursor: bobCursor } = await pull(bob, bobClient, '0');

    const task = await createTask(manager, { assignedTo: bob.user.id });

    const alices = await pull(alice, aliceClient, aliceCursor);
    expect(alices).toMatchObject({ changes: [], reset: false, more: false });
    expect(compareCursors(alices.cursor, aliceCursor)).toBeGreaterThan(0);

    const bobs = await pull(bob, bobClient, bobCursor);
    expect(taskPuts(bobs.changes).map((t) => [t.id, t.assignedTo?.id])).toEqual([[task.id, bob.user.id]]);
    const bobNotices = bobs.changes.flatMap((c) => (c.entity === 'notification' && c.op === 'put' ? [c.data] : []));
    expect(bobNotices.map((n) => [n.recipient, n.type, n.relatedTask])).toEqual([
      [bob.user.id, 'task_assigned', task.id],
    ]);
  });

  test('reassigning a task from alice to bob gives alice a delete in her pull and bob a put', async () => {
    const { manager, alice, bob } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });
    const aliceClient = uuidv7();
    const bobClient = uuidv7();
    const { cursor: aliceCursor } = await pull(alice, aliceClient, '0');
    const { cursor: bobCursor } = await pull(bob, bobClient, '0');

    const res = await call<TaskAnswer>(manager, 'PUT', `/api/tasks/${task.id}`, { assignedTo: bob.user.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await taskRow(task.id))?.assignedTo).toBe(bob.user.id);

    const alices = await pull(alice, aliceClient, aliceCursor);
    expect(alices.changes).toEqual([{ entity: 'task', op: 'delete', id: task.id }]);
    expect((await listTasks(alice)).map((t) => t.id)).not.toContain(task.id);

    const bobs = await pull(bob, bobClient, bobCursor);
    expect(taskChanges(bobs.changes, task.id)).toEqual([
      { entity: 'task', op: 'put', id: task.id, data: expect.objectContaining({ assignedTo: ref(bob) }) as unknown },
    ]);
    expect((await listTasks(bob)).map((t) => t.id)).toContain(task.id);
  });
});

describe('POST /api/tasks', () => {
  test.each([
    ['a manager', 'manager'],
    ['an admin', 'admin'],
  ] as const)(
    '%s creates a task with priority medium and status pending by default, one history entry and a notification for the assignee',
    async (_label, who) => {
      const creator = people[who];
      const { alice } = people;
      const title = uniqueText('Write the release notes');
      const dueDate = inDays(4);
      const res = await call<TaskAnswer>(creator, 'POST', '/api/tasks', {
        title,
        description: 'For version 2.0',
        assignedTo: alice.user.id,
        dueDate,
      });

      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ success: true, message: 'Task created successfully' });
      const task = taskSchema.parse(res.body.task);
      expect(res.body.task._id).toBe(task.id);
      expect(task).toMatchObject({
        title,
        description: 'For version 2.0',
        assignedTo: ref(alice),
        assignedBy: ref(creator),
        priority: 'medium',
        status: 'pending',
        dueDate,
        comments: [],
        statusVersion: 0,
      });
      expect(task.statusHistory).toEqual([
        expect.objectContaining({
          status: 'pending',
          updatedBy: ref(creator),
          note: 'Task created',
          superseded: false,
        }),
      ]);

      expect(await taskRow(task.id)).toMatchObject({
        title,
        assignedTo: alice.user.id,
        assignedBy: creator.user.id,
        priority: 'medium',
        status: 'pending',
        dueDate,
        deletedAt: null,
      });
      expect((await historyRows(task.id)).map((h) => [h.status, h.updatedBy, h.note, h.superseded])).toEqual([
        ['pending', creator.user.id, 'Task created', false],
      ]);
      expect(await noticesAbout(task.id)).toEqual([
        [
          alice.user.id,
          'task_assigned',
          creator.user.id,
          'New Task Assigned',
          `${creator.user.name} assigned you "${title}"`,
        ],
      ]);
    },
  );

  test('the creator may choose the priority and the initial status', async () => {
    const task = await createTask(people.manager, { priority: 'critical', status: 'working' });
    expect(task).toMatchObject({ priority: 'critical', status: 'working' });
    expect(await taskRow(task.id)).toMatchObject({ priority: 'critical', status: 'working' });
    expect((await historyRows(task.id)).map((h) => h.status)).toEqual(['working']);
  });

  test('an employee cannot create a task', async () => {
    const { alice, bob } = people;
    const title = uniqueText('Sneaky task');
    const before = await newestSeq(db());

    const res = await call(alice, 'POST', '/api/tasks', { title, assignedTo: bob.user.id, dueDate: inDays(2) });

    expectRefusal(res, 403, 'forbidden', taskMessages.onlyManagers);
    expect(await db().select().from(tasks).where(eq(tasks.title, title))).toEqual([]);
    expect(await newestSeq(db())).toBe(before);
  });

  test.each(['title', 'assignedTo', 'dueDate'])(
    'a task without %s is refused with the required message',
    async (field) => {
      const title = uniqueText('Incomplete');
      const payload: Record<string, unknown> = { title, assignedTo: people.alice.user.id, dueDate: inDays(2) };
      delete payload[field];
      const res = await call(people.manager, 'POST', '/api/tasks', payload);

      expectRefusal(res, 400, 'invalid_input', taskMessages.required);
      expect(await db().select().from(tasks).where(eq(tasks.title, title))).toEqual([]);
    },
  );

  test('a blank title or an empty assignee is refused with the required message', async () => {
    const { manager, alice } = people;
    expectRefusal(
      await call(manager, 'POST', '/api/tasks', { title: '   ', assignedTo: alice.user.id, dueDate: inDays(2) }),
      400,
      'invalid_input',
      taskMessages.required,
    );
    const title = uniqueText('No assignee');
    expectRefusal(
      await call(manager, 'POST', '/api/tasks', { title, assignedTo: '', dueDate: inDays(2) }),
      400,
      'invalid_input',
      taskMessages.required,
    );
    expect(await db().select().from(tasks).where(eq(tasks.title, title))).toEqual([]);
  });

  test.each([
    ['priority', 'urgent'],
    ['status', 'done'],
  ])('a task with an unknown %s is refused', async (field, value) => {
    const title = uniqueText('Bad enum');
    const res = await call(people.manager, 'POST', '/api/tasks', {
      title,
      assignedTo: people.alice.user.id,
      dueDate: inDays(2),
      [field]: value,
    });

    expectRefusal(res, 400, 'invalid_input', errorCatalogue.invalid_input.message);
    expect(res.body).toMatchObject({ details: [expect.objectContaining({ path: field })] });
    expect(await db().select().from(tasks).where(eq(tasks.title, title))).toEqual([]);
  });

  test('a due date of yesterday is refused, a due date of today is accepted', async () => {
    const { manager, alice } = people;
    const title = uniqueText('Yesterday');
    const res = await call(manager, 'POST', '/api/tasks', { title, assignedTo: alice.user.id, dueDate: inDays(-1) });
    expectRefusal(res, 400, 'invalid_input', taskMessages.dueDateInPast);
    expect(await db().select().from(tasks).where(eq(tasks.title, title))).toEqual([]);

    const today = await createTask(manager, { dueDate: isoToday() });
    expect(today.dueDate).toBe(isoToday());
    expect((await taskRow(today.id))?.dueDate).toBe(isoToday());
  });

  test.each(['2099-02-30', '2099-13-45', '2100-02-29', '2099-04-31', '2099-00-10', '2099-12-00'])(
    'a due date that is no day of the calendar (%s) is refused and stores nothing',
    async (dueDate) => {
      const title = uniqueText('Impossible date');
      const res = await call(people.manager, 'POST', '/api/tasks', {
        title,
        assignedTo: people.alice.user.id,
        dueDate,
      });
      expectRefusal(res, 400, 'invalid_input', taskMessages.dueDateNotReal);
      expect(await db().select().from(tasks).where(eq(tasks.title, title))).toEqual([]);
    },
  );

  test('29 February of a leap year is a real due date', async () => {
    const task = await createTask(people.manager, { dueDate: '2096-02-29' });
    expect((await taskRow(task.id))?.dueDate).toBe('2096-02-29');
  });

  test.each([
    ['a manager', () => people.manager.user.id],
    ['an admin', () => people.admin.user.id],
    ['an unknown id', () => uuidv7()],
  ])('a task assigned to %s is refused: only employees take tasks', async (_what, assignee) => {
    const title = uniqueText('Wrong assignee');
    const res = await call(people.manager, 'POST', '/api/tasks', { title, assignedTo: assignee(), dueDate: inDays(2) });

    expectRefusal(res, 400, 'invalid_input', taskMessages.assigneeNotEmployee);
    expect(await db().select().from(tasks).where(eq(tasks.title, title))).toEqual([]);
  });

  test('assignedBy in the payload is ignored: the caller is the assigner', async () => {
    const { manager, admin } = people;
    const task = await createTask(manager, { assignedBy: admin.user.id });

    expect(task.assignedBy).toEqual(ref(manager));
    expect((await taskRow(task.id))?.assignedBy).toBe(manager.user.id);
    expect((await noticesAbout(task.id)).map((n) => n[2])).toEqual([manager.user.id]);

    // The same through a queued mutation.
    const id = uuidv7();
    const args = {
      id,
      title: uniqueText('Queued'),
      assignedTo: people.bob.user.id,
      dueDate: inDays(2),
      assignedBy: admin.user.id,
    };
    const answer = await push(manager, uuidv7(), [{ id: 1, name: 'task.create', args, at: new Date().toISOString() }]);
    expect(answer.outcomes).toEqual([{ id: 1, status: 'applied' }]);
    expect((await taskRow(id))?.assignedBy).toBe(manager.user.id);
  });

  test('the same client id re-sent with the same content is idempotent; with different content it is refused as duplicate_id', async () => {
    const { manager, alice } = people;
    const id = uuidv7();
    const payload = {
      id,
      title: uniqueText('Retry me'),
      assignedTo: alice.user.id,
      dueDate: inDays(5),
      priority: 'high',
    };
    const first = await call<TaskAnswer>(manager, 'POST', '/api/tasks', payload);
    expect(first.status).toBe(201);
    expect(first.body.task.id).toBe(id);
    const version = await newestSeq(db());

    const again = await call<TaskAnswer>(manager, 'POST', '/api/tasks', payload);
    expect(again.status).toBe(201);
    expect(again.body.task).toEqual(first.body.task);
    expect(await newestSeq(db())).toBe(version);

    const other = await call(manager, 'POST', '/api/tasks', { ...payload, title: 'Something else entirely' });
    expectRefusal(other, 409, 'duplicate_id', errorCatalogue.duplicate_id.message);

    expect(await db().select().from(tasks).where(eq(tasks.id, id))).toHaveLength(1);
    expect((await taskRow(id))?.title).toBe(payload.title);
    expect(await historyRows(id)).toHaveLength(1);
    expect(await noticesAbout(id)).toHaveLength(1);
    expect(await newestSeq(db())).toBe(version);
  });
});

describe('PUT /api/tasks/:id', () => {
  test('a manager edits the title, priority and assignee; the other parties are notified, never the editor', async () => {
    const { manager, admin, alice, bob } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });

    const edit = await call<TaskAnswer>(admin, 'PUT', `/api/tasks/${task.id}`, {
      title: 'Renamed by admin',
      priority: 'high',
    });
    expect(edit.status, JSON.stringify(edit.body)).toBe(200);
    expect(edit.body).toMatchObject({ success: true, message: 'Task updated successfully' });
    expect(edit.body.task).toMatchObject({ title: 'Renamed by admin', priority: 'high', assignedTo: ref(alice) });
    expect(await taskRow(task.id)).toMatchObject({ title: 'Renamed by admin', priority: 'high', status: 'pending' });

    const reassign = await call<TaskAnswer>(manager, 'PUT', `/api/tasks/${task.id}`, { assignedTo: bob.user.id });
    expect(reassign.status).toBe(200);
    expect(reassign.body.task.assignedTo).toEqual(ref(bob));
    expect((await taskRow(task.id))?.assignedTo).toBe(bob.user.id);

    expect(await noticesAbout(task.id)).toEqual(
      sortNotices([
        [
          alice.user.id,
          'task_assigned',
          manager.user.id,
          'New Task Assigned',
          `${manager.user.name} assigned you "${task.title}"`,
        ],
        [alice.user.id, 'task_updated', admin.user.id, 'Task Updated', `${admin.user.name} updated "Renamed by admin"`],
        [
          manager.user.id,
          'task_updated',
          admin.user.id,
          'Task Updated',
          `${admin.user.name} updated "Renamed by admin"`,
        ],
        [
          bob.user.id,
          'task_assigned',
          manager.user.id,
          'New Task Assigned',
          `${manager.user.name} assigned you "Renamed by admin"`,
        ],
      ]),
    );
  });

  test('reassigning to someone who is not an active employee is refused', async () => {
    const { manager, alice } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });
    const res = await call(manager, 'PUT', `/api/tasks/${task.id}`, { assignedTo: manager.user.id });
    expectRefusal(res, 400, 'invalid_input', taskMessages.assigneeNotEmployee);
    expect((await taskRow(task.id))?.assignedTo).toBe(alice.user.id);
  });

  test('an employee cannot edit the fields of a task, not even their own', async () => {
    const { manager, alice } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });
    const before = await taskRow(task.id);

    const res = await call(alice, 'PUT', `/api/tasks/${task.id}`, { title: 'Mine now', priority: 'low' });

    expectRefusal(res, 403, 'forbidden', taskMessages.onlyManagers);
    expect(await taskRow(task.id)).toEqual(before);
    expect(await noticesAbout(task.id)).toHaveLength(1);
  });

  test('the assignee changes the status with a note, which is appended to the history and told to the assigner', async () => {
    const { manager, alice } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });

    const res = await call<TaskAnswer>(alice, 'PUT', `/api/tasks/${task.id}`, {
      status: 'working',
      note: 'Started on it',
    });

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: 'Task updated successfully' });
    expect(res.body.task).toMatchObject({ status: 'working', statusVersion: 1 });
    expect(res.body.task.statusHistory).toEqual([
      expect.objectContaining({ status: 'pending', updatedBy: ref(manager), note: 'Task created' }),
      {
        _id: expect.any(String) as unknown,
        id: expect.any(String) as unknown,
        status: 'working',
        updatedBy: ref(alice),
        updatedAt: expect.any(String) as unknown,
        note: 'Started on it',
        superseded: false,
      },
    ]);
    expect(await taskRow(task.id)).toMatchObject({ status: 'working', statusVersion: 1 });
    expect((await historyRows(task.id)).map((h) => [h.status, h.updatedBy, h.note, h.superseded])).toEqual([
      ['pending', manager.user.id, 'Task created', false],
      ['working', alice.user.id, 'Started on it', false],
    ]);
    expect(await noticesAbout(task.id)).toContainEqual([
      manager.user.id,
      'task_updated',
      alice.user.id,
      'Task Status Updated',
      `${alice.user.name} changed "${task.title}" to working`,
    ]);
    expect((await noticesAbout(task.id)).filter((n) => n[0] === alice.user.id && n[1] === 'task_updated')).toEqual([]);
  });

  test("another employee cannot change the task's status", async () => {
    const { manager, alice, bob } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });
    const before = await taskRow(task.id);

    const res = await call(bob, 'PUT', `/api/tasks/${task.id}`, { status: 'completed', note: 'Done by me' });

    expect(res.status).toBe(403);
    expect(res.body).toEqual({ code: 'forbidden', message: "You don't have permission to update this task's status." });
    expect(await taskRow(task.id)).toEqual(before);
    expect(await historyRows(task.id)).toHaveLength(1);
  });

  test.each([
    ['a manager', 'manager'],
    ['an admin', 'admin'],
  ] as const)("%s may change the status of anyone's task", async (_label, who) => {
    const { manager, alice } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });

    const res = await call<TaskAnswer>(people[who], 'PUT', `/api/tasks/${task.id}`, { status: 'completed' });

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.task.status).toBe('completed');
    expect((await taskRow(task.id))?.status).toBe('completed');
    expect((await historyRows(task.id)).map((h) => [h.status, h.updatedBy, h.note])).toEqual([
      ['pending', manager.user.id, 'Task created'],
      ['completed', people[who].user.id, null],
    ]);
  });

  test('an unknown status is refused and changes nothing', async () => {
    const { manager, alice } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });

    const res = await call(alice, 'PUT', `/api/tasks/${task.id}`, { status: 'finished' });

    expectRefusal(res, 400, 'invalid_input', errorCatalogue.invalid_input.message);
    expect(res.body).toMatchObject({ details: [expect.objectContaining({ path: 'status' })] });
    expect((await taskRow(task.id))?.status).toBe('pending');
    expect(await historyRows(task.id)).toHaveLength(1);
  });

  test('a field edit sent with an invalid status is refused whole: nothing of it is written', async () => {
    const { manager, alice } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });
    const before = await taskRow(task.id);
    const version = await newestSeq(db());

    const res = await call(manager, 'PUT', `/api/tasks/${task.id}`, { title: 'Half applied?', status: 'finished' });

    expectRefusal(res, 400, 'invalid_input', errorCatalogue.invalid_input.message);
    expect(await taskRow(task.id)).toEqual(before);
    expect(await noticesAbout(task.id)).toHaveLength(1);
    expect(await newestSeq(db())).toBe(version);
  });

  test('a manager edits fields and the status in one call', async () => {
    const { manager, alice } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });

    const res = await call<TaskAnswer>(manager, 'PUT', `/api/tasks/${task.id}`, {
      priority: 'low',
      status: 'waiting',
      note: 'Parked',
    });

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.task).toMatchObject({ priority: 'low', status: 'waiting' });
    expect(await taskRow(task.id)).toMatchObject({ priority: 'low', status: 'waiting', statusVersion: 1 });
    expect((await historyRows(task.id)).map((h) => [h.status, h.note])).toEqual([
      ['pending', 'Task created'],
      ['waiting', 'Parked'],
    ]);
  });

  test('an edit to a due date that is no day of the calendar is refused and changes nothing', async () => {
    const task = await createTask(people.manager);
    const before = await taskRow(task.id);
    const res = await call(people.manager, 'PUT', `/api/tasks/${task.id}`, { dueDate: '2099-13-45' });
    expectRefusal(res, 400, 'invalid_input', taskMessages.dueDateNotReal);
    expect(await taskRow(task.id)).toEqual(before);
  });

  test('an edit follows the creation rule for a new due date (today or later), while an unchanged past date passes', async () => {
    const { manager } = people;
    const task = await createTask(manager);
    const overdue = inDays(-2);
    await db().update(tasks).set({ dueDate: overdue }).where(eq(tasks.id, task.id));

    const moved = await call(manager, 'PUT', `/api/tasks/${task.id}`, { dueDate: inDays(-1) });
    expectRefusal(moved, 400, 'invalid_input', taskMessages.dueDateInPast);
    expect((await taskRow(task.id))?.dueDate).toBe(overdue);

    // The form sends every field back: the overdue date it did not touch is no reason to refuse the title.
    const retitled = await call<TaskAnswer>(manager, 'PUT', `/api/tasks/${task.id}`, {
      title: 'Retitled while overdue',
      dueDate: overdue,
    });
    expect(retitled.status, JSON.stringify(retitled.body)).toBe(200);
    expect(await taskRow(task.id)).toMatchObject({ title: 'Retitled while overdue', dueDate: overdue });

    const today = await call<TaskAnswer>(manager, 'PUT', `/api/tasks/${task.id}`, { dueDate: isoToday() });
    expect(today.status).toBe(200);
    expect((await taskRow(task.id))?.dueDate).toBe(isoToday());
  });

  test('an edit with nothing to change is refused with "Nothing to update"', async () => {
    const task = await createTask(people.manager);
    expectRefusal(
      await call(people.manager, 'PUT', `/api/tasks/${task.id}`, {}),
      400,
      'invalid_input',
      'Nothing to update',
    );
  });

  test('a change to an unknown task answers 404', async () => {
    const res = await call(people.manager, 'PUT', `/api/tasks/${uuidv7()}`, { title: 'Ghost' });
    expectRefusal(res, 404, 'task_not_found', taskMessages.notFound);
  });
});

describe('status changes replayed late through /api/sync/push', () => {
  const setStatus = (
    id: number,
    taskId: string,
    status: string,
    at: string,
    extra: Record<string, unknown> = {},
  ): Mutation => ({
    id,
    name: 'task.setStatus',
    args: { id: taskId, status, ...extra },
    at,
  });

  test("alice's change made before the manager's later change is kept in the history as superseded, and she is told", async () => {
    const { manager, alice } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });
    const v0 = task.statusVersion;
    const client = uuidv7();
    // Alice's client synced once earlier, so the time it claims later lies after its floor.
    await push(alice, client, [
      {
        id: 1,
        name: 'task.comment',
        args: { taskId: task.id, id: uuidv7(), text: 'Looking at it' },
        at: new Date().toISOString(),
      },
    ]);
    await sleep(20);
    const t1 = new Date().toISOString(); // alice, offline, sets "working"
    await sleep(20);
    const managers = await call(manager, 'PUT', `/api/tasks/${task.id}`, {
      status: 'waiting',
      note: 'On hold for legal',
    });
    expect(managers.status).toBe(200);
    const t2 = (await taskRow(task.id))?.statusChangedAt ?? '';
    expect(t2 > t1).toBe(true);

    const answer = await push(alice, client, [
      setStatus(2, task.id, 'working', t1, { note: 'Started', baseStatusVersion: v0 }),
    ]);

    expect(answer.outcomes).toEqual([{ id: 2, status: 'applied' }]);
    expect(await taskRow(task.id)).toMatchObject({ status: 'waiting', statusVersion: v0 + 1, statusChangedAt: t2 });
    expect((await historyRows(task.id)).map((h) => [h.status, h.updatedBy, h.updatedAt, h.note, h.superseded])).toEqual(
      [
        ['pending', manager.user.id, task.statusHistory[0]?.updatedAt, 'Task created', false],
        ['working', alice.user.id, t1, 'Started', true],
        ['waiting', manager.user.id, t2, 'On hold for legal', false],
      ],
    );
    const [current] = (await listTasks(alice)).filter((t) => t.id === task.id);
    expect(current?.status).toBe('waiting');
    expect(current?.statusHistory.map((h) => [h.status, h.superseded])).toEqual([
      ['pending', false],
      ['working', true],
      ['waiting', false],
    ]);

    const alicesNotices = (await noticesAbout(task.id)).filter((n) => n[0] === alice.user.id);
    expect(alicesNotices).toContainEqual([
      alice.user.id,
      'task_updated',
      null,
      'Status change superseded',
      `Your change of "${task.title}" to working was made before a later change, which stays in effect.`,
    ]);
    // The manager is not told about a change that did not take effect.
    expect((await noticesAbout(task.id)).filter((n) => n[0] === manager.user.id && n[1] === 'task_updated')).toEqual(
      [],
    );
  });

  test('a change on a stale version that was made later than the other change wins', async () => {
    const { manager, alice } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });
    const client = uuidv7();
    await push(alice, client, [
      {
        id: 1,
        name: 'task.comment',
        args: { taskId: task.id, id: uuidv7(), text: 'Syncing' },
        at: new Date().toISOString(),
      },
    ]);
    const managers = await call(manager, 'PUT', `/api/tasks/${task.id}`, { status: 'waiting' });
    expect(managers.status).toBe(200);
    const t2 = (await taskRow(task.id))?.statusChangedAt ?? '';
    await sleep(20);
    const t3 = new Date().toISOString();
    expect(t3 > t2).toBe(true);

    const answer = await push(alice, client, [
      setStatus(2, task.id, 'completed', t3, { note: 'Finished offline', baseStatusVersion: task.statusVersion }),
    ]);

    expect(answer.outcomes).toEqual([{ id: 2, status: 'applied' }]);
    expect(await taskRow(task.id)).toMatchObject({
      status: 'completed',
      statusVersion: task.statusVersion + 2,
      statusChangedAt: t3,
    });
    expect((await historyRows(task.id)).map((h) => [h.status, h.updatedBy, h.note, h.superseded])).toEqual([
      ['pending', manager.user.id, 'Task created', false],
      ['waiting', manager.user.id, null, false],
      ['completed', alice.user.id, 'Finished offline', false],
    ]);
    expect(await noticesAbout(task.id)).toContainEqual([
      manager.user.id,
      'task_updated',
      alice.user.id,
      'Task Status Updated',
      `${alice.user.name} changed "${task.title}" to completed`,
    ]);
    expect((await noticesAbout(task.id)).filter((n) => n[3] === 'Status change superseded')).toEqual([]);
  });

  test('a change on the version nobody has moved since simply applies', async () => {
    const { manager, alice } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });
    const answer = await push(alice, uuidv7(), [
      setStatus(1, task.id, 'working', new Date().toISOString(), { baseStatusVersion: task.statusVersion }),
    ]);
    expect(answer.outcomes).toEqual([{ id: 1, status: 'applied' }]);
    expect(await taskRow(task.id)).toMatchObject({ status: 'working', statusVersion: task.statusVersion + 1 });
    expect((await historyRows(task.id)).map((h) => [h.status, h.superseded])).toEqual([
      ['pending', false],
      ['working', false],
    ]);
  });

  test('a time claimed in the future is clamped to the server clock, so it cannot win over a change made after it arrived', async () => {
    const { manager, alice } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });
    const client = uuidv7();
    const sent = new Date().toISOString();
    await push(alice, client, [setStatus(1, task.id, 'working', '2099-01-01T00:00:00.000Z', { baseStatusVersion: 0 })]);
    const aliceRow = (await historyRows(task.id)).find((h) => h.updatedBy === alice.user.id);
    expect(aliceRow?.updatedAt.startsWith('2099')).toBe(false);
    expect((aliceRow?.updatedAt ?? '') >= sent).toBe(true);
    await sleep(10);

    // The manager's own client replays a change made after alice's arrived, on the version he saw before it.
    const managerAnswer = await push(manager, uuidv7(), [
      setStatus(1, task.id, 'waiting', new Date().toISOString(), { baseStatusVersion: 0 }),
    ]);

    expect(managerAnswer.outcomes).toEqual([{ id: 1, status: 'applied' }]);
    expect((await taskRow(task.id))?.status).toBe('waiting');
    expect((await historyRows(task.id)).map((h) => [h.status, h.superseded])).toEqual([
      ['pending', false],
      ['working', false],
      ['waiting', false],
    ]);
  });

  test("another employee's pushed status change is rejected with the permission message", async () => {
    const { manager, alice, bob } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });
    const answer = await push(bob, uuidv7(), [setStatus(1, task.id, 'completed', new Date().toISOString())]);
    expect(answer.outcomes).toEqual([
      { id: 1, status: 'rejected', code: 'forbidden', message: taskMessages.noStatusPermission },
    ]);
    expect((await taskRow(task.id))?.status).toBe('pending');
    expect(await historyRows(task.id)).toHaveLength(1);
  });
});

describe('task.edit, the command of PUT /api/tasks/{id}, as a queued mutation', () => {
  const edit = (id: number, args: Record<string, unknown>): Mutation => ({
    id,
    name: 'task.edit',
    args,
    at: new Date().toISOString(),
  });

  test("a manager's queued edit changes fields and the status in one write: one change-log entry, one history row", async () => {
    const { manager, alice } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });
    const before = await cursorNow(db());

    const answer = await push(manager, uuidv7(), [
      edit(1, { id: task.id, title: 'Edited offline', priority: 'high', status: 'working', note: 'Picked up' }),
    ]);

    expect(answer.outcomes).toEqual([{ id: 1, status: 'applied' }]);
    expect(await taskRow(task.id)).toMatchObject({ title: 'Edited offline', priority: 'high', status: 'working' });
    expect((await historyRows(task.id)).map((h) => [h.status, h.note])).toEqual([
      ['pending', 'Task created'],
      ['working', 'Picked up'],
    ]);
    const taskChanges = (await pull(manager, uuidv7(), before)).changes.filter((c) => c.entity === 'task');
    expect(taskChanges.map((c) => c.id)).toEqual([task.id]);
  });

  test('the assignee may change the status with an edit but no field: an edit of both is rejected whole', async () => {
    const { manager, alice } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });
    const before = await taskRow(task.id);
    const client = uuidv7();

    const answer = await push(alice, client, [
      edit(1, { id: task.id, title: 'Mine now', status: 'working' }),
      edit(2, { id: task.id, status: 'working', note: 'On it' }),
    ]);

    expect(answer.outcomes).toEqual([
      { id: 1, status: 'rejected', code: 'forbidden', message: taskMessages.onlyManagers },
      { id: 2, status: 'applied' },
    ]);
    expect(await taskRow(task.id)).toMatchObject({ title: before?.title, status: 'working' });
    expect((await historyRows(task.id)).map((h) => [h.status, h.updatedBy, h.note])).toEqual([
      ['pending', manager.user.id, 'Task created'],
      ['working', alice.user.id, 'On it'],
    ]);
  });

  test("another employee's edit of the status is rejected with the permission message", async () => {
    const task = await createTask(people.manager, { assignedTo: people.alice.user.id });
    const answer = await push(people.bob, uuidv7(), [edit(1, { id: task.id, status: 'completed' })]);
    expect(answer.outcomes).toEqual([
      { id: 1, status: 'rejected', code: 'forbidden', message: taskMessages.noStatusPermission },
    ]);
    expect((await taskRow(task.id))?.status).toBe('pending');
  });
});

describe('claimed times', () => {
  const syncClientRow = async (clientId: string) =>
    (await db().select().from(syncClients).where(eq(syncClients.clientId, clientId)))[0];

  test("a new client's first push claiming 2020-01-01 is clamped to its registration: the history never shows 2020", async () => {
    const { manager, alice } = people;
    const client = uuidv7();
    const taskId = uuidv7();
    const title = uniqueText('Backdated');

    const answer = await push(manager, client, [
      {
        id: 1,
        name: 'task.create',
        args: { id: taskId, title, assignedTo: alice.user.id, dueDate: inDays(2) },
        at: '2020-01-01T00:00:00.000Z',
      },
    ]);

    expect(answer.outcomes).toEqual([{ id: 1, status: 'applied' }]);
    const registeredAt = (await syncClientRow(client))?.createdAt ?? '';
    expect(registeredAt > '2026').toBe(true);
    expect((await historyRows(taskId)).map((h) => h.updatedAt)).toEqual([registeredAt]);
    expect((await taskRow(taskId))?.statusChangedAt).toBe(registeredAt);
  });

  test('a client registers at its first pull (its sign-in), so writes it made offline before its first push keep their times', async () => {
    const { manager, alice } = people;
    const client = uuidv7();
    await pull(manager, client, '0');
    await sleep(20);
    const madeOffline = new Date().toISOString();
    await sleep(20);
    const taskId = uuidv7();

    const answer = await push(manager, client, [
      {
        id: 1,
        name: 'task.create',
        args: { id: taskId, title: uniqueText('Offline'), assignedTo: alice.user.id, dueDate: inDays(2) },
        at: madeOffline,
      },
    ]);

    expect(answer.outcomes).toEqual([{ id: 1, status: 'applied' }]);
    expect((await syncClientRow(client))?.createdAt.localeCompare(madeOffline)).toBe(-1);
    expect((await historyRows(taskId)).map((h) => h.updatedAt)).toEqual([madeOffline]);
  });

  test('a status change claimed before its task existed is clamped to just after the task’s creation', async () => {
    const { manager, alice } = people;
    const client = uuidv7();
    await push(alice, client, [
      {
        id: 1,
        name: 'task.comment',
        args: { taskId: (await createTask(manager)).id, id: uuidv7(), text: 'Hi' },
        at: new Date().toISOString(),
      },
    ]);
    await sleep(20);
    const claimed = new Date().toISOString();
    await sleep(20);
    const task = await createTask(manager, { assignedTo: alice.user.id });
    const createdAt = (await taskRow(task.id))?.createdAt ?? '';
    expect(claimed < createdAt).toBe(true);

    const answer = await push(alice, client, [
      { id: 2, name: 'task.setStatus', args: { id: task.id, status: 'working' }, at: claimed },
    ]);

    expect(answer.outcomes).toEqual([{ id: 2, status: 'applied' }]);
    const history = await historyRows(task.id);
    expect(history.map((h) => h.status)).toEqual(['pending', 'working']);
    expect(history.at(-1)?.updatedAt).toBe(new Date(Date.parse(createdAt) + 1).toISOString());
  });
});

describe('POST /api/tasks/:id/comments', () => {
  test('the assignee, the assigner and an admin comment on a task; the answer carries the author names', async () => {
    const { manager, admin, alice } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });

    for (const [session, text] of [
      [alice, 'I will start tomorrow.'],
      [manager, 'Thanks!'],
      [admin, 'Noted.'],
    ] as const) {
      const res = await call<TaskAnswer>(session, 'POST', `/api/tasks/${task.id}/comments`, { text: `  ${text}  ` });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.message).toBe('Comment added successfully');
      expect(res.body.task.id).toBe(task.id);
      expect(res.body.task.comments.at(-1)).toMatchObject({
        userId: session.user.id,
        userName: session.user.name,
        text,
      });
    }

    expect((await commentRows(task.id)).map((c) => [c.userId, c.text])).toEqual([
      [alice.user.id, 'I will start tomorrow.'],
      [manager.user.id, 'Thanks!'],
      [admin.user.id, 'Noted.'],
    ]);
  });

  test.each(['', '   \n\t '])('a blank comment (%j) is refused with "Comment text is required"', async (text) => {
    const { manager, alice } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });

    const res = await call(alice, 'POST', `/api/tasks/${task.id}/comments`, { text });

    expectRefusal(res, 400, 'invalid_input', 'Comment text is required');
    expect(await commentRows(task.id)).toEqual([]);
    expect((await noticesAbout(task.id)).filter((n) => n[1] === 'task_comment')).toEqual([]);
  });

  test('a comment on a deleted task is refused as task_not_found', async () => {
    const { manager, alice } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });
    expect((await call(manager, 'DELETE', `/api/tasks/${task.id}`)).status).toBe(200);

    const res = await call(alice, 'POST', `/api/tasks/${task.id}/comments`, { text: 'Too late?' });

    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'task_not_found', message: 'Task not found. It may have been deleted.' });
    expect(await commentRows(task.id)).toEqual([]);
  });

  test('an employee who cannot see the task gets 404 and leaves no comment', async () => {
    const { manager, alice, bob } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });

    const res = await call(bob, 'POST', `/api/tasks/${task.id}/comments`, { text: 'Peeking' });

    expectRefusal(res, 404, 'task_not_found', taskMessages.notFound);
    expect(await commentRows(task.id)).toEqual([]);
    expect((await noticesAbout(task.id)).filter((n) => n[1] === 'task_comment')).toEqual([]);
  });

  test('a comment notifies the other parties, never its author, with the text cut to 100 characters', async () => {
    const { manager, admin, alice } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });
    const long = 'abcdefghij'.repeat(15);
    expect(long).toHaveLength(150);

    expect((await call(alice, 'POST', `/api/tasks/${task.id}/comments`, { text: long })).status).toBe(201);
    expect((await call(admin, 'POST', `/api/tasks/${task.id}/comments`, { text: 'Short one' })).status).toBe(201);

    const cut = `${'abcdefghij'.repeat(10)}...`;
    expect(cut).toHaveLength(103);
    expect((await noticesAbout(task.id)).filter((n) => n[1] === 'task_comment')).toEqual(
      sortNotices([
        [manager.user.id, 'task_comment', alice.user.id, `New comment from ${alice.user.name}`, cut],
        [alice.user.id, 'task_comment', admin.user.id, `New comment from ${admin.user.name}`, 'Short one'],
        [manager.user.id, 'task_comment', admin.user.id, `New comment from ${admin.user.name}`, 'Short one'],
      ]),
    );
    expect((await commentRows(task.id)).map((c) => c.text)).toEqual([long, 'Short one']);
  });
});

describe('DELETE /api/tasks/:id', () => {
  test.each([
    ['a manager', 'manager'],
    ['an admin', 'admin'],
  ] as const)(
    '%s deletes a task: it leaves GET and comes as a delete in the pulls of its parties only',
    async (_label, who) => {
      const { manager, alice, bob } = people;
      const task = await createTask(manager, { assignedTo: alice.user.id });
      const clients = { alice: uuidv7(), manager: uuidv7(), bob: uuidv7() };
      const cursors = {
        alice: (await pull(alice, clients.alice, '0')).cursor,
        manager: (await pull(manager, clients.manager, '0')).cursor,
        bob: (await pull(bob, clients.bob, '0')).cursor,
      };

      const res = await call(people[who], 'DELETE', `/api/tasks/${task.id}`);

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, message: 'Task deleted successfully' });
      expect((await taskRow(task.id))?.deletedAt).not.toBeNull();
      for (const session of [alice, manager, people.admin]) {
        expect((await listTasks(session)).map((t) => t.id)).not.toContain(task.id);
      }
      expect((await pull(alice, clients.alice, cursors.alice)).changes).toEqual([
        { entity: 'task', op: 'delete', id: task.id },
      ]);
      expect(taskChanges((await pull(manager, clients.manager, cursors.manager)).changes, task.id)).toEqual([
        { entity: 'task', op: 'delete', id: task.id },
      ]);
      expect((await pull(bob, clients.bob, cursors.bob)).changes).toEqual([]);
      expect(taskPuts((await pull(alice, uuidv7(), '0')).changes).map((t) => t.id)).not.toContain(task.id);
    },
  );

  test('an employee cannot delete a task, not even their own', async () => {
    const { manager, alice } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });

    const res = await call(alice, 'DELETE', `/api/tasks/${task.id}`);

    expectRefusal(res, 403, 'forbidden', taskMessages.onlyManagers);
    expect((await taskRow(task.id))?.deletedAt).toBeNull();
    expect((await listTasks(alice)).map((t) => t.id)).toContain(task.id);
  });

  test('deleting a task twice answers 404 the second time, and so does editing it', async () => {
    const { manager, alice } = people;
    const task = await createTask(manager, { assignedTo: alice.user.id });
    expect((await call(manager, 'DELETE', `/api/tasks/${task.id}`)).status).toBe(200);
    const deletedAt = (await taskRow(task.id))?.deletedAt;
    const version = await newestSeq(db());

    expectRefusal(await call(manager, 'DELETE', `/api/tasks/${task.id}`), 404, 'task_not_found', taskMessages.notFound);
    expectRefusal(
      await call(manager, 'PUT', `/api/tasks/${task.id}`, { title: 'Revived' }),
      404,
      'task_not_found',
      taskMessages.notFound,
    );
    expectRefusal(
      await call(alice, 'PUT', `/api/tasks/${task.id}`, { status: 'working' }),
      404,
      'task_not_found',
      taskMessages.notFound,
    );

    expect(await taskRow(task.id)).toMatchObject({ deletedAt, title: task.title, status: 'pending' });
    expect(await newestSeq(db())).toBe(version);
  });
});

describe('realtime', () => {
  type SyncChange = EventPayload<'sync.change'>;

  test("when the manager creates a task for alice, her socket receives the task and her notification, bob's neither", async () => {
    const { manager, alice, bob } = people;
    const aliceSocket = await server.connect(alice.token);
    const bobSocket = await server.connect(bob.token);
    const alices = recordEvents(aliceSocket, 'sync.change');
    const bobs = recordEvents(bobSocket, 'sync.change');

    const task = await createTask(manager, { assignedTo: alice.user.id });
    const isTask = (e: SyncChange) => e.change.entity === 'task' && e.change.id === task.id;
    const isNotice = (e: SyncChange) =>
      e.change.entity === 'notification' && e.change.op === 'put' && e.change.data.relatedTask === task.id;
    await waitUntil(() => alices.some(isTask) && alices.some(isNotice));

    const taskEvent = alices.find(isTask);
    expect(taskEvent?.change).toMatchObject({ entity: 'task', op: 'put', id: task.id });
    expect(
      taskEvent?.change.op === 'put' && taskEvent.change.entity === 'task' && taskEvent.change.data.assignedTo,
    ).toEqual(ref(alice));
    expect(taskEvent?.change).toMatchObject({ data: { version: (await taskRow(task.id))?.version } });
    const notice = alices.find(isNotice);
    expect(notice?.change).toMatchObject({
      entity: 'notification',
      op: 'put',
      data: { recipient: alice.user.id, type: 'task_assigned', relatedTask: task.id, sender: ref(manager) },
    });
    const [row] = await db()
      .select()
      .from(notifications)
      .where(and(eq(notifications.recipientId, alice.user.id), eq(notifications.relatedTaskId, task.id)));
    expect(notice?.change.id).toBe(row?.id);

    await sleep(100);
    expect(bobs.filter((e) => isTask(e) || isNotice(e))).toEqual([]);
  });
});
