import { afterEach, describe, expect, test } from 'vitest';
import { asc, eq } from 'drizzle-orm';
import { isoToday, type ServerToClientEvents, type Task, type User } from '@office/sync-protocol';
import { notifications, tasks, users } from '../db/schema';
import { bearer, connectSocket, startTestServer, type TestServer, type TestSocket } from '../../test/support';
import { runDueChecks } from './due-checks';

// Each test runs on an empty database with its own three accounts, so the job's counts are exact.
type Session = { token: string; user: User };

const servers: TestServer[] = [];
const sockets: TestSocket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.close();
  for (const server of servers.splice(0)) await server.close();
});

async function register(server: TestServer, name: string, email: string): Promise<Session> {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { name, email, password: 'secret123' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Session>();
}

/** An empty workspace: Maya (made a manager), Erin and Finn (employees). */
async function setup() {
  const server = await startTestServer({ seed: false });
  servers.push(server);
  const [maya, erin, finn] = await Promise.all([
    register(server, 'Maya Lead', 'maya@test.local'),
    register(server, 'Erin Employee', 'erin@test.local'),
    register(server, 'Finn Employee', 'finn@test.local'),
  ]);
  await server.app.db.update(users).set({ role: 'manager' }).where(eq(users.id, maya.user.id));
  const db = server.app.db;

  async function call(
    session: Session,
    method: 'POST' | 'PUT' | 'DELETE',
    url: string,
    payload?: Record<string, unknown>,
  ) {
    const res = await server.app.inject({
      method,
      url,
      headers: bearer(session.token),
      ...(payload ? { payload } : {}),
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json<{ task: Task }>();
  }
  const createTask = async (title: string, dueDate: string, assignee: Session = erin): Promise<Task> =>
    (await call(maya, 'POST', '/api/tasks', { title, assignedTo: assignee.user.id, dueDate })).task;
  /** Runs the job as the server would, at a chosen moment. */
  const runAt = (when: Date) => runDueChecks(db, server.app.flush, when);
  /** Notices about a task as [recipient, type, sender, title, message]. */
  const notices = async (taskId: string) =>
    (
      await db
        .select()
        .from(notifications)
        .where(eq(notifications.relatedTaskId, taskId))
        .orderBy(asc(notifications.createdAt), asc(notifications.recipientId))
    ).map((n) => [n.recipientId, n.type, n.senderId, n.title, n.message] as const);
  const dueNotices = async (taskId: string) =>
    (await notices(taskId)).filter(([, type]) => type === 'task_due_soon' || type === 'task_overdue');
  const taskRow = async (id: string) => (await db.select().from(tasks).where(eq(tasks.id, id)))[0];

  return { server, db, maya, erin, finn, call, createTask, runAt, notices, dueNotices, taskRow };
}

const DAY = 86_400_000;
/** A due date this many days after the real today (creation refuses past dates). */
const dueIn = (days: number): string => isoToday(new Date(Date.now() + days * DAY));
/** A due date as people read it ("Nov 27, 2026"), as every screen writes it. */
const asPeopleRead = (date: string): string =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString('en-US', {
    month: 'short',
    day: 'numeric',
    year: 'numeric',
    timeZone: 'UTC',
  });
/** A moment on the day `days` away from `date`, at `hour` UTC. */
const dayFrom = (date: string, days: number, hour = 9): Date =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY + hour * 3_600_000);

describe('due-soon and overdue checks', () => {
  test('a task due tomorrow gets exactly one task_due_soon notice, even when the job runs three times', async () => {
    const { erin, createTask, runAt, dueNotices, taskRow } = await setup();
    const due = dueIn(3);
    const task = await createTask('Send the invoices', due);

    expect(await runAt(dayFrom(due, -2))).toEqual({ dueSoon: 0, overdue: 0 });
    expect(await dueNotices(task.id)).toEqual([]);

    expect(await runAt(dayFrom(due, -1, 8))).toEqual({ dueSoon: 1, overdue: 0 });
    const flaggedAt = (await taskRow(task.id))?.dueSoonNotifiedAt;
    expect(flaggedAt).toEqual(expect.any(String));
    expect(await runAt(dayFrom(due, -1, 9))).toEqual({ dueSoon: 0, overdue: 0 });
    expect(await runAt(dayFrom(due, -1, 23))).toEqual({ dueSoon: 0, overdue: 0 });

    expect(await dueNotices(task.id)).toEqual([
      [erin.user.id, 'task_due_soon', null, 'Task Due Soon', '"Send the invoices" is due tomorrow'],
    ]);
    expect(await taskRow(task.id)).toMatchObject({ dueSoonNotifiedAt: flaggedAt, overdueNotifiedAt: null });
  });

  test('an overdue task that is not completed gets one task_overdue notice, is flagged, and never gets another', async () => {
    const { maya, erin, call, createTask, runAt, dueNotices, taskRow } = await setup();
    const due = dueIn(2);
    const task = await createTask('Renew the domain', due);
    await call(erin, 'PUT', `/api/tasks/${task.id}`, { status: 'working' });

    expect(await runAt(dayFrom(due, 1))).toEqual({ dueSoon: 0, overdue: 1 });
    const flaggedAt = (await taskRow(task.id))?.overdueNotifiedAt;
    expect(flaggedAt).toEqual(expect.any(String));
    // Written as every screen writes a date ("Nov 27, 2026"), never "2026-11-27".
    const message = `"Renew the domain" was due on ${asPeopleRead(due)} and is not completed`;
    expect(message).not.toContain(due);
    const expected = [
      [erin.user.id, 'task_overdue', null, 'Task Overdue', message],
      [maya.user.id, 'task_overdue', null, 'Task Overdue', message],
    ].sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(await dueNotices(task.id)).toEqual(expected);

    for (const days of [1, 2, 5]) expect(await runAt(dayFrom(due, days, 15))).toEqual({ dueSoon: 0, overdue: 0 });
    expect(await dueNotices(task.id)).toEqual(expected);
    expect((await taskRow(task.id))?.overdueNotifiedAt).toBe(flaggedAt);
  });

  test('more tasks than one transaction takes: every one notified once, in steps that each commit', async () => {
    const { server, db, createTask, dueNotices } = await setup();
    const due = dueIn(2);
    const created = [];
    for (const title of ['One', 'Two', 'Three', 'Four', 'Five']) created.push(await createTask(title, due));
    // Two tasks a transaction: the five take three steps, and a run after them finds nothing left.
    expect(await runDueChecks(db, server.app.flush, dayFrom(due, -1), 2)).toEqual({ dueSoon: 5, overdue: 0 });
    expect(await runDueChecks(db, server.app.flush, dayFrom(due, 1), 2)).toEqual({ dueSoon: 0, overdue: 5 });
    expect(await runDueChecks(db, server.app.flush, dayFrom(due, 2), 2)).toEqual({ dueSoon: 0, overdue: 0 });
    for (const task of created)
      expect((await dueNotices(task.id)).map(([, type]) => type).sort()).toEqual([
        'task_due_soon',
        'task_overdue',
        'task_overdue',
      ]);
  });

  test('a task becomes overdue only after its due date, not on the day itself', async () => {
    const { createTask, runAt, dueNotices, taskRow } = await setup();
    const due = dueIn(4);
    const task = await createTask('Book the venue', due);

    await runAt(dayFrom(due, -1));
    expect((await dueNotices(task.id)).map(([, type]) => type)).toEqual(['task_due_soon']);

    expect(await runAt(dayFrom(due, 0, 0))).toEqual({ dueSoon: 0, overdue: 0 });
    expect(await runAt(dayFrom(due, 0, 23))).toEqual({ dueSoon: 0, overdue: 0 });
    expect((await taskRow(task.id))?.overdueNotifiedAt).toBeNull();
    expect((await dueNotices(task.id)).map(([, type]) => type)).toEqual(['task_due_soon']);

    expect(await runAt(dayFrom(due, 1, 0))).toEqual({ dueSoon: 0, overdue: 1 });
    expect((await taskRow(task.id))?.overdueNotifiedAt).not.toBeNull();
    expect((await dueNotices(task.id)).filter(([, type]) => type === 'task_overdue')).toHaveLength(2);
  });

  test('a completed task gets neither a due-soon nor an overdue notice', async () => {
    const { erin, call, createTask, runAt, dueNotices, taskRow } = await setup();
    const due = dueIn(2);
    const task = await createTask('Archive old files', due);
    await call(erin, 'PUT', `/api/tasks/${task.id}`, { status: 'completed', note: 'Done early' });

    expect(await runAt(dayFrom(due, -1))).toEqual({ dueSoon: 0, overdue: 0 });
    expect(await runAt(dayFrom(due, 3))).toEqual({ dueSoon: 0, overdue: 0 });

    expect(await dueNotices(task.id)).toEqual([]);
    expect(await taskRow(task.id)).toMatchObject({
      status: 'completed',
      dueSoonNotifiedAt: null,
      overdueNotifiedAt: null,
    });
  });

  test('a deleted task gets no notices, while a live one due the same day does', async () => {
    const { finn, maya, call, createTask, runAt, dueNotices, taskRow } = await setup();
    const due = dueIn(2);
    const gone = await createTask('Cancelled errand', due);
    const kept = await createTask('Real errand', due, finn);
    await call(maya, 'DELETE', `/api/tasks/${gone.id}`);

    expect(await runAt(dayFrom(due, -1))).toEqual({ dueSoon: 1, overdue: 0 });
    expect(await runAt(dayFrom(due, 2))).toEqual({ dueSoon: 0, overdue: 1 });

    expect(await dueNotices(gone.id)).toEqual([]);
    expect(await taskRow(gone.id)).toMatchObject({ dueSoonNotifiedAt: null, overdueNotifiedAt: null });
    expect((await dueNotices(kept.id)).map(([recipient, type]) => [recipient, type])).toEqual(
      expect.arrayContaining([
        [finn.user.id, 'task_due_soon'],
        [finn.user.id, 'task_overdue'],
        [maya.user.id, 'task_overdue'],
      ]),
    );
  });

  test('a task whose due date is moved earns the notices again for its new date', async () => {
    const { maya, erin, call, createTask, runAt, dueNotices, taskRow } = await setup();
    const due = dueIn(2);
    const task = await createTask('Quarterly review', due);
    await runAt(dayFrom(due, -1));
    await runAt(dayFrom(due, 1));
    expect((await taskRow(task.id))?.overdueNotifiedAt).not.toBeNull();

    const later = dueIn(10);
    await call(maya, 'PUT', `/api/tasks/${task.id}`, { dueDate: later });
    expect(await taskRow(task.id)).toMatchObject({ dueDate: later, dueSoonNotifiedAt: null, overdueNotifiedAt: null });

    expect(await runAt(dayFrom(later, -1))).toEqual({ dueSoon: 1, overdue: 0 });
    expect(await runAt(dayFrom(later, 1))).toEqual({ dueSoon: 0, overdue: 1 });
    const erins = (await dueNotices(task.id)).filter(([recipient]) => recipient === erin.user.id);
    expect(erins.map(([, type, , , message]) => `${type}: ${message}`).sort()).toEqual(
      [
        'task_due_soon: "Quarterly review" is due tomorrow',
        'task_due_soon: "Quarterly review" is due tomorrow',
        `task_overdue: "Quarterly review" was due on ${asPeopleRead(due)} and is not completed`,
        `task_overdue: "Quarterly review" was due on ${asPeopleRead(later)} and is not completed`,
      ].sort(),
    );
  });

  test("the job's notices reach the assignee's socket as they are made", async () => {
    const { server, erin, createTask, runAt, db } = await setup();
    const due = dueIn(2);
    const task = await createTask('Call the landlord', due);
    const socket = await connectSocket(server.url, erin.token);
    sockets.push(socket);
    type SyncChange = Parameters<ServerToClientEvents['sync.change']>[0];
    const seen: SyncChange[] = [];
    socket.on('sync.change', (payload) => seen.push(payload));

    await runAt(dayFrom(due, -1));

    const [row] = await db.select().from(notifications).where(eq(notifications.type, 'task_due_soon'));
    expect(row?.relatedTaskId).toBe(task.id);
    const deadline = Date.now() + 3000;
    while (!seen.some((e) => e.change.id === row?.id) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(seen.find((e) => e.change.id === row?.id)?.change).toMatchObject({
      entity: 'notification',
      op: 'put',
      data: { recipient: erin.user.id, type: 'task_due_soon', relatedTask: task.id, sender: null },
    });
  });
});
