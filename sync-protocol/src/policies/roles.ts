import type { Role } from '../entities/user.ts';

/** Who is acting: enough to decide every policy. */
export interface Actor {
  id: string;
  role: Role;
}

/** Managers and admins see everything and manage tasks (spec section 6). */
export const isStaff = (actor: Actor): boolean => actor.role === 'manager' || actor.role === 'admin';
/** Only managers open Employee Management (spec section 6). */
export const canManageEmployees = (actor: Actor): boolean => actor.role === 'manager';
/** Only employees open My Tasks (spec section 6). */
export const canOpenMyTasks = (actor: Actor): boolean => actor.role === 'employee';
