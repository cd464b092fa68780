import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  accountTexts,
  choosePasswordRequestSchema,
  idSchema,
  invitationTokenSchema,
  type PasswordResetResponse,
  type SignupOptionsResponse,
  type SuccessResponse,
} from '@office/sync-protocol';
import { describeInvitation } from '../../domain/access/invitations';
import { readSignupSettings } from '../../domain/access/signup-policy';
import { DomainError } from '../../domain/errors';
import type { AccountDeps } from '../../domain/users/accounts';
import { choosePassword, resetPassword } from '../../domain/users/password-reset';
import { jsonBody } from '../schemas';

/** The sign-up screen's question, the password reset and its way back: under /api/auth. */
export const accessRoutes: FastifyPluginCallbackZod<{ accounts: AccountDeps }> = (app, { accounts }, done) => {
  /** Public, for the sign-up screen: who may join, and whom the invitation it was opened with is for. */
  app.get(
    '/signup-options',
    {
      schema: {
        summary: 'Who may sign up, and whom an invitation link is for (public, for the sign-up screen)',
        querystring: z.object({ invitation: invitationTokenSchema.optional() }),
      },
    },
    async (request): Promise<SignupOptionsResponse> => {
      const { policy, domains } = await readSignupSettings(app.db, accounts.signupDefaults);
      const options: SignupOptionsResponse = {
        policy,
        // The listed domains are told only while they decide.
        domains: policy === 'domains' ? domains : [],
        invitation: null,
        invitationProblem: null,
      };
      const { invitation } = request.query;
      if (invitation === undefined) return options;
      try {
        return { ...options, invitation: await describeInvitation(app.db, invitation) };
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return { ...options, invitationProblem: { code: error.code, message: error.message } };
      }
    },
  );

  /** Managers reset employees' passwords, admins anyone's but their own: the one-time code is in this answer only. */
  app.post(
    '/users/:id/reset-password',
    {
      onRequest: app.authenticate,
      schema: {
        summary: "Reset a person's password (managers: employees; admins: anyone but themselves): a one-time code",
        params: z.object({ id: idSchema }),
        refuses: ['forbidden', 'user_not_found'],
      },
    },
    async (request): Promise<PasswordResetResponse> => {
      const reset = await resetPassword(app.db, app.flush, request.actor, request.params.id, request.ip);
      const { code, name, expiresAt } = reset;
      app.realtime.dropSessions({ userId: request.params.id });
      return { success: true, message: `${name}'s password was reset.`, code, expiresAt };
    },
  );

  /** After a sign-in with a one-time code: the new password; this session then goes on, unrestricted. */
  app.put(
    '/choose-password',
    {
      onRequest: app.authenticateDuringPasswordChange,
      schema: {
        summary: 'Choose a new password after signing in with a one-time code',
        body: jsonBody(choosePasswordRequestSchema),
        refuses: ['user_not_found'],
      },
    },
    async (request): Promise<SuccessResponse> => {
      await choosePassword(app.db, app.flush, request.actor, request.sessionId, request.body, request.ip);
      app.realtime.dropSessions({ userId: request.actor.id, except: request.sessionId });
      return { success: true, message: accountTexts.passwordUpdated };
    },
  );

  done();
};
