import { describe, expect, test } from 'vitest';
import { formatDueDate } from './dates';

describe('formatDueDate', () => {
  test('writes a due date as people read it, as every screen and notice does', () => {
    expect(formatDueDate('2026-11-27')).toBe('Nov 27, 2026');
    expect(formatDueDate('2030-01-05')).toBe('Jan 5, 2030');
    expect(formatDueDate('2028-12-31')).toBe('Dec 31, 2028');
  });

  test('leaves anything that is no due date as it is', () => {
    expect(formatDueDate('')).toBe('');
    expect(formatDueDate('2026-13-01')).toBe('2026-13-01');
    expect(formatDueDate('27/11/2026')).toBe('27/11/2026');
  });
});
