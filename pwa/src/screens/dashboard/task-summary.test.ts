import { describe, expect, test } from 'vitest';
import { countTasks, dueLabel } from './task-summary';

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

describe('dueLabel', () => {
  test('an open task past its due date reads overdue', () => {
    expect(dueLabel({ status: 'working', dueDate: '2025-05-11' }, today)).toEqual({
      text: 'Overdue by 3 days',
      tone: 'overdue',
    });
  });

  test('due today and tomorrow read as soon', () => {
    expect(dueLabel({ status: 'pending', dueDate: today }, today)).toEqual({ text: 'Due today', tone: 'soon' });
    expect(dueLabel({ status: 'pending', dueDate: '2025-05-15' }, today)).toEqual({
      text: 'Due tomorrow',
      tone: 'soon',
    });
    expect(dueLabel({ status: 'pending', dueDate: '2025-05-20' }, today)).toEqual({
      text: 'Due in 6 days',
      tone: 'normal',
    });
  });

  test('a completed task past its due date is not called overdue', () => {
    expect(dueLabel({ status: 'completed', dueDate: '2025-05-12' }, today)).toEqual({
      text: 'Was due May 12',
      tone: 'normal',
    });
    expect(dueLabel({ status: 'completed', dueDate: '2025-05-20' }, today)).toEqual({
      text: 'Due in 6 days',
      tone: 'normal',
    });
  });
});
