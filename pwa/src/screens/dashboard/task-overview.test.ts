import { afterEach, describe, expect, test } from 'vitest';
import { isOverdue, type Task } from '@office/sync-protocol';
import type { LocalTask, WorkspaceDb } from '../../data/db';
import { freshDb } from '../../../test/sync-support';
import { readTaskOverview } from './task-overview';
import { countTasks } from './task-summary';

const today = '2026-11-28';
const shown = { overdue: 3, recent: 5 };
const id = (n: number): string => `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`;
const person = { _id: id(900_001), id: id(900_001), name: 'Maya Manager' };

const aTask = (n: number, status: string, dueDate: string, updatedAt: string): Task => ({
  _id: id(n),
  id: id(n),
  title: `Task ${n}`,
  description: '',
  assignedTo: person,
  assignedBy: person,
  priority: 'medium',
  // An unknown status (from a newer server) counts as pending, as countTasks counts it.
  status: status as Task['status'],
  dueDate,
  comments: [],
  statusHistory: [],
  statusVersion: 1,
  createdAt: '2026-11-01T00:00:00.000Z',
  updatedAt,
  version: 1,
});

/** What the dashboard showed when it read every task: the counts, and the rows in the updatedAt index's order. */
function readingEveryRow(tasks: Task[]) {
  const newestFirst = [...tasks].sort((a, b) =>
    a.updatedAt === b.updatedAt ? (a.id < b.id ? 1 : -1) : a.updatedAt < b.updatedAt ? 1 : -1,
  );
  return {
    counts: countTasks(tasks, today),
    overdue: newestFirst.filter((task) => isOverdue(task, today)).slice(0, shown.overdue),
    recent: newestFirst.slice(0, shown.recent),
  };
}

const ids = (rows: LocalTask[] | Task[]) => rows.map((row) => row.id);

let db: WorkspaceDb | null = null;
afterEach(() => {
  db?.close();
  db = null;
});

async function overviewOf(tasks: Task[]) {
  db = freshDb(id(900_001));
  await db.tasks.bulkPut(tasks);
  return readTaskOverview(db, today, shown);
}

describe('readTaskOverview', () => {
  test('gives the counts, the first overdue and the latest tasks that reading every task gave', async () => {
    const tasks = [
      aTask(1, 'pending', '2026-11-20', '2026-11-27T10:00:00.000Z'),
      aTask(2, 'working', '2026-11-27', '2026-11-27T12:00:00.000Z'),
      aTask(3, 'working', '2026-12-05', '2026-11-26T09:00:00.000Z'),
      // Completed late is not overdue.
      aTask(4, 'completed', '2026-11-01', '2026-11-28T08:00:00.000Z'),
      // Due today is not overdue yet.
      aTask(5, 'waiting', today, '2026-11-25T08:00:00.000Z'),
      aTask(6, 'waiting', '2026-10-01', '2026-11-24T08:00:00.000Z'),
      aTask(7, 'archived', '2026-11-02', '2026-11-27T12:00:00.000Z'),
      aTask(8, 'pending', '2027-01-01', '2026-11-28T09:00:00.000Z'),
    ];
    const overview = await overviewOf(tasks);
    const expected = readingEveryRow(tasks);

    expect(overview.counts).toEqual(expected.counts);
    expect(overview.counts).toEqual({ total: 8, pending: 3, working: 2, completed: 1, waiting: 2, overdue: 4 });
    expect(ids(overview.overdue)).toEqual(ids(expected.overdue));
    // Same change time: the higher id first, as the index read backwards gives them.
    expect(ids(overview.overdue)).toEqual([id(7), id(2), id(1)]);
    expect(ids(overview.recent)).toEqual(ids(expected.recent));
  });

  test('with hundreds overdue, the first ones are still the most recently changed', async () => {
    const tasks = Array.from({ length: 450 }, (_, at) =>
      aTask(
        at + 1,
        ['pending', 'working', 'waiting', 'completed'][at % 4] ?? 'pending',
        at % 3 === 0 ? '2026-12-31' : '2026-11-01',
        new Date(Date.UTC(2026, 10, 1) + at * 60_000).toISOString(),
      ),
    );
    const overview = await overviewOf(tasks);
    const expected = readingEveryRow(tasks);

    expect(overview.counts.overdue).toBeGreaterThan(200);
    expect(overview.counts).toEqual(expected.counts);
    expect(ids(overview.overdue)).toEqual(ids(expected.overdue));
    expect(ids(overview.recent)).toEqual(ids(expected.recent));
  });

  test('an empty device shows nothing overdue and no recent task', async () => {
    const overview = await overviewOf([]);
    expect(overview).toEqual({
      counts: { total: 0, pending: 0, working: 0, completed: 0, waiting: 0, overdue: 0 },
      overdue: [],
      recent: [],
    });
  });
});

describe('the dashboard with completed tasks off the device (issue 46)', () => {
  test('completed tasks before the window’s edge come from the server’s count, held or not', async () => {
    const tasks = [
      aTask(1, 'pending', '2026-11-01', '2026-11-20T00:00:00.000Z'),
      aTask(2, 'completed', '2026-11-01', '2026-11-20T00:00:00.000Z'),
      // Still held, though before the edge: counted by the server, not twice.
      aTask(3, 'completed', '2026-10-01', '2026-10-10T00:00:00.000Z'),
    ];
    db = freshDb(id(900_001));
    await db.tasks.bulkPut(tasks);
    await db.meta.put({
      key: 'taskWindow',
      value: { edge: '2026-10-29T00:00:00.000Z', before: { completed: 250, byAssignee: {} }, stale: false },
    });
    const { counts } = await readTaskOverview(db, today, shown);
    expect(counts).toMatchObject({ total: 1 + 1 + 250, completed: 1 + 250, pending: 1, overdue: 1 });
  });
});
