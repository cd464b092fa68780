import type { z } from 'zod';
import { invitationTokenSchema, signupSettingsSchema } from '@office/sync-protocol';
import { personNamed, recordAct } from '../audit/audit-trail';
import { defineCommand } from '../commands';
import { insertUser, newUserArgsSchema } from '../users/commands';
import { admitSignUp, readSignupSettings } from './signup-policy';

/**
 * `user.signUp`: registration and a Google sign-in that makes an account. The workspace's sign-up policy decides
 * (`signupDefaults` until an admin has set one); an invitation is spent in the same transaction as the account is
 * made, so a refused or failed sign-up (the email taken) spends nothing. An account an invitation made is recorded in
 * the audit trail, with the invitation and who made it.
 */
export const signUpCommand = defineCommand({
  name: 'user.signUp',
  args: newUserArgsSchema.extend({
    invitation: invitationTokenSchema.nullable().default(null),
    signupDefaults: signupSettingsSchema,
  }),
  async run(ctx, { invitation, signupDefaults, ...user }) {
    const settings = await readSignupSettings(ctx.tx, signupDefaults);
    const admitting = await admitSignUp(ctx.tx, settings, user.email, invitation, { now: ctx.now, consume: true });
    const created = await insertUser(ctx, user);
    if (admitting) {
      const inviter = await personNamed(ctx.tx, admitting.createdBy);
      await recordAct(ctx, {
        action: 'invitation_accepted',
        details: { invitation: admitting.id, ...(inviter ? { invitedBy: inviter.name } : {}) },
      });
    }
    return created;
  },
});

/** The arguments of `user.signUp` as its callers build them. */
export type SignUpArgs = z.input<typeof signUpCommand.args>;
