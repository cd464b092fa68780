import { and, asc, count, desc, eq, inArray, isNull, or, type SQL } from 'drizzle-orm';
import {
  isStaff,
  type Actor,
  type Comment,
  type StatusHistoryEntry,
  type Task,
  type UserRef,
} from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { taskComments, taskStatusHistory, tasks, users } from '../../db/schema';

export type TaskRow = typeof tasks.$inferSelect;

const CHUNK = 500;
const chunks = <T>(items: T[]): T[][] =>
  Array.from({ length: Math.ceil(items.length / CHUNK) }, (_, i) => items.slice(i * CHUNK, (i + 1) * CHUNK));

/** Names of every user, deactivated ones included: history keeps the names of people who left. */
function userRefs(db: Db | Tx): Map<string, UserRef> {
  const refs = new Map<string, UserRef>();
  for (const row of db.select({ id: users.id, name: users.name }).from(users).all()) {
    refs.set(row.id, { _id: row.id, id: row.id, name: row.name });
  }
  return refs;
}

/** Tasks with their comments and status history, oldest first, as the wire carries them. */
function toTasks(db: Db | Tx, rows: TaskRow[]): Task[] {
  if (rows.length === 0) return [];
  const refs = userRefs(db);
  const ref = (id: string): UserRef => refs.get(id) ?? { _id: id, id, name: 'Unknown' };
  const comments = new Map<string, Comment[]>();
  const history = new Map<string, StatusHistoryEntry[]>();
  for (const ids of chunks(rows.map((row) => row.id))) {
    for (const c of db
      .select()
      .from(taskComments)
      .where(inArray(taskComments.taskId, ids))
      .orderBy(asc(taskComments.createdAt))
      .all()) {
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
    const entries = db
      .select()
      .from(taskStatusHistory)
      .where(inArray(taskStatusHistory.taskId, ids))
      .orderBy(asc(taskStatusHistory.updatedAt), asc(taskStatusHistory.id))
      .all();
    for (const h of entries) {
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

const live = isNull(tasks.deletedAt);

/** The tasks with these ids that still exist. */
export function loadTasks(db: Db | Tx, ids: string[]): Task[] {
  const rows = chunks(ids).flatMap((part) =>
    db
      .select()
      .from(tasks)
      .where(and(live, inArray(tasks.id, part)))
      .all(),
  );
  return toTasks(db, rows);
}

/** The SQL condition of spec section 6: staff see all tasks, an employee those assigned to or by them. */
export function visibleTasksWhere(actor: Actor): SQL | undefined {
  return isStaff(actor) ? live : and(live, or(eq(tasks.assignedTo, actor.id), eq(tasks.assignedBy, actor.id)));
}

/** Every task `actor` may see, most recently updated first. */
export function listVisibleTasks(db: Db | Tx, actor: Actor): Task[] {
  const rows = db.select().from(tasks).where(visibleTasksWhere(actor)).orderBy(asc(tasks.createdAt)).all();
  // The order of the pages below: newest update first, ties by id (both compared as SQLite does, by code unit).
  const newestFirst = (a: Task, b: Task) =>
    a.updatedAt === b.updatedAt ? (a.id < b.id ? 1 : -1) : a.updatedAt < b.updatedAt ? 1 : -1;
  return toTasks(db, rows).sort(newestFirst);
}

/** One page of the tasks `actor` may see, most recently updated first, with how many there are in all. */
export function listVisibleTaskPage(
  db: Db | Tx,
  actor: Actor,
  { page, limit }: { page: number; limit: number },
): { tasks: Task[]; page: number; limit: number; total: number } {
  const where = visibleTasksWhere(actor);
  const rows = db
    .select()
    .from(tasks)
    .where(where)
    .orderBy(desc(tasks.updatedAt), desc(tasks.id))
    .limit(limit)
    .offset((page - 1) * limit)
    .all();
  const total = db.select({ n: count() }).from(tasks).where(where).get()?.n ?? 0;
  return { tasks: toTasks(db, rows), page, limit, total };
}

/** One live task row, for commands. */
export function findTaskRow(db: Db | Tx, id: string): TaskRow | undefined {
  return db
    .select()
    .from(tasks)
    .where(and(live, eq(tasks.id, id)))
    .get();
}

/** Who may see a task: managers, admins, its assignee and its assigner. */
export const taskAudience = (row: { assignedTo: string | null; assignedBy: string }): string[] => [
  'role:manager',
  'role:admin',
  `user:${row.assignedBy}`,
  ...(row.assignedTo ? [`user:${row.assignedTo}`] : []),
];
