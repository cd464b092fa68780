import { and, asc, count, desc, eq, gt, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import {
  isStaff,
  type Actor,
  type Comment,
  type OlderTasksPage,
  type StatusHistoryEntry,
  type Task,
  type UserRef,
} from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { idsParam, inIdsParam, prepared } from '../../db/prepared';
import { taskComments, taskStatusHistory, tasks, users } from '../../db/schema';

export type TaskRow = typeof tasks.$inferSelect;

/** Tasks not deleted. */
const live = isNull(tasks.deletedAt);

/**
 * Statements prepared once per connection (a transaction shares its connection's): building and preparing them
 * on every call was a third of a task page read, and most of a task command's time.
 */
const detailReads = (db: Db | Tx) =>
  prepared(db, 'tasks.detailReads', (handle) => ({
    liveRows: handle
      .select()
      .from(tasks)
      .where(and(live, inIdsParam(tasks.id)))
      .prepare(),
    liveRow: handle
      .select()
      .from(tasks)
      .where(and(live, eq(tasks.id, sql.placeholder('id'))))
      .prepare(),
    // Only the people a read names, never the whole directory: the cost of a task stays the same at any size.
    userRefs: handle.select({ id: users.id, name: users.name }).from(users).where(inIdsParam(users.id)).prepare(),
    comments: handle
      .select()
      .from(taskComments)
      .where(inIdsParam(taskComments.taskId))
      .orderBy(asc(taskComments.createdAt))
      .prepare(),
    history: handle
      .select()
      .from(taskStatusHistory)
      .where(inIdsParam(taskStatusHistory.taskId))
      .orderBy(asc(taskStatusHistory.updatedAt), asc(taskStatusHistory.id))
      .prepare(),
  }));

/** A page of the visible tasks and their count, for staff (all tasks) and for an employee (`me`'s). */
const pageReads = (db: Db | Tx) =>
  prepared(db, 'tasks.pageReads', (handle) => {
    const employeeSees = visibleTo(false, sql.placeholder('me'));
    const page = (where: SQL | undefined) =>
      handle
        .select()
        .from(tasks)
        .where(where)
        .orderBy(desc(tasks.updatedAt), desc(tasks.id))
        .limit(sql.placeholder('limit'))
        .offset(sql.placeholder('offset'))
        .prepare();
    const total = (where: SQL | undefined) => handle.select({ n: count() }).from(tasks).where(where).prepare();
    return {
      staffPage: page(visibleTo(true, '')),
      staffTotal: total(visibleTo(true, '')),
      employeePage: page(employeeSees),
      employeeTotal: total(employeeSees),
    };
  });

/** Tasks with their comments and status history, oldest first, as the wire carries them. */
async function toTasks(db: Db | Tx, rows: TaskRow[]): Promise<Task[]> {
  if (rows.length === 0) return [];
  const reads = detailReads(db);
  const ids = idsParam(rows.map((row) => row.id));
  const commentRows = await reads.comments.execute(ids);
  const historyRows = await reads.history.execute(ids);
  // Names of the people named, deactivated ones included: history keeps the names of people who left.
  const named = new Set<string>();
  for (const row of rows) {
    named.add(row.assignedBy);
    if (row.assignedTo) named.add(row.assignedTo);
  }
  for (const c of commentRows) named.add(c.userId);
  for (const h of historyRows) named.add(h.updatedBy);
  const refs = new Map<string, UserRef>();
  for (const user of await reads.userRefs.execute(idsParam(named)))
    refs.set(user.id, { _id: user.id, id: user.id, name: user.name });
  const ref = (id: string): UserRef => refs.get(id) ?? { _id: id, id, name: 'Unknown' };
  const comments = new Map<string, Comment[]>();
  const history = new Map<string, StatusHistoryEntry[]>();
  for (const c of commentRows) {
    const list = comments.get(c.taskId) ?? [];
    list.push({
      _id: c.id,
      id: c.id,
      userId: c.userId,
      userName: ref(c.userId).name,
      text: c.text,
      createdAt: c.createdAt,
    });
    comments.set(c.taskId, list);
  }
  for (const h of historyRows) {
    const list = history.get(h.taskId) ?? [];
    list.push({
      _id: h.id,
      id: h.id,
      status: h.status,
      updatedBy: ref(h.updatedBy),
      updatedAt: h.updatedAt,
      note: h.note,
      superseded: h.superseded,
    });
    history.set(h.taskId, list);
  }
  return rows.map((row) => ({
    _id: row.id,
    id: row.id,
    title: row.title,
    description: row.description,
    assignedTo: row.assignedTo ? ref(row.assignedTo) : null,
    assignedBy: ref(row.assignedBy),
    priority: row.priority,
    status: row.status,
    dueDate: row.dueDate,
    comments: comments.get(row.id) ?? [],
    statusHistory: history.get(row.id) ?? [],
    statusVersion: row.statusVersion,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    version: row.version,
  }));
}

/** The tasks with these ids that still exist. */
export async function loadTasks(db: Db | Tx, ids: string[]): Promise<Task[]> {
  return toTasks(db, await detailReads(db).liveRows.execute(idsParam(ids)));
}

/** The SQL condition of spec section 6: staff see all tasks, an employee those assigned to or by them. */
export function visibleTasksWhere(actor: Actor): SQL | undefined {
  return visibleTo(isStaff(actor), actor.id);
}

/** The same condition with the employee's id given, or left as a placeholder of a prepared statement. */
function visibleTo(staff: boolean, me: string | ReturnType<typeof sql.placeholder>): SQL | undefined {
  return staff ? live : and(live, or(eq(tasks.assignedTo, me), eq(tasks.assignedBy, me)));
}

/** Every task `actor` may see, most recently updated first. */
export async function listVisibleTasks(db: Db | Tx, actor: Actor): Promise<Task[]> {
  const rows = await db.select().from(tasks).where(visibleTasksWhere(actor)).orderBy(asc(tasks.createdAt));
  // The order of the pages below: newest update first, ties by id (both compared as SQLite does, by code unit).
  const newestFirst = (a: Task, b: Task) =>
    a.updatedAt === b.updatedAt ? (a.id < b.id ? 1 : -1) : a.updatedAt < b.updatedAt ? 1 : -1;
  return (await toTasks(db, rows)).sort(newestFirst);
}

/** One page of the tasks `actor` may see, most recently updated first, with how many there are in all. */
export async function listVisibleTaskPage(
  db: Db | Tx,
  actor: Actor,
  { page, limit }: { page: number; limit: number },
): Promise<{ tasks: Task[]; page: number; limit: number; total: number }> {
  const reads = pageReads(db);
  const window = { limit, offset: (page - 1) * limit, me: actor.id };
  const staff = isStaff(actor);
  const rows = await (staff ? reads.staffPage : reads.employeePage).execute(window);
  const [counted] = await (staff ? reads.staffTotal : reads.employeeTotal).execute(window);
  return { tasks: await toTasks(db, rows), page, limit, total: counted?.n ?? 0 };
}

// As the partial index tasks_completed states it (see snapshot.ts), so the read walks that index.
const completedTask = sql`${tasks.status} = 'completed'`;

/**
 * A page of the completed tasks `actor` may see that were last changed before a place (issue 46: older than a
 * device's window), newest first, ties by id. The place is a time (everything before it) or, for the pages after
 * the first, a task's time and id (everything after it in this order), so pages chain without gaps or repeats.
 */
export async function listOlderCompletedTasks(
  db: Db | Tx,
  actor: Actor,
  { before, beforeId, limit }: { before?: string | undefined; beforeId?: string | undefined; limit: number },
): Promise<OlderTasksPage> {
  const place =
    before === undefined
      ? undefined
      : beforeId === undefined
        ? lt(tasks.updatedAt, before)
        : or(lt(tasks.updatedAt, before), and(eq(tasks.updatedAt, before), lt(tasks.id, beforeId)));
  const rows = await db
    .select()
    .from(tasks)
    // Bounded below too, so SQLite reads a range of tasks_completed (as window-counts.ts counts them).
    .where(and(visibleTasksWhere(actor), completedTask, gt(tasks.updatedAt, ''), place))
    .orderBy(desc(tasks.updatedAt), desc(tasks.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    tasks: await toTasks(db, page),
    next: rows.length > limit && last ? { before: last.updatedAt, beforeId: last.id } : null,
  };
}

/** One live task row, for commands. */
export async function findTaskRow(db: Db | Tx, id: string): Promise<TaskRow | undefined> {
  const [row] = await detailReads(db).liveRow.execute({ id });
  return row;
}

/** Who may see a task: managers, admins, its assignee and its assigner. */
export const taskAudience = (row: { assignedTo: string | null; assignedBy: string }): string[] => [
  'role:manager',
  'role:admin',
  `user:${row.assignedBy}`,
  ...(row.assignedTo ? [`user:${row.assignedTo}`] : []),
];
