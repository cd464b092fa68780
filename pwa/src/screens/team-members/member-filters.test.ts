import { describe, expect, test } from 'vitest';
import { emptyMembersText, filterMembers, memberCountText } from './member-filters';

const members = [
  { id: '1', name: 'Alice Johnson', email: 'alice@demo.local', role: 'employee' },
  { id: '2', name: 'Maya Manager', email: 'manager@demo.local', role: 'manager' },
  { id: '3', name: 'Adam Admin', email: 'admin@demo.local', role: 'admin' },
  { id: '4', name: 'Bob Smith', email: 'bob@demo.local', role: 'employee' },
];

describe('team members', () => {
  test('search matches name or email, in any case, ignoring surrounding spaces', () => {
    expect(filterMembers(members, '  ALICE ', 'all').map((m) => m.id)).toEqual(['1']);
    expect(filterMembers(members, 'manager@', 'all').map((m) => m.id)).toEqual(['2']);
    expect(filterMembers(members, 'demo.local', 'all')).toHaveLength(4);
    expect(filterMembers(members, 'nobody', 'all')).toEqual([]);
  });

  test('the role filter keeps one role, and combines with the search', () => {
    expect(filterMembers(members, '', 'employee').map((m) => m.id)).toEqual(['1', '4']);
    expect(filterMembers(members, '', 'admin').map((m) => m.id)).toEqual(['3']);
    expect(filterMembers(members, 'bob', 'manager')).toEqual([]);
    expect(filterMembers(members, '', 'all')).toHaveLength(4);
  });

  test('the empty text tells an empty directory from a search without matches', () => {
    expect(emptyMembersText(0)).toBe('No team members are available at the moment.');
    expect(emptyMembersText(5)).toBe('Try adjusting your search or filter criteria.');
  });

  test('the member count reads naturally', () => {
    expect(memberCountText(1)).toBe('1 member');
    expect(memberCountText(5)).toBe('5 members');
  });
});
