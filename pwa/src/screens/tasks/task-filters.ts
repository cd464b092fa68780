import { isOverdue, type TaskStatus } from '@office/sync-protocol';
import { statusLabels } from '../../components/tasks/task-display';

/** What the list is narrowed by: free text, one status ('' for all) and the overdue query. */
export interface TaskFilters {
  search: string;
  status: TaskStatus | '';
  overdueOnly: boolean;
}

interface FilterableTask {
  title: string;
  description: string;
  status: string;
  dueDate: string;
}

/** The tasks matching every active filter; search matches title or description, case-insensitive. */
export function filterTasks<T extends FilterableTask>(tasks: readonly T[], filters: TaskFilters, today: string): T[] {
  const needle = filters.search.trim().toLowerCase();
  return tasks.filter(
    (task) =>
      (needle === '' || task.title.toLowerCase().includes(needle) || task.description.toLowerCase().includes(needle)) &&
      (filters.status === '' || task.status === filters.status) &&
      (!filters.overdueOnly || isOverdue(task, today)),
  );
}

/** The second line of the empty state (spec section 2). */
export function emptyStateText(totalTasks: number, filters: TaskFilters): string {
  if (totalTasks === 0) return 'No tasks have been created yet.';
  if (filters.status !== '' && filters.search.trim() === '' && !filters.overdueOnly) {
    return `No tasks with status "${statusLabels[filters.status]}" found.`;
  }
  return 'No tasks match your current filters.';
}

/** How many task cards show at first, and how many more each step adds: thousands of cards would stall the page. */
export const taskPageSize = 60;

/** The button under a partly shown list: "Show more tasks (4,940 left)". */
export const showMoreTasksLabel = (remaining: number): string =>
  `Show more tasks (${remaining.toLocaleString('en-US')} left)`;
