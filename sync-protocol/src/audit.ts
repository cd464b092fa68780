import { z } from 'zod';
import { idSchema } from './ids';
import type { Actor } from './policies/roles';

/**
 * The administrative acts the audit trail records, one record per act. Sessions an act ends (a password changed or
 * reset, an employee deleted) are counted in its record's `details.sessionsEnded`.
 */
export const auditActions = [
  'sign_in',
  'sign_in_failed',
  'sign_out',
  'password_changed',
  'password_reset',
  'password_chosen',
  'employee_deactivated',
  'signup_policy_changed',
  'invitation_created',
  'invitation_revoked',
  'invitation_accepted',
] as const;
export type AuditAction = (typeof auditActions)[number];

/** One record of the audit trail: who did what to whom, when, and from which address. Never changed once written. */
export const auditRecordSchema = z.object({
  id: idSchema,
  at: z.string(),
  action: z.enum(auditActions),
  /** Who acted; null when nobody signed in did (a failed sign-in names the email tried in `details`). */
  actorId: idSchema.nullable(),
  actorName: z.string().nullable(),
  /** Whom it concerned, when someone other than the actor. */
  targetId: idSchema.nullable(),
  targetName: z.string().nullable(),
  /** The client's address as the server saw it (see TRUST_PROXY). */
  ip: z.string().nullable(),
  details: z.record(z.string(), z.string()),
});
export type AuditRecord = z.infer<typeof auditRecordSchema>;

/** Records a page of the audit log holds at most. */
export const auditPageMax = 200;

/** GET /api/audit: newest first, a page at a time (`before`: the id of the last record of the previous page). */
export const auditQuerySchema = z.object({
  person: idSchema.optional(),
  action: z.enum(auditActions).optional(),
  before: idSchema.optional(),
  limit: z.coerce.number().int().min(1).max(auditPageMax).default(50),
});
export type AuditQuery = z.infer<typeof auditQuerySchema>;

/** GET /api/audit's answer; `nextBefore` is null on the last page. */
export const auditPageSchema = z.object({
  records: z.array(auditRecordSchema),
  nextBefore: idSchema.nullable(),
});
export type AuditPage = z.infer<typeof auditPageSchema>;

/** Only admins read the audit trail. */
export const canReadAuditLog = (actor: Actor): boolean => actor.role === 'admin';
