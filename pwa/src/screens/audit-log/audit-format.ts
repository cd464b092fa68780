import { auditActions, type AuditAction, type AuditRecord } from '@office/sync-protocol';
import { formatTimestamp } from '../tasks/task-format';

/** What each kind of record is called in the log and its filter. */
export const auditActionLabels: Record<AuditAction, string> = {
  sign_in: 'Signed in',
  sign_in_failed: 'Sign-in refused',
  sign_out: 'Signed out',
  password_changed: 'Password changed',
  password_reset: 'Password reset',
  password_chosen: 'New password chosen after a reset',
  employee_deactivated: 'Employee deleted',
  signup_policy_changed: 'Sign-up setting changed',
  invitation_created: 'Invitation created',
  invitation_revoked: 'Invitation withdrawn',
  invitation_accepted: 'Joined with an invitation',
};

/** The kind filter's choices, in the order the trail names them. */
export const auditKindOptions = auditActions.map((action) => ({ value: action, label: auditActionLabels[action] }));

const signupPolicyLabels: Record<string, string> = {
  open: 'Anyone with the link',
  domains: 'Listed email domains only',
  invite: 'Invited people only',
};

/** A record's details as label and value, in a reading order; ids and unknown keys are left out. */
export function auditDetails(record: AuditRecord): { label: string; value: string }[] {
  const { details } = record;
  const shown: { label: string; value: string }[] = [];
  const add = (label: string, value: string | undefined) => {
    if (value !== undefined && value !== '') shown.push({ label, value });
  };
  add('Email', details.email);
  add('Method', details.method);
  add('Reason', details.reason);
  add('Setting', details.policy === undefined ? undefined : (signupPolicyLabels[details.policy] ?? details.policy));
  add('Domains', details.domains);
  add('Invited by', details.invitedBy);
  add('Uses', details.maxUses);
  add('Expires', details.expiresAt === undefined ? undefined : formatTimestamp(details.expiresAt));
  add('Sessions ended', details.sessionsEnded);
  add('Tasks unassigned', details.tasksUnassigned);
  return shown;
}

/** Who acted, as the record names them; a refused sign-in was nobody signed in. */
export const auditActorText = (record: AuditRecord): string => record.actorName ?? 'Not signed in';

/**
 * The people the person filter offers: the directory's, then those the records shown name who are no longer in it (a
 * deleted employee), marked so, and the one chosen; each once, by id.
 */
export function auditPersonOptions(
  directory: readonly { id: string; name: string }[],
  records: readonly AuditRecord[],
  chosen: { id: string; name: string } | null,
): { id: string; name: string; label: string }[] {
  const options = directory.map(({ id, name }) => ({ id, name, label: name }));
  const listed = new Set(directory.map(({ id }) => id));
  const addFormer = (id: string | null, name: string | null) => {
    if (id === null || name === null || listed.has(id)) return;
    listed.add(id);
    options.push({ id, name, label: `${name} (no longer here)` });
  };
  if (chosen) addFormer(chosen.id, chosen.name);
  for (const record of records) {
    addFormer(record.actorId, record.actorName);
    addFormer(record.targetId, record.targetName);
  }
  return options;
}
