import type { Actor } from './roles';
import { isStaff } from './roles';

/** The parties of a task, enough to decide who may do what. */
export interface TaskParties {
  assignedTo: { id: string } | null;
  assignedBy: { id: string };
}

/** Managers and admins see every task; an employee sees tasks assigned to or by them (spec section 6). */
export const canSeeTask = (actor: Actor, task: TaskParties): boolean =>
  isStaff(actor) || task.assignedTo?.id === actor.id || task.assignedBy.id === actor.id;
/** Only managers and admins create, edit and delete tasks. */
export const canManageTasks = (actor: Actor): boolean => isStaff(actor);
/** The assignee, managers and admins change a task's status. */
export const canChangeTaskStatus = (actor: Actor, task: TaskParties): boolean =>
  isStaff(actor) || task.assignedTo?.id === actor.id;
/** Whoever sees a task may comment on it. */
export const canCommentOnTask = canSeeTask;
/** What a `task.edit` changes: fields other than the status, the status, or both. */
export interface TaskEdit {
  fields: boolean;
  status: boolean;
}
/** Managers and admins edit a task; its assignee may change the status only. */
export const canEditTask = (actor: Actor, task: TaskParties, edit: TaskEdit): boolean =>
  (!edit.fields || canManageTasks(actor)) && (!edit.status || canChangeTaskStatus(actor, task));
