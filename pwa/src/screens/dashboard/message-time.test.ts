import { describe, expect, test } from 'vitest';
import { formatDashboardMessageTime } from './message-time';

// Local dates, so the test reads the same in every time zone.
const now = new Date(2025, 4, 14, 15, 30);

describe('formatDashboardMessageTime', () => {
  test('a message from today shows its 24-hour time', () => {
    expect(formatDashboardMessageTime(new Date(2025, 4, 14, 9, 5), now)).toBe('09:05');
    expect(formatDashboardMessageTime(new Date(2025, 4, 14, 0, 0), now)).toBe('00:00');
    expect(formatDashboardMessageTime(new Date(2025, 4, 14, 21, 47), now)).toBe('21:47');
  });

  test('a message from the day before reads Yesterday', () => {
    expect(formatDashboardMessageTime(new Date(2025, 4, 13, 23, 59), now)).toBe('Yesterday');
    expect(formatDashboardMessageTime(new Date(2025, 4, 13, 0, 1), now)).toBe('Yesterday');
  });

  test('an older message shows its month and day', () => {
    expect(formatDashboardMessageTime(new Date(2025, 4, 12, 12, 0), now)).toBe('May 12');
    expect(formatDashboardMessageTime(new Date(2024, 11, 3, 8, 0), now)).toBe('Dec 3');
  });

  test('yesterday across a month boundary still reads Yesterday', () => {
    const firstOfJune = new Date(2025, 5, 1, 8, 0);
    expect(formatDashboardMessageTime(new Date(2025, 4, 31, 22, 0), firstOfJune)).toBe('Yesterday');
  });

  test('an ISO timestamp string is accepted', () => {
    const sent = new Date(2025, 4, 14, 7, 8);
    expect(formatDashboardMessageTime(sent.toISOString(), now)).toBe('07:08');
  });

  test('an unreadable timestamp shows nothing', () => {
    expect(formatDashboardMessageTime('not a date', now)).toBe('');
  });
});
