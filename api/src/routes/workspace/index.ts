import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  accessTexts,
  canManageInvitations,
  canOpenWorkspaceSettings,
  createInvitationRequestSchema,
  idSchema,
  signupSettingsSchema,
  type CreatedInvitationResponse,
  type InvitationListResponse,
  type SuccessResponse,
  type WorkspaceSettingsResponse,
} from '@office/sync-protocol';
import { runCommand } from '../../domain/commands';
import { DomainError } from '../../domain/errors';
import { createInvitationCommand, listInvitations, revokeInvitationCommand } from '../../domain/access/invitations';
import { readWorkspaceSettings, setSignupPolicyCommand } from '../../domain/access/signup-policy';
import { jsonBody } from '../schemas';

/**
 * /api/workspace: Employee Management's Settings. Who may join (admins change it) and invitation links (managers and
 * admins). Each needs the server when it is made, so none is a queued sync mutation.
 */
export const workspaceRoutes: FastifyPluginCallbackZod = (app, _opts, done) => {
  const auth = { onRequest: app.authenticate };
  const { signupDefaults } = app.config;

  const settingsSchema = {
    summary: 'Who may join the workspace (managers, admins)',
    refuses: ['forbidden'],
  } as const;
  app.get('/settings', { ...auth, schema: settingsSchema }, async (request): Promise<WorkspaceSettingsResponse> => {
    if (!canOpenWorkspaceSettings(request.actor)) throw new DomainError('forbidden');
    return readWorkspaceSettings(app.db, signupDefaults);
  });

  app.put(
    '/signup-policy',
    {
      ...auth,
      schema: {
        summary: 'Change who may join: anyone, listed email domains or invitation only (admins)',
        body: jsonBody(signupSettingsSchema),
        refuses: ['forbidden'],
      },
    },
    async (request): Promise<WorkspaceSettingsResponse> => {
      await runCommand(app.db, app.flush, request.actor, setSignupPolicyCommand, request.body, request.ip);
      return readWorkspaceSettings(app.db, signupDefaults);
    },
  );

  const listSchema = {
    summary: 'The invitation links and their state (managers, admins)',
    refuses: ['forbidden'],
  } as const;
  app.get('/invitations', { ...auth, schema: listSchema }, async (request): Promise<InvitationListResponse> => {
    if (!canManageInvitations(request.actor)) throw new DomainError('forbidden');
    return { invitations: await listInvitations(app.db) };
  });

  app.post(
    '/invitations',
    {
      ...auth,
      schema: {
        summary: 'Create an invitation link (managers, admins) (201): the link, shown this once',
        body: jsonBody(createInvitationRequestSchema),
        refuses: ['forbidden', 'email_taken'],
      },
    },
    async (request, reply): Promise<CreatedInvitationResponse> => {
      const { actor, body, ip } = request;
      const created = await runCommand(app.db, app.flush, actor, createInvitationCommand, body, ip);
      return reply.status(201).send(created);
    },
  );

  app.delete(
    '/invitations/:id',
    {
      ...auth,
      schema: {
        summary: 'Withdraw an invitation link (managers, admins)',
        params: z.object({ id: idSchema }),
        refuses: ['forbidden', 'not_found'],
      },
    },
    async (request): Promise<SuccessResponse> => {
      const args = { id: request.params.id };
      await runCommand(app.db, app.flush, request.actor, revokeInvitationCommand, args, request.ip);
      return { success: true, message: accessTexts.invitationRevoked };
    },
  );

  done();
};
