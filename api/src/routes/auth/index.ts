import type { FastifyPluginCallback, FastifyRequest } from 'fastify';
import { and, asc, eq, isNull, ne } from 'drizzle-orm';
import type { AuthResponse, User } from '@office/sync-protocol';
import { users } from '../../db/schema';
import { runCommand } from '../../domain/commands';
import { DomainError } from '../../domain/errors';
import { googleLogin, login, register, type AccountDeps } from '../../domain/users/accounts';
import { updateDetailsCommand } from '../../domain/users/commands';
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

  done();
};
