import { describe, expect, test } from 'vitest';
import { chatSearchMatcher, groupMessagesByDate, orderMembers, presenceLabel } from './chat-format';
import { roleLabel } from '../../components/role-badge';

// Local dates, so the tests read the same in every time zone.
const now = new Date(2025, 4, 14, 15, 30);
const at = (...parts: [number, number, number, number, number]) => new Date(...parts).toISOString();

describe('groupMessagesByDate', () => {
  const message = (id: string, timestamp: string) => ({ id, text: id, userName: 'Alice Johnson', timestamp });

  test('messages are split into runs of the same local day, each under its label', () => {
    const groups = groupMessagesByDate(
      [
        message('a', at(2025, 4, 12, 9, 0)),
        message('b', at(2025, 4, 12, 18, 0)),
        message('c', at(2025, 4, 13, 23, 59)),
        message('d', at(2025, 4, 14, 0, 0)),
        message('e', at(2025, 4, 14, 15, 0)),
      ],
      now,
    );
    expect(groups.map((group) => [group.key, group.label, group.messages.map((item) => item.id)])).toEqual([
      ['2025-05-12', 'May 12, 2025', ['a', 'b']],
      ['2025-05-13', 'Yesterday', ['c']],
      ['2025-05-14', 'Today', ['d', 'e']],
    ]);
  });

  test('no messages give no groups', () => {
    expect(groupMessagesByDate([], now)).toEqual([]);
  });
});

describe('chatSearchMatcher', () => {
  const messages = [
    { id: '1', text: 'Standup at ten', userName: 'Alice Johnson', timestamp: at(2025, 4, 14, 9, 0) },
    { id: '2', text: 'Numbers are in', userName: 'Bob Smith', timestamp: at(2025, 4, 14, 9, 5) },
  ];
  const idsMatching = (search: string): string[] => {
    const matches = chatSearchMatcher(search);
    return matches ? messages.filter(matches).map((item) => item.id) : [];
  };

  test('a blank search matches without a filter', () => {
    expect(chatSearchMatcher('   ')).toBeNull();
  });

  test('the search matches the text or the author, ignoring case', () => {
    expect(idsMatching('STANDUP')).toEqual(['1']);
    expect(idsMatching('bob')).toEqual(['2']);
    expect(idsMatching('nobody')).toEqual([]);
  });
});

describe('the members panel', () => {
  const users = [
    { id: 'c', name: 'Carol', status: 'offline' },
    { id: 'me', name: 'Zed', status: 'online' },
    { id: 'b', name: 'bob', status: 'away' },
    { id: 'a', name: 'Alice', status: 'online' },
    { id: 'd', name: 'Dave', status: 'online' },
  ];

  test('the current user comes first, then others online, away, offline, each by name', () => {
    expect(orderMembers(users, 'me').map((user) => user.id)).toEqual(['me', 'a', 'd', 'b', 'c']);
  });

  test('presence and role read with a capital first letter', () => {
    expect(presenceLabel('online')).toBe('Online');
    expect(presenceLabel('away')).toBe('Away');
    expect(presenceLabel('offline')).toBe('Offline');
    expect(roleLabel('manager')).toBe('Manager');
    expect(roleLabel('admin')).toBe('Admin');
  });
});
