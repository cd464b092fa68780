import Dexie from 'dexie';
import { isOverdue } from '@office/sync-protocol';
import { displayStatus } from '../../components/tasks/task-display';
import type { LocalTask, WorkspaceDb } from '../../data/db';
import { readTaskWindow } from '../../sync/window';
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
 * Completed tasks older than the device's window (issue 46) are counted from the server's figure, not from rows.
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
  const window = await readTaskWindow(db);
  const [total, byStatus, overdueByStatus, recent, heldBefore] = await Promise.all([
    db.tasks.count(),
    Promise.all(statuses.map((status) => db.tasks.where('status').equals(status).count())),
    Promise.all(notDone.map((status) => overdueOf(status).count())),
    db.tasks.orderBy('updatedAt').reverse().limit(shown.recent).toArray(),
    // Completed tasks still held from before the window's edge (until evicted): the server's figure counts them.
    window.edge === null
      ? 0
      : db.tasks
          .where('[status+updatedAt]')
          .between(['completed', Dexie.minKey], ['completed', window.edge], true, false)
          .count(),
  ]);
  const before = (window.before?.completed ?? 0) - heldBefore;
  const counts: TaskCounts = {
    total: total + before,
    pending: 0,
    working: 0,
    completed: before,
    waiting: 0,
    overdue: 0,
  };
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
