import type { PresenceStatus } from '@office/sync-protocol';
import { isOnline } from '../../data/people';

/** The status filter of Employee Management: everyone, the connected ones, or the rest. */
export type PresenceFilter = 'all' | 'online' | 'offline';

export const presenceFilterOptions: readonly { value: PresenceFilter; label: string }[] = [
  { value: 'all', label: 'All Status' },
  { value: 'online', label: 'Online' },
  { value: 'offline', label: 'Offline' },
];

export const isPresenceFilter = (value: string): value is PresenceFilter =>
  presenceFilterOptions.some((option) => option.value === value);

interface FilterableEmployee {
  user: { name: string; email: string; department: string | null };
  presence: PresenceStatus;
}

/** Employees whose name, email or department contains the search (any case), with the chosen presence. */
export function filterEmployees<E extends FilterableEmployee>(
  employees: readonly E[],
  search: string,
  status: PresenceFilter,
): E[] {
  const needle = search.trim().toLowerCase();
  return employees.filter(
    ({ user, presence }) =>
      (status === 'all' || (status === 'online') === isOnline(presence)) &&
      (needle === '' ||
        user.name.toLowerCase().includes(needle) ||
        user.email.toLowerCase().includes(needle) ||
        (user.department ?? '').toLowerCase().includes(needle)),
  );
}

/**
 * The empty state (spec section 2): "No employees available" when there are none at all, otherwise
 * "No employees found" with a line naming the search text that matched nothing.
 */
export function emptyEmployeesState(
  total: number,
  search: string,
  status: PresenceFilter,
): { title: string; text: string } {
  if (total === 0) return { title: 'No employees available', text: 'Employees appear here once they sign up.' };
  const needle = search.trim();
  const who = status === 'all' ? 'employees' : `${status} employees`;
  return {
    title: 'No employees found',
    text: needle === '' ? `There are no ${who} right now.` : `No ${who} match "${needle}".`,
  };
}

/** "Showing 2 of 9 employees" while filtering, otherwise "9 employees". */
export function employeeCountText(shown: number, total: number, filtering: boolean): string {
  const noun = total === 1 ? 'employee' : 'employees';
  return filtering ? `Showing ${shown} of ${total} ${noun}` : `${total} ${noun}`;
}
