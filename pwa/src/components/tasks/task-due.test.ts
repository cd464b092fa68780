import { describe, expect, test } from 'vitest';
import { completedAt, dueLabel } from './task-due';

const today = '2025-05-14';
const now = Date.parse('2025-05-14T12:00:00Z');
const open = (status: string, dueDate: string) => ({ status, dueDate, updatedAt: '2025-05-01T09:00:00Z' });

describe('dueLabel', () => {
  test('an open task past its due date reads overdue', () => {
    expect(dueLabel(open('working', '2025-05-11'), today, now)).toMatchObject({
      text: 'Overdue by 3 days',
      tone: 'overdue',
      title: 'Due May 11, 2025',
    });
  });

  test('due today and tomorrow read as soon, later as normal', () => {
    expect(dueLabel(open('pending', today), today, now)).toMatchObject({ text: 'Due today', tone: 'soon' });
    expect(dueLabel(open('waiting', '2025-05-15'), today, now)).toMatchObject({ text: 'Due tomorrow', tone: 'soon' });
    expect(dueLabel(open('pending', '2025-05-20'), today, now)).toMatchObject({
      text: 'Due in 6 days',
      tone: 'normal',
    });
  });

  test('a completed task reads when it was completed, never overdue or due', () => {
    for (const dueDate of ['2025-05-01', today, '2025-05-20']) {
      const label = dueLabel(
        {
          status: 'completed',
          dueDate,
          updatedAt: '2025-05-14T11:00:00Z',
          statusHistory: [
            { status: 'completed', updatedAt: '2025-05-12T12:00:00Z', superseded: false },
            { status: 'working', updatedAt: '2025-05-13T12:00:00Z', superseded: true },
          ],
        },
        today,
        now,
      );
      expect(label.text).toBe('Completed 2 days ago');
      expect(label.tone).toBe('done');
      expect(label.text).not.toMatch(/Overdue|Due/);
    }
  });
});

describe('completedAt', () => {
  test('is the latest completion that took effect, or the last update without a history', () => {
    const history = [
      { status: 'completed', updatedAt: '2025-05-10T00:00:00Z', superseded: false },
      { status: 'working', updatedAt: '2025-05-11T00:00:00Z', superseded: false },
      { status: 'completed', updatedAt: '2025-05-12T00:00:00Z', superseded: false },
      { status: 'completed', updatedAt: '2025-05-13T00:00:00Z', superseded: true },
    ];
    expect(completedAt({ ...open('completed', today), statusHistory: history })).toBe('2025-05-12T00:00:00Z');
    expect(completedAt(open('completed', today))).toBe('2025-05-01T09:00:00Z');
  });
});
