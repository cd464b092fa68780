import { describe, expect, test } from 'vitest';
import { countTasks } from './task-summary';

const today = '2025-05-14';

describe('countTasks', () => {
  test('counts each status and the overdue tasks among them', () => {
    const counts = countTasks(
      [
        { status: 'pending', dueDate: '2025-05-10' },
        { status: 'working', dueDate: '2025-05-13' },
        { status: 'working', dueDate: '2025-05-20' },
        { status: 'completed', dueDate: '2025-05-01' },
        { status: 'waiting', dueDate: today },
      ],
      today,
    );
    expect(counts).toEqual({ total: 5, pending: 1, working: 2, completed: 1, waiting: 1, overdue: 2 });
  });

  test('an unknown status counts as pending', () => {
    expect(countTasks([{ status: 'archived', dueDate: '2025-06-01' }], today).pending).toBe(1);
  });

  test('no tasks count as zero everywhere', () => {
    expect(countTasks([], today)).toEqual({ total: 0, pending: 0, working: 0, completed: 0, waiting: 0, overdue: 0 });
  });
});
