import Dexie from 'dexie';
import { isOverdue } from '@office/sync-protocol';
import { displayStatus } from '../../components/tasks/task-display';
import type { LocalTask, WorkspaceDb } from '../../data/db';
import type { TaskCounts } from './task-summary';

/** What the dashboard shows of the tasks: the stat cards' counts, the first overdue tasks, the latest changed. */
export interface TaskOverview {
  counts: TaskCounts;
  /** The first overdue tasks, the most recently changed first. */
  overdue: LocalTask[];
  /** The most recently changed tasks. */
  recent: LocalTask[];
}

/** Up to this many overdue tasks are read by their index and sorted; more are found at the head of the change order. */
const FEW_OVERDUE = 200;

/** The order of the `updatedAt` index read backwards: the newest change first, ties by id, highest first. */
const newestFirst = (a: LocalTask, b: LocalTask): number =>
  a.updatedAt === b.updatedAt ? (a.id < b.id ? 1 : -1) : a.updatedAt < b.updatedAt ? 1 : -1;

/**
 * The dashboard's tasks, read by index: a manager's device holds every task of the organisation (5 000 in the
 * issue's), and reading them all was most of opening the installed app. The counts come from the `status` and
 * `[status+dueDate]` indexes; rows are read only for what is shown. The same figures as countTasks over every row.
 */
export async function readTaskOverview(
  db: WorkspaceDb,
  today: string,
  shown: { overdue: number; recent: number },
): Promise<TaskOverview> {
  const statuses = (await db.tasks.orderBy('status').uniqueKeys()).map(String);
  const notDone = statuses.filter((status) => status !== 'completed');
  // isOverdue: not completed and due before today (ISO dates compare as IndexedDB compares their keys).
  const overdueOf = (status: string) =>
    db.tasks.where('[status+dueDate]').between([status, Dexie.minKey], [status, today], true, false);
  const [total, byStatus, overdueByStatus, recent] = await Promise.all([
    db.tasks.count(),
    Promise.all(statuses.map((status) => db.tasks.where('status').equals(status).count())),
    Promise.all(notDone.map((status) => overdueOf(status).count())),
    db.tasks.orderBy('updatedAt').reverse().limit(shown.recent).toArray(),
  ]);
  const counts: TaskCounts = { total, pending: 0, working: 0, completed: 0, waiting: 0, overdue: 0 };
  statuses.forEach((status, at) => (counts[displayStatus(status)] += byStatus[at] ?? 0));
  counts.overdue = overdueByStatus.reduce((sum, count) => sum + count, 0);

  let overdue: LocalTask[] = [];
  if (counts.overdue > 0 && counts.overdue <= FEW_OVERDUE) {
    const rows = await Promise.all(notDone.map((status) => overdueOf(status).toArray()));
    overdue = rows.flat().sort(newestFirst).slice(0, shown.overdue);
  } else if (counts.overdue > FEW_OVERDUE) {
    // Many overdue: the newest changes hold the first few within a few rows.
    overdue = await db.tasks
      .orderBy('updatedAt')
      .reverse()
      .filter((task) => isOverdue(task, today))
      .limit(shown.overdue)
      .toArray();
  }
  return { counts, overdue, recent };
}
