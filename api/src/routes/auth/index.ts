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
  /** A sign-in's answer: each one starts a session, which its token names. */
  const answer = async ({ user, passwordChangeRequired }: SignIn, message: string): Promise<AuthResponse> => ({
    ok: true,
    user,
    token: await app.issueToken(user.id),
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

  app.post('/register', { schema: { body: jsonBody(registerRequestSchema) } }, async (request, reply) => {
    const signIn = await register(accounts, request.body);
    keepDeviceProof(request, reply, signIn.deviceProof);
    return reply.status(201).send(await answer(signIn, 'Account created successfully'));
  });

  /** A browser that signed in as the account before carries a device proof of it (see device-cookie.ts). */
  app.post('/login', { schema: { body: jsonBody(loginRequestSchema) } }, async (request, reply) => {
    const signIn = await login(accounts, request.body, request.ip, deviceProofsOf(request));
    keepDeviceProof(request, reply, signIn.deviceProof);
    return answer(signIn, 'Signed in successfully');
  });

  app.post('/google', { schema: { body: jsonBody(googleLoginRequestSchema) } }, async (request) =>
    answer(await googleLogin(accounts, request.body), 'Signed in with Google'),
  );

  /** Ends this device's session: its token and its sockets stop at once (also one waiting for a new password). */
  app.post(
    '/logout',
    { onRequest: app.authenticateDuringPasswordChange },
    async (request): Promise<SuccessResponse> => {
      await endSession(app.db, request.sessionId);
      app.realtime.dropSessions({ sessionId: request.sessionId });
      return { success: true, message: accountTexts.signedOut };
    },
  );

  app.get('/me', auth, async (request) => {
    const [row] = await app.db.select().from(users).where(eq(users.id, request.actor.id));
    if (!row) throw new DomainError('user_not_found');
    return { user: toUserDto(row) };
  });

  /** Everyone but the caller: the people one can start a conversation with. */
  app.get('/users', auth, async (request) => ({ users: await listActive(request, true) }));

  app.get('/all-users', auth, async (request) => ({ users: await listActive(request, false) }));

  app.get('/team-members', auth, async (request) => ({ users: await listActive(request, false) }));

  app.put('/updatedetails', { ...auth, schema: { body: jsonBody(updateDetailsArgsSchema) } }, async (request) => {
    const user = await runCommand(app.db, app.flush, request.actor, updateDetailsCommand, request.body);
    return { user, message: 'Profile updated successfully!' };
  });

  /** Every other session of the user ends at once (tokens and sockets); this one goes on with its token. */
  const passwordBody = jsonBody(updatePasswordRequestSchema);
  app.put(
    '/updatepassword',
    { ...auth, schema: { body: passwordBody } },
    async (request, reply): Promise<SuccessResponse> => {
      const { deviceProof } = await changePassword(accounts, request.actor, request.sessionId, request.body);
      app.realtime.dropSessions({ userId: request.actor.id, except: request.sessionId });
      keepDeviceProof(request, reply, deviceProof);
      return { success: true, message: accountTexts.passwordUpdated };
    },
  );

  const avatars = new AvatarStore(app.config.dataDir);

  app.post('/upload-avatar', auth, async (request): Promise<AvatarResponse> => {
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
  app.get('/avatars/:filename', { schema: { params: fileParams } }, (request, reply) => {
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
    { ...auth, schema: { params: z.object({ id: idSchema }) } },
    async (request): Promise<SuccessResponse> => {
      await runCommand(app.db, app.flush, request.actor, deactivateEmployeeCommand, { id: request.params.id });
      app.realtime.dropSessions({ userId: request.params.id });
      return { success: true, message: accountTexts.employeeDeleted };
    },
  );

  void app.register(accessRoutes, { accounts });

  done();
};
