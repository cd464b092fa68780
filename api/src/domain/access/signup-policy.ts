import { eq } from 'drizzle-orm';
import {
  accessTexts,
  canChangeSignupPolicy,
  emailDomain,
  signupSettingsSchema,
  type SignupSettings,
  type WorkspaceSettingsResponse,
} from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { users, workspaceSettings } from '../../db/schema';
import { defineCommand } from '../commands';
import { DomainError } from '../errors';
import { recordAct } from '../audit/audit-trail';
import { admitInvitation, type InvitationRow } from './invitations';

/** The one row of workspace_settings. */
const SETTINGS_ID = 'workspace';

type SettingsRow = typeof workspaceSettings.$inferSelect;

const domainsOf = (row: SettingsRow): string[] => (row.signupDomains === '' ? [] : row.signupDomains.split(','));

async function settingsRow(db: Db | Tx): Promise<SettingsRow | undefined> {
  const [row] = await db.select().from(workspaceSettings).where(eq(workspaceSettings.id, SETTINGS_ID));
  return row;
}

/** Who may sign up now: the stored setting, or the server's default until an admin has set one. */
export async function readSignupSettings(db: Db | Tx, defaults: SignupSettings): Promise<SignupSettings> {
  const row = await settingsRow(db);
  return row ? { policy: row.signupPolicy, domains: domainsOf(row) } : defaults;
}

/** GET /api/workspace/settings: the sign-up setting and who last changed it. */
export async function readWorkspaceSettings(db: Db, defaults: SignupSettings): Promise<WorkspaceSettingsResponse> {
  const row = await settingsRow(db);
  if (!row) return { signup: { ...defaults, changedAt: null, changedBy: null } };
  const [author] = row.updatedBy
    ? await db.select({ id: users.id, name: users.name }).from(users).where(eq(users.id, row.updatedBy))
    : [];
  return {
    signup: { policy: row.signupPolicy, domains: domainsOf(row), changedAt: row.updatedAt, changedBy: author ?? null },
  };
}

/** What a sign-up setting's record says: the policy, and the domains when they decide. */
const signupDetails = ({ policy, domains }: SignupSettings): Record<string, string> =>
  policy === 'domains' ? { policy, domains: domains.join(', ') } : { policy };

/** `workspace.setSignupPolicy`: PUT /api/workspace/signup-policy. Admins only; one row, whatever the team's size. */
export const setSignupPolicyCommand = defineCommand({
  name: 'workspace.setSignupPolicy',
  args: signupSettingsSchema,
  async run(ctx, args) {
    if (!canChangeSignupPolicy(ctx.actor)) throw new DomainError('forbidden', accessTexts.onlyAdminsChangePolicy);
    // The domains are stored whatever the policy, so switching back to `domains` finds them again.
    const values = {
      signupPolicy: args.policy,
      signupDomains: args.domains.join(','),
      updatedAt: ctx.now.toISOString(),
      updatedBy: ctx.actor.id,
    };
    await ctx.tx
      .insert(workspaceSettings)
      .values({ id: SETTINGS_ID, ...values })
      .onConflictDoUpdate({ target: workspaceSettings.id, set: values });
    await recordAct(ctx, { action: 'signup_policy_changed', details: signupDetails(args) });
    return { policy: args.policy, domains: args.domains };
  },
});

/**
 * Whether `email` may create an account now, with the invitation it brings (a token, or null): resolves with that
 * invitation when one admits it, null when the policy does, and refuses otherwise. An invitation admits
 * whatever the policy (it is how a manager lets in someone from outside the listed domains); with `consume` the
 * invitation is spent in the caller's transaction, so an account is made only with a use of it, and never twice
 * from one use.
 */
export async function admitSignUp(
  tx: Db | Tx,
  settings: SignupSettings,
  email: string,
  invitation: string | null,
  { now, consume }: { now: Date; consume: boolean },
): Promise<InvitationRow | null> {
  if (invitation !== null) return admitInvitation(tx, invitation, email, { now, consume });
  switch (settings.policy) {
    case 'open':
      return null;
    case 'domains':
      if (settings.domains.includes(emailDomain(email))) return null;
      throw new DomainError('signup_domain_not_allowed', accessTexts.domainRefused(settings.domains));
    case 'invite':
      throw new DomainError('signup_invitation_required');
  }
}
