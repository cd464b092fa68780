import type { FastifyRequest } from 'fastify';
import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { and, asc, eq, isNull, ne } from 'drizzle-orm';
import {
  accountTexts,
  googleLoginRequestSchema,
  idSchema,
  loginRequestSchema,
  registerRequestSchema,
  updateDetailsArgsSchema,
  updatePasswordRequestSchema,
  type AuthResponse,
  type AvatarResponse,
  type SuccessResponse,
  type User,
} from '@office/sync-protocol';
import { users } from '../../db/schema';
import { runCommand } from '../../domain/commands';
import { DomainError } from '../../domain/errors';
import {
  changePassword,
  googleLogin,
  login,
  register,
  type AccountDeps,
  type SignIn,
} from '../../domain/users/accounts';
import {
  AvatarStore,
  avatarLimits,
  avatarNamePattern,
  avatarUrlPrefix,
  mimetypeOfAvatar,
} from '../../domain/users/avatars';
import { deactivateEmployeeCommand } from '../../domain/users/employees';
import { deviceProofsOf, keepDeviceProof } from './device-cookie';
import { setAvatarCommand, updateDetailsCommand } from '../../domain/users/commands';
import { endSession } from '../../domain/users/sessions';
import { toUserDto } from '../../domain/users/serialize';
import { fileParams, jsonBody } from '../schemas';
import { accessRoutes } from './access';

const active = isNull(users.deactivatedAt);

