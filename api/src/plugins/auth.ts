import fp from 'fastify-plugin';
import fastifyJwt from '@fastify/jwt';
import { LRUCache } from 'lru-cache';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { limits, type Actor } from '@office/sync-protocol';
import type { AuditEntry } from '../domain/audit/audit-trail';
import { DomainError } from '../domain/errors';
import { endedByPasswordReset, findLiveSession, startSession, type LiveSession } from '../domain/users/sessions';

/** What our tokens carry: the user id and the server-side session the token belongs to. */
interface TokenClaims {
  sub: string;
  sid: string;
}

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: TokenClaims;
    user: TokenClaims;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Admits a live session; one restricted to choosing a new password is refused (403 password_change_required). */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /** Admits a live session, also one restricted to choosing a new password: for that choice and signing out. */
    authenticateDuringPasswordChange: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /** Checks a token, its session and the account behind it; rejects with a 401 DomainError. */
    verifyAccessToken: (token: string | undefined) => Promise<LiveSession>;
    /** Starts a session for the user (a sign-in, recorded with it unless null) and returns the token that names it. */
    issueToken: (userId: string, signIn: AuditEntry | null) => Promise<string>;
  }
  interface FastifyRequest {
    actor: Actor;
    /** The session of the request's token, once `authenticate` has accepted it. */
    sessionId: string;
    /** What the request's bearer token proved, read once per API request: null without a token. */
    credentials: LiveSession | DomainError | null;
  }
}

/** Tokens kept verified: about one per signed-in device. */
const VERIFIED_TOKENS_KEPT = 10_000;

export const bearerToken = (header: string | undefined): string | undefined => {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  return match?.[1];
};

export const authPlugin = fp(
  async (app) => {
    await app.register(fastifyJwt, {
      secret: app.config.jwtSecret,
      sign: { algorithm: 'HS256', expiresIn: limits.tokenTtlSeconds },
      verify: {
        // Security: the algorithm is pinned, so a token signed with "none" or a public key is refused.
        algorithms: ['HS256'],
      },
    });

    /**
     * Every API request verifies its token: a token verified once is kept, by the whole token as the key, until its
     * `exp` (refusals are not kept). fast-jwt's own cache keys its entries by a SHA-2 of the token, which cost about
     * 4 µs of every request; a key of ours makes it warn at every start.
     */
    const verifiedTokens = new LRUCache<string, TokenClaims & { exp: number }>({ max: VERIFIED_TOKENS_KEPT });
    const verifiedClaims = (token: string): TokenClaims => {
      const kept = verifiedTokens.get(token);
      if (kept && kept.exp * 1000 > Date.now()) return kept;
      if (kept) verifiedTokens.delete(token);
      const claims = app.jwt.verify<TokenClaims & { exp?: number }>(token);
      if (typeof claims.exp === 'number') verifiedTokens.set(token, { ...claims, exp: claims.exp });
      return claims;
    };

    app.decorate('verifyAccessToken', async (token: string | undefined): Promise<LiveSession> => {
      if (!token) throw new DomainError('unauthenticated');
      let claims: TokenClaims;
      try {
        claims = verifiedClaims(token);
      } catch (error) {
        const code = (error as { code?: string }).code;
        throw new DomainError(code === 'FAST_JWT_EXPIRED' ? 'token_expired' : 'unauthenticated');
      }
      if (typeof claims.sub !== 'string' || typeof claims.sid !== 'string') throw new DomainError('unauthenticated');
      // Security: logout, a password change elsewhere and deactivation remove the session, so its token stops at once.
      const session = await findLiveSession(app.db, claims.sid, claims.sub);
      if (!session) {
        const reset = await endedByPasswordReset(app.db, claims.sub, claims.sid);
        throw new DomainError(reset ? 'password_reset' : 'unauthenticated');
      }
      return session;
    });

    app.decorate('issueToken', async (userId: string, signIn: AuditEntry | null): Promise<string> => {
      const session = await startSession(app.db, userId, signIn);
      return app.jwt.sign({ sub: userId, sid: session.id });
    });

    app.decorateRequest('actor', null as unknown as Actor);
    app.decorateRequest('sessionId', '');
    app.decorateRequest('credentials', null);
    // Read before the request limiter, which counts a valid session against its person and anything else against the address.
    app.addHook('onRequest', async (request) => {
      if (!request.url.startsWith('/api/')) return;
      const token = bearerToken(request.headers.authorization);
      if (token === undefined) return;
      try {
        request.credentials = await app.verifyAccessToken(token);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        request.credentials = error;
      }
    });
    const admit = (request: FastifyRequest): LiveSession => {
      const { credentials } = request;
      if (credentials === null) throw new DomainError('unauthenticated');
      if (credentials instanceof DomainError) throw credentials;
      request.actor = credentials.actor;
      request.sessionId = credentials.id;
      return credentials;
    };
    app.decorate('authenticate', async (request: FastifyRequest) => {
      // Security: a session opened with a one-time code reads and writes nothing until its password is chosen.
      if (admit(request).passwordChangeRequired) throw new DomainError('password_change_required');
    });
    app.decorate('authenticateDuringPasswordChange', async (request: FastifyRequest) => {
      admit(request);
    });
  },
  { name: 'auth', dependencies: ['db'] },
);
