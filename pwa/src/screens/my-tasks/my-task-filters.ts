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

/** Tasks whose title or description contains `search` (any case) and whose status matches the filter. */
export function filterTasks<T extends FilterableTask>(tasks: readonly T[], search: string, status: StatusFilter): T[] {
  const needle = search.trim().toLocaleLowerCase();
  return tasks.filter(
    (task) =>
      (status === 'all' || displayStatus(task.status) === status) &&
      (needle === '' ||
        task.title.toLocaleLowerCase().includes(needle) ||
        task.description.toLocaleLowerCase().includes(needle)),
  );
}
