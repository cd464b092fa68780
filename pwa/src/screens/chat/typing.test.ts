import { describe, expect, test } from 'vitest';
import { addTypingEntry, expireTypingEntries, removeTypingEntry, typingExpiryMs, typingText } from './typing';

const alice = { userId: 'alice', userName: 'Alice Johnson' };
const bob = { userId: 'bob', userName: 'Bob Smith' };

describe('typing entries', () => {
  test('user-typing adds an entry and a repeat refreshes it in place', () => {
    const first = addTypingEntry([], alice, 1_000, 'me');
    expect(first).toEqual([{ ...alice, at: 1_000 }]);
    const both = addTypingEntry(first, bob, 1_500, 'me');
    const refreshed = addTypingEntry(both, alice, 3_000, 'me');
    expect(refreshed).toEqual([
      { ...alice, at: 3_000 },
      { ...bob, at: 1_500 },
    ]);
  });

  test('the viewer’s own typing is never stored', () => {
    const entries = addTypingEntry([], alice, 1_000, 'alice');
    expect(entries).toEqual([]);
  });

  test('stop-typing removes the entry; an unknown user changes nothing', () => {
    const entries = addTypingEntry(addTypingEntry([], alice, 1_000, 'me'), bob, 1_000, 'me');
    expect(removeTypingEntry(entries, 'alice')).toEqual([{ ...bob, at: 1_000 }]);
    expect(removeTypingEntry(entries, 'carol')).toBe(entries);
  });

  test('an entry expires 5 seconds after its last refresh', () => {
    expect(typingExpiryMs).toBe(5_000);
    const entries = addTypingEntry(addTypingEntry([], alice, 1_000, 'me'), bob, 4_000, 'me');
    expect(expireTypingEntries(entries, 5_999)).toBe(entries);
    expect(expireTypingEntries(entries, 6_000)).toEqual([{ ...bob, at: 4_000 }]);
    expect(expireTypingEntries(entries, 9_000)).toEqual([]);
  });

  test('a refresh keeps an entry alive past the first 5 seconds', () => {
    const refreshed = addTypingEntry(addTypingEntry([], alice, 1_000, 'me'), alice, 5_000, 'me');
    expect(expireTypingEntries(refreshed, 8_000)).toBe(refreshed);
  });
});

describe('typingText', () => {
  test('names who is typing', () => {
    expect(typingText([])).toBeNull();
    expect(typingText(['Alice Johnson'])).toBe('Alice Johnson is typing...');
    expect(typingText(['Alice Johnson', 'Bob Smith'])).toBe('Alice Johnson and Bob Smith are typing...');
    expect(typingText(['Alice Johnson', 'Bob Smith', 'Carol White'])).toBe('Alice Johnson and 2 others are typing...');
  });
});