export const authRoutes: FastifyPluginCallbackZod<{ accounts: AccountDeps }> = (app, { accounts }, done) => {
  /** A sign-in's answer: each one starts a session, which its token names (recorded with it). */
  const answer = async ({ user, passwordChangeRequired, record }: SignIn, message: string): Promise<AuthResponse> => ({
    ok: true,
    user,
    token: await app.issueToken(user.id, record),
    message,
    passwordChangeRequired,
  });
  const auth = { onRequest: app.authenticate };
  const listActive = async (request: FastifyRequest, excludeSelf: boolean): Promise<User[]> => {
    const rows = await app.db
      .select()
      .from(users)
      .where(excludeSelf ? and(active, ne(users.id, request.actor.id)) : active)
      .orderBy(asc(users.name));
    return rows.map(toUserDto);
  };

  app.post(
    '/register',
    {
      schema: {
        summary: 'Create an account and sign in (201): the user and a session token',
        body: jsonBody(registerRequestSchema),
        refuses: [
          'email_taken',
          'signup_invitation_required',
          'signup_domain_not_allowed',
          'invitation_invalid',
          'invitation_expired',
          'invitation_used',
          'invitation_revoked',
          'invitation_email_mismatch',
        ],
      },
    },
    async (request, reply) => {
      const signIn = await register(accounts, request.body, request.ip);
      keepDeviceProof(request, reply, signIn.deviceProof);
      return reply.status(201).send(await answer(signIn, 'Account created successfully'));
    },
  );

  /** A browser that signed in as the account before carries a device proof of it (see device-cookie.ts). */
  app.post(
    '/login',
    {
      schema: {
        summary: 'Sign in with email and password (or a one-time code): the user and a session token',
        body: jsonBody(loginRequestSchema),
        refuses: ['invalid_credentials', 'reset_code_used', 'reset_code_expired'],
      },
    },
    async (request, reply) => {
      const signIn = await login(accounts, request.body, request.ip, deviceProofsOf(request));
      keepDeviceProof(request, reply, signIn.deviceProof);
      return answer(signIn, 'Signed in successfully');
    },
  );

  const googleSchema = {
    summary: 'Sign in (or sign up) with a Google ID token: the user and a session token',
    body: jsonBody(googleLoginRequestSchema),
    refuses: [
      'google_not_configured',
      'google_token_invalid',
      'invalid_credentials',
      'signup_invitation_required',
      'signup_domain_not_allowed',
    ],
  } as const;
  app.post('/google', { schema: googleSchema }, async (request) =>
    answer(await googleLogin(accounts, request.body, request.ip), 'Signed in with Google'),
  );

  /** Ends this device's session: its token and its sockets stop at once (also one waiting for a new password). */
  app.post(
    '/logout',
    {
      onRequest: app.authenticateDuringPasswordChange,
      schema: { summary: "Sign out: this device's session and its sockets end" },
    },
    async (request): Promise<SuccessResponse> => {
      await endSession(app.db, { id: request.sessionId, userId: request.actor.id }, request.ip);
      app.realtime.dropSessions({ sessionId: request.sessionId });
      return { success: true, message: accountTexts.signedOut };
    },
  );

  app.get(
    '/me',
    { ...auth, schema: { summary: 'The signed-in user', refuses: ['user_not_found'] } },
    async (request) => {
      const [row] = await app.db.select().from(users).where(eq(users.id, request.actor.id));
      if (!row) throw new DomainError('user_not_found');
      return { user: toUserDto(row) };
    },
  );

  /** Everyone but the caller: the people one can start a conversation with. */
  app.get(
    '/users',
    { ...auth, schema: { summary: 'The active users but the caller, by name: whom one can message' } },
    async (request) => ({ users: await listActive(request, true) }),
  );

  app.get(
    '/all-users',
    { ...auth, schema: { summary: 'Every active user, by name (the directory)' } },
    async (request) => ({ users: await listActive(request, false) }),
  );

  app.get(
    '/team-members',
    { ...auth, schema: { summary: 'Every active user, by name (whom a task can be assigned to)' } },
    async (request) => ({ users: await listActive(request, false) }),
  );

  const detailsSchema = {
    summary: "Change the caller's name, email and profile details: the user",
    body: jsonBody(updateDetailsArgsSchema),
    refuses: ['email_taken', 'user_not_found'],
  } as const;
  app.put('/updatedetails', { ...auth, schema: detailsSchema }, async (request) => {
    const user = await runCommand(app.db, app.flush, request.actor, updateDetailsCommand, request.body);
    return { user, message: 'Profile updated successfully!' };
  });

  /** Every other session of the user ends at once (tokens and sockets); this one goes on with its token. */
  const passwordBody = jsonBody(updatePasswordRequestSchema);
  app.put(
    '/updatepassword',
    {
      ...auth,
      schema: {
        summary: "Change the caller's password; their other sessions end",
        body: passwordBody,
        refuses: ['invalid_credentials', 'user_not_found'],
      },
    },
    async (request, reply): Promise<SuccessResponse> => {
      const { deviceProof } = await changePassword(
        accounts,
        request.actor,
        request.sessionId,
        request.body,
        request.ip,
      );
      app.realtime.dropSessions({ userId: request.actor.id, except: request.sessionId });
      keepDeviceProof(request, reply, deviceProof);
      return { success: true, message: accountTexts.passwordUpdated };
    },
  );

  const avatars = new AvatarStore(app.config.dataDir);

  const avatarSchema = {
    summary: "Set the caller's photo (multipart, field `avatar`): its URL and the user",
    refuses: ['unsupported_media_type', 'payload_too_large', 'user_not_found'],
  } as const;
  app.post('/upload-avatar', { ...auth, schema: avatarSchema }, async (request): Promise<AvatarResponse> => {
    if (!request.isMultipart()) throw new DomainError('unsupported_media_type', accountTexts.invalidImage);
    const part = await request.file({ limits: avatarLimits });
    if (!part || part.fieldname !== 'avatar') {
      part?.file.resume();
      throw new DomainError('invalid_input', accountTexts.invalidImage);
    }
    const filename = await avatars.save(part);
    try {
      const { user, previous } = await runCommand(app.db, app.flush, request.actor, setAvatarCommand, {
        avatar: `${avatarUrlPrefix}${filename}`,
      });
      await avatars.removeByUrl(previous);
      return {
        success: true,
        avatarUrl: `${user.avatar ?? ''}?t=${Date.now()}`,
        message: accountTexts.photoUpdated,
        user,
      };
    } catch (error) {
      await avatars.remove(filename);
      throw error;
    }
  });

  /** Photos are public by unguessable name: an <img> sends no bearer token. */
  const photoSchema = {
    summary: 'A profile photo, by its unguessable name (no sign-in: an <img> sends no token)',
    params: fileParams,
    refuses: ['not_found'],
  } as const;
  app.get('/avatars/:filename', { schema: photoSchema }, (request, reply) => {
    const { filename } = request.params;
    if (!avatarNamePattern.test(filename)) throw new DomainError('not_found', 'File not found.');
    const stream = avatars.open(filename);
    // A replaced photo's file is gone: 404, never an empty image cached as immutable.
    if (!stream) throw new DomainError('not_found', 'File not found.');
    return (
      reply
        .header('Content-Type', mimetypeOfAvatar(filename))
        .header('X-Content-Type-Options', 'nosniff')
        .header('Content-Security-Policy', "default-src 'none'; sandbox")
        // A new photo gets a new name, so a name's bytes never change.
        .header('Cache-Control', 'public, max-age=31536000, immutable')
        .send(stream)
    );
  });

  /** Managers delete employees: the account is deactivated, its history stays (spec section 6). */
  app.delete(
    '/users/:id',
    {
      ...auth,
      schema: {
        summary: 'Delete an employee (managers, admins): the account is deactivated, its history stays',
        params: z.object({ id: idSchema }),
        refuses: ['forbidden', 'user_not_found'],
      },
    },
    async (request): Promise<SuccessResponse> => {
      const args = { id: request.params.id };
      await runCommand(app.db, app.flush, request.actor, deactivateEmployeeCommand, args, request.ip);
      app.realtime.dropSessions({ userId: request.params.id });
      return { success: true, message: accountTexts.employeeDeleted };
    },
  );

  void app.register(accessRoutes, { accounts });

  done();
};
