import { describe, expect, test } from 'vitest';
import {
  emptyEmployeesState,
  employeeCountText,
  filterEmployees,
  isPresenceFilter,
  type PresenceFilter,
} from './employee-filters';

const person = (id: string, name: string, email: string, department: string | null, presence: string) => ({
  id,
  user: { name, email, department },
  presence: presence as 'online' | 'away' | 'offline',
});
const employees = [
  person('a', 'Alice Johnson', 'alice@demo.local', 'Finance', 'online'),
  person('b', 'Bob Smith', 'bob@demo.local', null, 'away'),
  person('c', 'Carol Davis', 'carol@demo.local', 'Design', 'offline'),
];
const ids = (search: string, status: PresenceFilter = 'all') =>
  filterEmployees(employees, search, status).map((employee) => employee.id);

describe('filterEmployees', () => {
  test('no search and all statuses keeps everyone in order', () => {
    expect(ids('')).toEqual(['a', 'b', 'c']);
  });

  test('search matches the name, the email or the department, ignoring case and surrounding spaces', () => {
    expect(ids('  alice ')).toEqual(['a']);
    expect(ids('BOB@DEMO')).toEqual(['b']);
    expect(ids('design')).toEqual(['c']);
  });

  test('a person without a department is matched by name and email only', () => {
    expect(ids('null')).toEqual([]);
  });

  test('online keeps the online and the away; offline keeps the rest', () => {
    expect(ids('', 'online')).toEqual(['a', 'b']);
    expect(ids('', 'offline')).toEqual(['c']);
  });

  test('search and status combine', () => {
    expect(ids('demo.local', 'offline')).toEqual(['c']);
    expect(ids('alice', 'offline')).toEqual([]);
  });
});

describe('isPresenceFilter', () => {
  test('accepts the three options only', () => {
    expect(['all', 'online', 'offline', 'away', ''].map(isPresenceFilter)).toEqual([true, true, true, false, false]);
  });
});

describe('emptyEmployeesState', () => {
  test('says none are available when there are no employees at all', () => {
    expect(emptyEmployeesState(0, 'xyz', 'online').title).toBe('No employees available');
  });

  test('names the search text that matched nothing', () => {
    expect(emptyEmployeesState(3, '  xyz ', 'all')).toEqual({
      title: 'No employees found',
      text: 'No employees match "xyz".',
    });
    expect(emptyEmployeesState(3, 'xyz', 'offline').text).toBe('No offline employees match "xyz".');
  });

  test('without a search it speaks of the status filter', () => {
    expect(emptyEmployeesState(3, '', 'online')).toEqual({
      title: 'No employees found',
      text: 'There are no online employees right now.',
    });
  });
});

describe('employeeCountText', () => {
  test('counts everyone, or what the filters leave of them', () => {
    expect(employeeCountText(1, 1, false)).toBe('1 employee');
    expect(employeeCountText(2, 9, true)).toBe('Showing 2 of 9 employees');
  });
});
