import type { Role } from '@office/sync-protocol';

/** The role filter: every role, or one. */
export type RoleFilter = 'all' | Role;

export interface Member {
  id: string;
  name: string;
  email: string;
  role: string;
}

/** Members whose name or email contains the search (any case), of the chosen role. */
export function filterMembers<M extends Member>(members: readonly M[], search: string, role: RoleFilter): M[] {
  const needle = search.trim().toLowerCase();
  return members.filter(
    (member) =>
      (role === 'all' || member.role === role) &&
      (needle === '' || member.name.toLowerCase().includes(needle) || member.email.toLowerCase().includes(needle)),
  );
}

/** The empty state's line: the directory is empty, or nothing matches the search and filter. */
export const emptyMembersText = (total: number): string =>
  total === 0 ? 'No team members are available at the moment.' : 'Try adjusting your search or filter criteria.';

/** "1 member", "5 members". */
export const memberCountText = (count: number): string => `${count} ${count === 1 ? 'member' : 'members'}`;
