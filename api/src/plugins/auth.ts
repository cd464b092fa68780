import fp from 'fastify-plugin';
import fastifyJwt from '@fastify/jwt';
import { eq } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { limits, type Actor } from '@office/sync-protocol';
import { users } from '../db/schema';
import { DomainError } from '../domain/errors';
import type { UserRow } from '../domain/users/serialize';

/** What our tokens carry: the user id and the token version current when it was issued. */
interface TokenClaims {
  sub: string;
  ver: number;
}

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: TokenClaims;
    user: TokenClaims;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /** Checks a token and the account behind it; throws a 401 DomainError. */
    verifyAccessToken: (token: string | undefined) => UserRow;
    issueToken: (user: { id: string }) => string;
  }
  interface FastifyRequest {
    actor: Actor;
  }
}

export const bearerToken = (header: string | undefined): string | undefined => {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  return match?.[1];
};

export const authPlugin = fp(
  async (app) => {
    await app.register(fastifyJwt, {
      secret: app.config.jwtSecret,
      sign: { algorithm: 'HS256', expiresIn: limits.tokenTtlSeconds },
      // Security: the algorithm is pinned, so a token signed with "none" or a public key is refused.
      verify: { algorithms: ['HS256'] },
    });

    app.decorate('verifyAccessToken', (token: string | undefined): UserRow => {
      if (!token) throw new DomainError('unauthenticated');
      let claims: TokenClaims;
      try {
        claims = app.jwt.verify<TokenClaims>(token);
      } catch (error) {
        const code = (error as { code?: string }).code;
        throw new DomainError(code === 'FAST_JWT_EXPIRED' ? 'token_expired' : 'unauthenticated');
      }
      if (typeof claims.sub !== 'string' || typeof claims.ver !== 'number') throw new DomainError('unauthenticated');
      const user = app.db.select().from(users).where(eq(users.id, claims.sub)).get();
      // Security: deactivation and password change bump the version, so older tokens stop at once.
      if (!user || user.deactivatedAt || user.tokenVersion !== claims.ver) throw new DomainError('unauthenticated');
      return user;
    });

    app.decorate('issueToken', (user: { id: string }): string => {
      const row = app.db.select({ ver: users.tokenVersion }).from(users).where(eq(users.id, user.id)).get();
      return app.jwt.sign({ sub: user.id, ver: row?.ver ?? 0 });
    });

    app.decorateRequest('actor', null as unknown as Actor);
    app.decorate('authenticate', async (request: FastifyRequest) => {
      const user = app.verifyAccessToken(bearerToken(request.headers.authorization));
      request.actor = { id: user.id, role: user.role };
    });
  },
  { name: 'auth', dependencies: ['db'] },
);
