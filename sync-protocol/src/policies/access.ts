import type { Role } from '../entities/user';
import { isStaff, type Actor } from './roles';

/** Managers and admins open Employee Management's Settings: the sign-up policy, invitations and password resets. */
export const canOpenWorkspaceSettings = (actor: Actor): boolean => isStaff(actor);
/** Only admins change who may join. */
export const canChangeSignupPolicy = (actor: Actor): boolean => actor.role === 'admin';
/** Only admins read the API reference (GET /api/openapi.json and the page at /api/docs). */
export const canReadApiReference = (actor: Actor): boolean => actor.role === 'admin';
/** Managers and admins create, list and withdraw invitations. */
export const canManageInvitations = (actor: Actor): boolean => isStaff(actor);

/**
 * Who may reset whose password to a one-time code: managers reset employees, admins anyone but themselves; nobody
 * resets their own this way (they change it in Settings with their current password).
 */
export function canResetPassword(actor: Actor, target: { id: string; role: Role }): boolean {
  if (actor.id === target.id) return false;
  if (actor.role === 'admin') return true;
  return actor.role === 'manager' && target.role === 'employee';
}
