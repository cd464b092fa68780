import { taskStatuses, type TaskStatus } from '@office/sync-protocol';
import { displayStatus, statusLabels } from '../../components/tasks/task-display';

/** The status filter of My Tasks: every status, or one. */
export type StatusFilter = 'all' | TaskStatus;

/** Options of the status filter, in the spec's order. */
export const statusFilterOptions: readonly { value: StatusFilter; label: string }[] = [
  { value: 'all', label: 'All Status' },
  ...taskStatuses.map((status) => ({ value: status, label: statusLabels[status] })),
];

export const isStatusFilter = (value: string): value is StatusFilter =>
  value === 'all' || (taskStatuses as readonly string[]).includes(value);

interface FilterableTask {
  title: string;
  description: string;
  status: string;
  assignedTo: { id: string } | null;
}

/** The tasks assigned to `userId`, in the order given. */
export const tasksAssignedTo = <T extends FilterableTask>(tasks: readonly T[], userId: string): T[] =>
  tasks.filter((task) => task.assignedTo?.id === userId);

/**
 * Tasks whose title or description contains `search` (any case) and whose status matches the filter, plus the
 * tasks of `kept` (ids) whatever they hold now: a task the user just changed stays where they were looking.
 */
export function filterTasks<T extends FilterableTask & { id: string }>(
  tasks: readonly T[],
  search: string,
  status: StatusFilter,
  kept: ReadonlySet<string> = new Set(),
): T[] {
  const needle = search.trim().toLocaleLowerCase();
  return tasks.filter(
    (task) =>
      kept.has(task.id) ||
      ((status === 'all' || displayStatus(task.status) === status) &&
        (needle === '' ||
          task.title.toLocaleLowerCase().includes(needle) ||
          task.description.toLocaleLowerCase().includes(needle))),
  );
}

/**
 * The list's order while the screen is open: the rows of `previous` keep their places (a task updated just now
 * does not jump to the top of the newest-first order under the user's eyes), rows new to the list come first in
 * their given order, and rows that left are dropped. Returns `previous` itself when nothing was added or removed.
 */
export function keepOrder(previous: readonly string[], ids: readonly string[]): readonly string[] {
  const present = new Set(ids);
  const known = new Set(previous);
  const added = ids.filter((id) => !known.has(id));
  const stayed = previous.filter((id) => present.has(id));
  if (added.length === 0 && stayed.length === previous.length) return previous;
  return [...added, ...stayed];
}

/** `items` in the order of `order` (ids); items it does not hold come last, in their given order. */
export function inOrder<T extends { id: string }>(items: readonly T[], order: readonly string[]): T[] {
  const rank = new Map(order.map((id, index) => [id, index]));
  return [...items].sort((a, b) => (rank.get(a.id) ?? order.length) - (rank.get(b.id) ?? order.length));
}
