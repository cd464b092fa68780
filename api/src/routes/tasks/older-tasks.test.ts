import { describe, expect, test } from 'vitest';
import { and, eq, isNull } from 'drizzle-orm';
import { olderTasksPageSchema, type OlderTasksPage, type Task } from '@office/sync-protocol';
import { tasks } from '../../db/schema';
import { inDays, uniqueText } from '../../../test/support';
import { expectRefusal, useSeededServer, type Session } from '../../../test/api-client';

// Issue 46: a device holds the completed tasks of its window only; the older ones are read from the server a page at
// a time (GET /api/tasks?status=completed&before=), newest first, as GET /api/tasks shows them to the caller.
const { people, db, call } = useSeededServer();

const DAY_MS = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString();

async function createTask(by: Session, assignee: Session, status: Task['status']): Promise<Task> {
  const res = await call<{ task: Task }>(by, 'POST', '/api/tasks', {
    title: uniqueText('Older'),
    assignedTo: assignee.user.id,
    dueDate: inDays(3),
    status,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.task;
}

/** Moves a task's last change back in time, as if it had been completed long ago. */
const changedAt = (id: string, updatedAt: string) => db().update(tasks).set({ updatedAt }).where(eq(tasks.id, id));

/** Every page of `session`'s older completed tasks from `before`, chained by each page's `next`. */
async function allPages(session: Session, before: string, limit: number): Promise<OlderTasksPage[]> {
  const pages: OlderTasksPage[] = [];
  let query: Record<string, string> | null = { before };
  while (query) {
    const params = new URLSearchParams({ status: 'completed', limit: String(limit), ...query });
    const res = await call<OlderTasksPage>(session, 'GET', `/api/tasks?${params.toString()}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const page = olderTasksPageSchema.parse(res.body);
    expect(page.tasks.length).toBeLessThanOrEqual(limit);
    pages.push(page);
    query = page.next;
    expect(pages.length, 'the pages end').toBeLessThan(100);
  }
  return pages;
}

/** The ids the database holds of completed tasks changed before `before` that `see` lets through, newest first. */
async function expectedIds(before: string, see: (row: typeof tasks.$inferSelect) => boolean): Promise<string[]> {
  const rows = await db()
    .select()
    .from(tasks)
    .where(and(isNull(tasks.deletedAt), eq(tasks.status, 'completed')));
  return rows
    .filter((row) => row.updatedAt < before && see(row))
    .sort((a, b) => (a.updatedAt === b.updatedAt ? (a.id < b.id ? 1 : -1) : a.updatedAt < b.updatedAt ? 1 : -1))
    .map((row) => row.id);
}

describe('GET /api/tasks?status=completed&before= (older completed tasks, issue 46)', () => {
  test('pages the completed tasks the caller may see changed before the place, newest first, without gaps or repeats', async () => {
    const { manager, alice, bob } = people;
    const edge = daysAgo(30);
    const old: Task[] = [];
    for (let i = 0; i < 7; i++) old.push(await createTask(manager, i % 2 ? bob : alice, 'completed'));
    // Three share one time: the pages must not split them into a gap or a repeat.
    for (const [i, task] of old.entries()) await changedAt(task.id, daysAgo(i < 3 ? 40 : 40 + i));
    const openOld = await createTask(manager, alice, 'working');
    await changedAt(openOld.id, daysAgo(50));
    const recent = await createTask(manager, alice, 'completed');

    const pages = await allPages(manager, edge, 2);
    const ids = pages.flatMap((page) => page.tasks.map((task) => task.id));
    expect(ids).toEqual(await expectedIds(edge, () => true));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(old.map((task) => task.id)));
    expect(ids).not.toContain(openOld.id);
    expect(ids).not.toContain(recent.id);
    expect(pages.flatMap((page) => page.tasks).every((task) => task.status === 'completed')).toBe(true);
    expect(pages.at(-1)?.next).toBeNull();
    // One page at a time: as many as asked, and the whole list in one page when it fits.
    expect(pages.length).toBe(Math.ceil(ids.length / 2));
    const whole = await allPages(manager, edge, 100);
    expect(whole.flatMap((page) => page.tasks.map((task) => task.id))).toEqual(ids);
    // The tasks come whole, with their history, as GET /api/tasks carries them.
    const listed = await call<{ tasks: Task[] }>(manager, 'GET', '/api/tasks');
    const first = whole[0]?.tasks[0];
    expect(first).toEqual(listed.body.tasks.find((task) => task.id === first?.id));
  });

  test('an employee reads only the older completed tasks assigned to or by them', async () => {
    const { manager, alice, bob } = people;
    const edge = daysAgo(30);
    const alices = await createTask(manager, alice, 'completed');
    const bobs = await createTask(manager, bob, 'completed');
    await changedAt(alices.id, daysAgo(45));
    await changedAt(bobs.id, daysAgo(45));

    const ids = (await allPages(alice, edge, 3)).flatMap((page) => page.tasks.map((task) => task.id));
    expect(ids).toContain(alices.id);
    expect(ids).not.toContain(bobs.id);
    const me = alice.user.id;
    expect(ids).toEqual(await expectedIds(edge, (row) => row.assignedTo === me || row.assignedBy === me));
    expect((await allPages(manager, edge, 100)).flatMap((page) => page.tasks.map((task) => task.id))).toEqual(
      expect.arrayContaining([alices.id, bobs.id]),
    );
  });

  test('refuses a call without a token and bad places with the error shape', async () => {
    const edge = daysAgo(30);
    expect((await call(null, 'GET', `/api/tasks?status=completed&before=${edge}`)).status).toBe(401);
    const { manager } = people;
    /** Refused with the spec's shape; `expected` is the message, or the field the details name. */
    const refused = async (query: string, expected: { message: string } | { field: string }) => {
      const res = await call<{ message: string; details?: { path: string }[] }>(manager, 'GET', `/api/tasks?${query}`);
      expectRefusal(res, 400, 'invalid_input', 'message' in expected ? expected.message : res.body.message);
      if ('field' in expected) expect(res.body.details?.map((detail) => detail.path)).toContain(expected.field);
    };
    const placeRule = { message: 'Use status=completed with before (and beforeId) to read older tasks, without page.' };
    await refused(`status=pending&before=${edge}`, {
      message: 'Only completed tasks are read by place (status=completed).',
    });
    await refused('status=completed&before=yesterday', { field: 'before' });
    await refused(`status=completed&before=${edge}&beforeId=not-an-id`, { field: 'beforeId' });
    await refused(`status=completed&beforeId=${people.alice.user.id}`, placeRule);
    await refused(`before=${edge}`, placeRule);
    await refused(`status=completed&page=2&before=${edge}`, placeRule);
    await refused(`status=completed&before=${edge}&limit=0`, { field: 'limit' });
    await refused(`status=completed&before=${edge}&limit=101`, { field: 'limit' });
  });
});
