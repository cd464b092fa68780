import { format, formatDistanceToNow } from 'date-fns';
import { isOverdue } from '@office/sync-protocol';
import { displayStatus } from '../../components/tasks/task-display';

/** Task counts of the stat cards; an unknown status counts as pending (spec section 4). */
export interface TaskCounts {
  total: number;
  pending: number;
  working: number;
  completed: number;
  waiting: number;
  overdue: number;
}

interface CountableTask {
  status: string;
  dueDate: string;
}

/** Counts tasks by status, plus the derived overdue count, as of `today` (YYYY-MM-DD). */
export function countTasks(tasks: readonly CountableTask[], today: string): TaskCounts {
  const counts: TaskCounts = { total: tasks.length, pending: 0, working: 0, completed: 0, waiting: 0, overdue: 0 };
  for (const task of tasks) {
    counts[displayStatus(task.status)] += 1;
    if (isOverdue(task, today)) counts.overdue += 1;
  }
  return counts;
}

/** "5 minutes ago"; a time a little ahead of this device's clock reads as just now, not "in 2 minutes". */
export function timeAgo(iso: string): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return 'some time ago';
  return formatDistanceToNow(Math.min(at, Date.now()), { addSuffix: true });
}

/** The full date and time of an ISO timestamp, for a tooltip; empty when unreadable. */
export function exactTime(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? '' : format(at, 'PPpp');
}
