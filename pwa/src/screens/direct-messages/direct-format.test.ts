import { describe, expect, test } from 'vitest';
import {
  conversationCandidates,
  conversationPreview,
  filterConversations,
  formatConversationTime,
  matchesSearch,
  unreadLabel,
  userRoleText,
} from './direct-format';

// Local dates, so the tests read the same in every time zone. 14 May 2025 was a Wednesday.
const now = new Date(2025, 4, 14, 15, 30);
const at = (...parts: [number, number, number, number, number]) => new Date(...parts).toISOString();

const message = (text: string, senderId = 'bob', names: string[] = []) => ({
  text,
  sender: { id: senderId },
  attachments: names.map((originalName) => ({ originalName })),
});

describe('conversationPreview', () => {
  test('the text of the last message, on one line', () => {
    expect(conversationPreview(message('Lunch at\n  noon?'), 'alice')).toBe('Lunch at noon?');
  });

  test('one’s own last message starts with "You: "', () => {
    expect(conversationPreview(message('On my way', 'alice'), 'alice')).toBe('You: On my way');
  });

  test('a message of one file without text shows the file’s name; of several, "Shared files"', () => {
    expect(conversationPreview(message('  ', 'bob', ['minutes.pdf']), 'alice')).toBe('minutes.pdf');
    expect(conversationPreview(message('', 'bob', ['a.png', 'b.png']), 'alice')).toBe('Shared files');
    expect(conversationPreview(message('', 'alice', ['a.png', 'b.png']), 'alice')).toBe('You: Shared files');
  });

  test('a text with files shows the text', () => {
    expect(conversationPreview(message('The slides', 'bob', ['deck.pdf']), 'alice')).toBe('The slides');
  });

  test('no last message reads "No messages yet"', () => {
    expect(conversationPreview(null, 'alice')).toBe('No messages yet');
  });
});

describe('formatConversationTime', () => {
  test('under a minute ago, and a time ahead of the clock, read "Just now"', () => {
    expect(formatConversationTime(new Date(now.getTime() - 30_000).toISOString(), now)).toBe('Just now');
    expect(formatConversationTime(new Date(now.getTime() + 30_000).toISOString(), now)).toBe('Just now');
  });

  test('under an hour ago reads in minutes', () => {
    expect(formatConversationTime(at(2025, 4, 14, 15, 29), now)).toBe('1m');
    expect(formatConversationTime(at(2025, 4, 14, 15, 25), now)).toBe('5m');
    expect(formatConversationTime(at(2025, 4, 14, 14, 31), now)).toBe('59m');
  });

  test('earlier today reads the time', () => {
    expect(formatConversationTime(at(2025, 4, 14, 9, 5), now)).toBe('9:05 AM');
  });

  test('yesterday, then weekdays for the past week, then dates', () => {
    expect(formatConversationTime(at(2025, 4, 13, 23, 50), now)).toBe('Yesterday');
    expect(formatConversationTime(at(2025, 4, 11, 10, 0), now)).toBe('Sun');
    expect(formatConversationTime(at(2025, 4, 7, 10, 0), now)).toBe('May 7');
    expect(formatConversationTime(at(2024, 11, 31, 10, 0), now)).toBe('Dec 31, 2024');
  });

  test('no time, or an unreadable one, reads nothing', () => {
    expect(formatConversationTime(null, now)).toBe('');
    expect(formatConversationTime('not a date', now)).toBe('');
  });
});

describe('searching', () => {
  test('matches any value, ignoring case and surrounding spaces; a blank search matches all', () => {
    expect(matchesSearch('  BOB ', 'Bob Smith')).toBe(true);
    expect(matchesSearch('carol', 'Bob Smith', 'bob@demo.local', null)).toBe(false);
    expect(matchesSearch('   ', 'anything')).toBe(true);
  });

  test('conversations are filtered by the other participant’s name, keeping their order', () => {
    const list = [
      { other: { name: 'Maya Manager' } },
      { other: { name: 'Bob Smith' } },
      { other: { name: 'Amy Bobbins' } },
    ];
    expect(filterConversations(list, 'bob').map((item) => item.other.name)).toEqual(['Bob Smith', 'Amy Bobbins']);
    expect(filterConversations(list, '')).toBe(list);
    expect(filterConversations(list, 'zed')).toEqual([]);
  });

  test('candidates for a new conversation: everyone but oneself, by name or email, sorted by name', () => {
    const users = [
      { id: 'c', name: 'carol Davis', email: 'carol@demo.local' },
      { id: 'a', name: 'Alice Johnson', email: 'alice@demo.local' },
      { id: 'b', name: 'Bob Smith', email: 'bob@demo.local' },
    ];
    expect(conversationCandidates(users, 'a', '').map((user) => user.id)).toEqual(['b', 'c']);
    expect(conversationCandidates(users, 'a', 'BOB@').map((user) => user.id)).toEqual(['b']);
    expect(conversationCandidates(users, 'a', 'alice')).toEqual([]);
  });
});

describe('labels', () => {
  test('a role reads capitalised, and "Team Member" when there is none', () => {
    expect(userRoleText('manager')).toBe('Manager');
    expect(userRoleText('')).toBe('Team Member');
    expect(userRoleText(null)).toBe('Team Member');
  });

  test('the unread badge says how many, in the singular for one', () => {
    expect(unreadLabel(1)).toBe('1 unread message');
    expect(unreadLabel(3)).toBe('3 unread messages');
  });
});
