import { describe, expect, test } from 'vitest';
import { employeeSummarySchema, summarizeEmployees, type EmployeeSummary } from './employee';
import type { Role } from './user';
import type { TaskPriority, TaskStatus } from './task';

const today = '2030-06-15';
const id = (n: number) => `01890000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;

const person = (n: number, role: Role = 'employee', extra: Partial<EmployeeSummary['user']> = {}) => ({
  id: id(n),
  _id: id(n),
  name: `Person ${n}`,
  email: `p${n}@example.com`,
  role,
  department: null,
  avatar: null,
  status: 'offline' as const,
  lastSeen: null,
  createdAt: '2030-01-01T00:00:00.000Z',
  updatedAt: '2030-01-01T00:00:00.000Z',
  version: 1,
  ...extra,
});

let taskNumber = 1000;
const task = (
  assignee: string | null,
  status: TaskStatus,
  dueDate: string,
  updatedAt = `2030-06-01T00:00:${String(taskNumber % 60).padStart(2, '0')}.000Z`,
  priority: TaskPriority = 'medium',
) => {
  const n = ++taskNumber;
  return {
    id: id(n),
    title: `Task ${n}`,
    status,
    dueDate,
    priority,
    updatedAt,
    assignedTo: assignee === null ? null : { id: assignee },
  };
};

const one = (summaries: EmployeeSummary[], userId: string): EmployeeSummary => {
  const found = summaries.find((s) => s.user.id === userId);
  if (!found) throw new Error(`no summary for ${userId}`);
  return found;
};

describe('summarizeEmployees', () => {
  test('an employee without tasks or messages has zero counts, a rate of 0 and no recent tasks', () => {
    const [summary] = summarizeEmployees([person(1)], [], new Map(), today);
    expect(summary).toEqual({
      user: person(1),
      presence: 'offline',
      lastSeen: null,
      taskCounts: { total: 0, completed: 0, working: 0, pending: 0, waiting: 0, inProgress: 0, overdue: 0 },
      teamChatMessages: 0,
      completionRate: 0,
      recentTasks: [],
    });
    expect(employeeSummarySchema.safeParse(summary).success).toBe(true);
  });

  test('only employees get a card, in the order given; managers and admins are left out', () => {
    const people = [person(3), person(1, 'manager'), person(2), person(4, 'admin')];
    expect(summarizeEmployees(people, [], new Map(), today).map((s) => s.user.id)).toEqual([id(3), id(2)]);
  });

  test('counts each status (adding up to the total), in progress (not completed) and overdue (open and past due)', () => {
    const alice = person(1);
    const tasks = [
      task(alice.id, 'completed', '2030-06-01'), // past due but completed: not overdue
      task(alice.id, 'completed', '2030-07-01'),
      task(alice.id, 'working', '2030-06-14'), // overdue
      task(alice.id, 'working', '2030-06-20'),
      task(alice.id, 'pending', '2030-05-01'), // overdue
      task(alice.id, 'waiting', '2030-06-15'), // due today: not overdue
      task(alice.id, 'pending', '2030-06-16'),
    ];
    const [summary] = summarizeEmployees([alice], tasks, new Map(), today);
    expect(summary?.taskCounts).toEqual({
      total: 7,
      completed: 2,
      working: 2,
      pending: 2,
      waiting: 1,
      inProgress: 5,
      overdue: 2,
    });
    // 2 / 7 = 28.57 %: rounded, not cut.
    expect(summary?.completionRate).toBe(29);
  });

  test.each([
    [1, 3, 33],
    [2, 3, 67],
    [1, 8, 13], // 12.5 rounds up
    [5, 8, 63], // 62.5 rounds up
    [3, 3, 100],
    [0, 4, 0],
  ])('%i completed of %i gives a completion rate of %i', (completed, total, rate) => {
    const alice = person(1);
    const tasks = Array.from({ length: total }, (_, i) =>
      task(alice.id, i < completed ? 'completed' : 'pending', '2030-07-01'),
    );
    expect(summarizeEmployees([alice], tasks, new Map(), today)[0]?.completionRate).toBe(rate);
  });

  test('unassigned tasks and tasks of other people are ignored', () => {
    const alice = person(1);
    const bob = person(2);
    const tasks = [
      task(null, 'completed', '2030-01-01'),
      task(null, 'pending', '2030-01-01'),
      task(bob.id, 'pending', '2030-01-01'),
      task(alice.id, 'working', '2030-07-01'),
      task(id(99), 'completed', '2030-07-01'), // someone not in the directory
    ];
    const summaries = summarizeEmployees([alice, bob], tasks, new Map(), today);
    expect(one(summaries, alice.id).taskCounts).toEqual({
      total: 1,
      completed: 0,
      working: 1,
      pending: 0,
      waiting: 0,
      inProgress: 1,
      overdue: 0,
    });
    expect(one(summaries, alice.id).recentTasks.map((t) => t.id)).toEqual([tasks[3]?.id]);
    expect(one(summaries, bob.id).taskCounts).toEqual({
      total: 1,
      completed: 0,
      working: 0,
      pending: 1,
      waiting: 0,
      inProgress: 1,
      overdue: 1,
    });
  });

  test('recent tasks: at most 5, most recently updated first, with only the fields the detail shows', () => {
    const alice = person(1);
    const stamps = [
      '2030-06-10T08:00:00.000Z',
      '2030-06-12T08:00:00.000Z',
      '2030-06-09T08:00:00.000Z',
      '2030-06-14T08:00:00.000Z',
      '2030-06-11T08:00:00.000Z',
      '2030-06-13T08:00:00.000Z',
      '2030-06-08T08:00:00.000Z',
    ];
    const tasks = stamps.map((stamp, i) => task(alice.id, i % 2 ? 'working' : 'pending', '2030-07-01', stamp, 'high'));
    const [summary] = summarizeEmployees([alice], tasks, new Map(), today);
    const newestFirst = [...tasks].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt)).slice(0, 5);
    expect(summary?.recentTasks.map((t) => t.updatedAt)).toEqual([
      '2030-06-14T08:00:00.000Z',
      '2030-06-13T08:00:00.000Z',
      '2030-06-12T08:00:00.000Z',
      '2030-06-11T08:00:00.000Z',
      '2030-06-10T08:00:00.000Z',
    ]);
    expect(summary?.recentTasks).toEqual(
      newestFirst.map((t) => ({
        id: t.id,
        title: t.title,
        status: t.status,
        dueDate: t.dueDate,
        priority: 'high',
        updatedAt: t.updatedAt,
      })),
    );
    // The counts still cover every task, not only the recent five.
    expect(summary?.taskCounts.total).toBe(7);
  });

  test('the message count, presence and last seen come from the inputs', () => {
    const alice = person(1, 'employee', { status: 'online', lastSeen: '2030-06-15T09:00:00.000Z' });
    const bob = person(2, 'employee', { status: 'away', lastSeen: '2030-06-15T08:00:00.000Z' });
    const carol = person(3);
    const messages = new Map([
      [alice.id, 4],
      [bob.id, 1],
      [id(50), 9],
    ]);
    const summaries = summarizeEmployees([alice, bob, carol], [], messages, today);
    expect(summaries.map((s) => [s.presence, s.lastSeen, s.teamChatMessages])).toEqual([
      ['online', '2030-06-15T09:00:00.000Z', 4],
      ['away', '2030-06-15T08:00:00.000Z', 1],
      ['offline', null, 0],
    ]);
  });
});

describe('completed tasks a device does not hold (issue 46)', () => {
  test('count in the total, the completed tasks and the rate as if they were there', () => {
    const employee = person(1);
    const tasks = [task(employee.id, 'working', '2030-07-01'), task(employee.id, 'completed', '2030-06-01')];
    const [summary] = summarizeEmployees([employee], tasks, new Map(), today, new Map([[employee.id, 8]]));
    expect(summary?.taskCounts).toMatchObject({ total: 10, completed: 9, working: 1, inProgress: 1 });
    expect(summary?.completionRate).toBe(90);
  });
});
