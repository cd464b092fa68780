import { describe, expect, test } from 'vitest';
import { dateSeparatorLabel, formatChatTime } from './message-format';

// Local dates, so the tests read the same in every time zone.
const now = new Date(2025, 4, 14, 15, 30);
const at = (...parts: [number, number, number, number, number]) => new Date(...parts).toISOString();

describe('formatChatTime', () => {
  test('a message from today shows its 12-hour time', () => {
    expect(formatChatTime(new Date(2025, 4, 14, 9, 5), now)).toBe('9:05 AM');
    expect(formatChatTime(new Date(2025, 4, 14, 0, 0), now)).toBe('12:00 AM');
    expect(formatChatTime(new Date(2025, 4, 14, 21, 47), now)).toBe('9:47 PM');
  });

  test('a message from the day before reads Yesterday with its time', () => {
    expect(formatChatTime(new Date(2025, 4, 13, 23, 59), now)).toBe('Yesterday 11:59 PM');
    expect(formatChatTime(new Date(2025, 4, 13, 0, 1), now)).toBe('Yesterday 12:01 AM');
  });

  test('an older message shows month, day and time', () => {
    expect(formatChatTime(new Date(2025, 4, 12, 12, 0), now)).toBe('May 12, 12:00 PM');
    expect(formatChatTime(new Date(2024, 11, 3, 8, 15), now)).toBe('Dec 3, 8:15 AM');
  });

  test('yesterday across a month boundary still reads Yesterday', () => {
    expect(formatChatTime(new Date(2025, 4, 31, 22, 0), new Date(2025, 5, 1, 8, 0))).toBe('Yesterday 10:00 PM');
  });

  test('an ISO timestamp string is accepted and an unreadable one shows nothing', () => {
    expect(formatChatTime(at(2025, 4, 14, 7, 8), now)).toBe('7:08 AM');
    expect(formatChatTime('not a date', now)).toBe('');
  });
});

describe('dateSeparatorLabel', () => {
  test('today and yesterday read as words', () => {
    expect(dateSeparatorLabel(new Date(2025, 4, 14, 0, 0), now)).toBe('Today');
    expect(dateSeparatorLabel(new Date(2025, 4, 13, 23, 59), now)).toBe('Yesterday');
  });

  test('older days show the full date', () => {
    expect(dateSeparatorLabel(new Date(2025, 4, 12, 10, 0), now)).toBe('May 12, 2025');
    expect(dateSeparatorLabel(new Date(2024, 0, 1, 10, 0), now)).toBe('January 1, 2024');
  });
});
