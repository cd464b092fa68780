import { describe, expect, test } from 'vitest';
import { olderTasksPageSize, olderTasksQuery, completedNotHeld, notHeldAmong } from './older-tasks';
import type { TaskWindowState } from '../../data/db';

const edge = '2026-10-01T00:00:00.000Z';
const window: TaskWindowState = { edge, before: { completed: 270, byAssignee: {} }, stale: false };

describe('older completed tasks (issue 46)', () => {
  test('the device lacks what the server counted before its edge, less what it still holds there', () => {
    const alice = { _id: 'alice', id: 'alice', name: 'Alice' };
    const held = [
      { status: 'completed', updatedAt: '2026-09-01T00:00:00.000Z', assignedTo: alice },
      { status: 'completed', updatedAt: '2026-09-02T00:00:00.000Z', assignedTo: null },
      { status: 'completed', updatedAt: '2026-10-02T00:00:00.000Z', assignedTo: alice },
      { status: 'working', updatedAt: '2026-01-01T00:00:00.000Z', assignedTo: alice },
    ] as const;
    expect(completedNotHeld(held, window)).toBe(268);
    // One assignee's: what the server counted of theirs, less theirs held.
    const byAlice = { ...window, before: { completed: 270, byAssignee: { alice: 40 } } };
    expect(completedNotHeld(held, byAlice, 'alice')).toBe(39);
    expect(completedNotHeld(held, byAlice, 'bob')).toBe(0);
    expect(completedNotHeld(held, { ...window, edge: null })).toBe(0);
    expect(completedNotHeld(held, { ...window, before: null })).toBe(0);
  });

  test('a loaded task the device holds is left out (it shows as the device holds it)', () => {
    const loaded = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
    expect(notHeldAmong(loaded, [{ id: 'b' }]).map((task) => task.id)).toEqual(['a', 'c']);
  });

  test("the first page starts at the window's edge, the next where the last one said", () => {
    expect(Object.fromEntries(olderTasksQuery(edge, null))).toEqual({
      status: 'completed',
      limit: String(olderTasksPageSize),
      before: edge,
    });
    const next = { before: '2026-08-01T00:00:00.000Z', beforeId: '0190a0f0-0000-7000-8000-000000000000' };
    expect(Object.fromEntries(olderTasksQuery(edge, { tasks: [], next }))).toEqual({
      status: 'completed',
      limit: String(olderTasksPageSize),
      ...next,
    });
  });
});
