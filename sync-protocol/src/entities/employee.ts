import { z } from 'zod';
import { idSchema } from '../ids';
import { completionRate, isOverdue } from '../dates';
import { presenceStatuses, userSchema } from './user';
import { taskPriorities, taskStatuses, type Task } from './task';

/** How many recent tasks the employee detail shows (spec section 9). */
export const employeeRecentTasksMax = 5;

/**
 * An employee's task counts. `completed`, `working`, `pending` and `waiting` count each status and add
 * up to `total`; `inProgress` is every task not yet completed (pending, working or waiting); `overdue`
 * the open ones past their due date.
 */
export const employeeTaskCountsSchema = z.object({
  total: z.number().int(),
  completed: z.number().int(),
  working: z.number().int(),
  pending: z.number().int(),
  waiting: z.number().int(),
  inProgress: z.number().int(),
  overdue: z.number().int(),
});
export type EmployeeTaskCounts = z.infer<typeof employeeTaskCountsSchema>;

/** A task as the employee detail lists it. */
export const employeeRecentTaskSchema = z.object({
  id: idSchema,
  title: z.string(),
  status: z.enum(taskStatuses),
  dueDate: z.string(),
  priority: z.enum(taskPriorities),
  updatedAt: z.string(),
});
export type EmployeeRecentTask = z.infer<typeof employeeRecentTaskSchema>;

/** One card of Employee Management (spec section 3, Employee statistics and Active user). */
export const employeeSummarySchema = z.object({
  user: userSchema,
  presence: z.enum(presenceStatuses),
  lastSeen: z.string().nullable(),
  taskCounts: employeeTaskCountsSchema,
  /** Messages the employee has sent in the team chat. */
  teamChatMessages: z.number().int(),
  /** Completed over total, rounded percent; 0 without tasks. */
  completionRate: z.number().int(),
  /** Up to 5 tasks assigned to the employee, most recently updated first. */
  recentTasks: z.array(employeeRecentTaskSchema).max(employeeRecentTasksMax),
});
export type EmployeeSummary = z.infer<typeof employeeSummarySchema>;

type SummaryUser = EmployeeSummary['user'];
type SummaryTask = Pick<Task, 'id' | 'title' | 'status' | 'dueDate' | 'priority' | 'updatedAt'> & {
  assignedTo: { id: string } | null;
};

/**
 * The cards of Employee Management from the directory, the tasks and the chat-message counts: the
 * server and the PWA (offline, from IndexedDB) compute them with this one function. A device holds the
 * completed tasks of its window only (issue 46): `completedElsewhere` counts, by assignee, those it does not.
 */
export function summarizeEmployees(
  people: readonly SummaryUser[],
  tasks: readonly SummaryTask[],
  chatMessagesByUser: ReadonlyMap<string, number>,
  today: string,
  completedElsewhere: ReadonlyMap<string, number> = new Map(),
): EmployeeSummary[] {
  const tasksByUser = new Map<string, SummaryTask[]>();
  for (const task of tasks) {
    if (!task.assignedTo) continue;
    const list = tasksByUser.get(task.assignedTo.id) ?? [];
    list.push(task);
    tasksByUser.set(task.assignedTo.id, list);
  }
  return people
    .filter((user) => user.role === 'employee')
    .map((user) => {
      const own = tasksByUser.get(user.id) ?? [];
      const elsewhere = completedElsewhere.get(user.id) ?? 0;
      const completed = own.filter((task) => task.status === 'completed').length + elsewhere;
      const total = own.length + elsewhere;
      const taskCounts: EmployeeTaskCounts = {
        total,
        completed,
        working: own.filter((task) => task.status === 'working').length,
        pending: own.filter((task) => task.status === 'pending').length,
        waiting: own.filter((task) => task.status === 'waiting').length,
        inProgress: total - completed,
        overdue: own.filter((task) => isOverdue(task, today)).length,
      };
      const recentTasks = [...own]
        .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
        .slice(0, employeeRecentTasksMax)
        .map(({ id, title, status, dueDate, priority, updatedAt }) => ({
          id,
          title,
          status,
          dueDate,
          priority,
          updatedAt,
        }));
      return {
        user,
        presence: user.status,
        lastSeen: user.lastSeen,
        taskCounts,
        teamChatMessages: chatMessagesByUser.get(user.id) ?? 0,
        completionRate: completionRate(completed, total),
        recentTasks,
      };
    });
}
