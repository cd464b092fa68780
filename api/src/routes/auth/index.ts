import type { FastifyPluginCallback, FastifyRequest } from 'fastify';
import { and, asc, eq, isNull, ne } from 'drizzle-orm';
import {
  accountTexts,
  type AuthResponse,
  type AvatarResponse,
  type UpdatePasswordResponse,
  type User,
} from '@office/sync-protocol';
import { users } from '../../db/schema';
import { runCommand } from '../../domain/commands';
import { DomainError } from '../../domain/errors';
import { changePassword, googleLogin, login, register, type AccountDeps } from '../../domain/users/accounts';
import {
  AvatarStore,
  avatarLimits,
  avatarNamePattern,
  avatarUrlPrefix,
  mimetypeOfAvatar,
} from '../../domain/users/avatars';
import { deactivateEmployeeCommand } from '../../domain/users/employees';
import { setAvatarCommand, updateDetailsCommand } from '../../domain/users/commands';
import { toUserDto } from '../../domain/users/serialize';

const active = isNull(users.deactivatedAt);

export const authRoutes: FastifyPluginCallback<{ accounts: AccountDeps }> = (app, { accounts }, done) => {
  const answer = (user: User, message: string): AuthResponse => ({
    ok: true,
    user,
    token: app.issueToken(user),
    message,
  });
  const auth = { onRequest: app.authenticate };
  const listActive = (request: FastifyRequest, excludeSelf: boolean) =>
    app.db
      .select()
      .from(users)
      .where(excludeSelf ? and(active, ne(users.id, request.actor.id)) : active)
      .orderBy(asc(users.name))
      .all()
      .map(toUserDto);

  app.post('/register', async (request, reply) => {
    const user = await register(accounts, request.body);
    return reply.status(201).send(answer(user, 'Account created successfully'));
  });

  app.post('/login', async (request) =>
    answer(await login(accounts, request.body, request.ip), 'Signed in successfully'),
  );

  app.post('/google', async (request) => answer(await googleLogin(accounts, request.body), 'Signed in with Google'));

  app.get('/me', auth, (request) => {
    const row = app.db.select().from(users).where(eq(users.id, request.actor.id)).get();
    if (!row) throw new DomainError('user_not_found');
    return { user: toUserDto(row) };
  });

  /** Everyone but the caller: the people one can start a conversation with. */
  app.get('/users', auth, (request) => ({ users: listActive(request, true) }));

  app.get('/all-users', auth, (request) => ({ users: listActive(request, false) }));

  app.get('/team-members', auth, (request) => ({ users: listActive(request, false) }));

  app.put('/updatedetails', auth, (request) => {
    const user = runCommand(app.db, app.flush, request.actor, updateDetailsCommand, request.body);
    return { user, message: 'Profile updated successfully!' };
  });

  /** Every other session of the user ends at once (tokens and sockets); this one continues with a new token. */
  app.put('/updatepassword', auth, async (request): Promise<UpdatePasswordResponse> => {
    await changePassword(accounts, request.actor, request.body);
    const token = app.issueToken(request.actor);
    app.realtime.disconnectUser(request.actor.id);
    return { success: true, message: accountTexts.passwordUpdated, token };
  });

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
      const { user, previous } = runCommand(app.db, app.flush, request.actor, setAvatarCommand, {
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
  app.get<{ Params: { filename: string } }>('/avatars/:filename', (request, reply) => {
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
  app.delete<{ Params: { id: string } }>('/users/:id', auth, (request) => {
    runCommand(app.db, app.flush, request.actor, deactivateEmployeeCommand, { id: request.params.id });
    app.realtime.disconnectUser(request.params.id);
    return { success: true, message: accountTexts.employeeDeleted };
  });

  done();
};
