import { describe, expect, test } from 'vitest';
import type { LocalUser } from './db';
import { avatarOf, countOnline, countOnlineNow, isOnline, nameOf, presenceOf, whoIsWho } from './people';

const self = '01890000-0000-7000-8000-000000000001';
const other = '01890000-0000-7000-8000-000000000002';

describe('people', () => {
  test('a name and an avatar come from the directory by id, and from the row only for someone it does not know', () => {
    const people = new Map([[other, { id: other, name: 'Bob Renamed', avatar: null } as LocalUser]]);
    expect(nameOf(people, { id: other, name: 'Bob Smith' })).toBe('Bob Renamed');
    expect(nameOf(people, { id: self, name: 'Gone Person' })).toBe('Gone Person');
    expect(avatarOf(people, other, '/old.png')).toBeNull();
    expect(avatarOf(people, self, '/old.png')).toBe('/old.png');
  });

  test('beside a name stand the department and the email that tell two people of one name apart', () => {
    expect(whoIsWho({ department: 'Operations', email: 'manager@demo.local' })).toBe('Operations · manager@demo.local');
    expect(whoIsWho({ department: null, email: 'maya.two@example.com' })).toBe('maya.two@example.com');
    expect(whoIsWho({ department: '  ', email: '' })).toBe('');
  });

  test('online and away count as online, offline does not', () => {
    expect(isOnline('online')).toBe(true);
    expect(isOnline('away')).toBe(true);
    expect(isOnline('offline')).toBe(false);
  });

  test('a device without a connection shows its own person offline, and others as the server last said', () => {
    expect(presenceOf({ id: self, status: 'online' }, self, false)).toBe('offline');
    expect(presenceOf({ id: self, status: 'online' }, self, true)).toBe('online');
    expect(presenceOf({ id: other, status: 'away' }, self, false)).toBe('away');
    const everyone = [
      { id: self, status: 'online' as const },
      { id: other, status: 'away' as const },
    ];
    expect(countOnline(everyone, (person) => presenceOf(person, self, true))).toBe(2);
    expect(countOnline(everyone, (person) => presenceOf(person, self, false))).toBe(1);
  });

  test('Online Now counts the employees online, never the manager looking: the dashboard and Employees agree', () => {
    const manager = { id: self, role: 'manager' as const, status: 'online' as const };
    const employees = [
      { id: other, role: 'employee' as const, status: 'offline' as const },
      { id: '01890000-0000-7000-8000-000000000003', role: 'employee' as const, status: 'away' as const },
    ];
    const presence = (person: { id: string; status: 'online' | 'away' | 'offline' }) => presenceOf(person, self, true);
    // The dashboard counts from the whole directory, Employees from its list of employees: the same number.
    expect(countOnlineNow([manager, ...employees], presence)).toBe(1);
    expect(countOnlineNow(employees, presence)).toBe(1);
    expect(countOnline([manager, ...employees], presence)).toBe(2);
  });
});
