import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors';
import { bearerToken } from './auth';

export interface RequestLimits {
  /** Requests per window of one signed-in user, all devices together; 0 turns the limit off. */
  perUser: number;
  /** Requests per window without a valid token, per IP address; 0 turns the limit off. */
  perIp: number;
}

const ONE_MINUTE = 60_000;
const PRUNE_EVERY = 1_000;

/**
 * Counts requests per key in fixed windows. In memory, like the login throttle: one process serves
 * everything, and a restart only gives everyone a fresh window.
 */
export class RequestRateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private takenSincePrune = 0;

  constructor(
    readonly limits: RequestLimits,
    private readonly windowMs = ONE_MINUTE,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Counts one request of `key`: 0 when it may go ahead, else milliseconds until the window ends. */
  take(key: string, limit: number): number {
    if (limit <= 0) return 0;
    const now = this.clock();
    if (++this.takenSincePrune >= PRUNE_EVERY) this.prune(now);
    let window = this.windows.get(key);
    if (!window || now - window.start >= this.windowMs) {
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    return window.count > limit ? window.start + this.windowMs - now : 0;
  }

  private prune(now: number): void {
    this.takenSincePrune = 0;
    for (const [key, window] of this.windows) if (now - window.start >= this.windowMs) this.windows.delete(key);
  }
}

/** Monitoring probes and the public avatar images (plain <img> loads) are not counted. */
const isUncounted = (request: FastifyRequest): boolean =>
  request.url === '/api/health' || (request.method === 'GET' && request.url.startsWith('/api/auth/avatars/'));

/**
 * Limits API requests: per user for a valid token (checked by signature only, before any database
 * read), per IP otherwise. The PWA's files and Socket.IO are not API requests and are never counted.
 */
export const rateLimitPlugin = fp<{ limiter: RequestRateLimiter }>(
  (app, { limiter }, done) => {
    app.addHook('onRequest', async (request) => {
      if (!request.url.startsWith('/api/') || isUncounted(request)) return;
      const subject = signedInUserOf(request);
      const waitMs = subject
        ? limiter.take(`user:${subject}`, limiter.limits.perUser)
        : limiter.take(`ip:${request.ip}`, limiter.limits.perIp);
      if (waitMs === 0) return;
      throw new DomainError('rate_limited', 'Too many requests. Please wait a minute and try again.').retryAfter(
        waitMs,
      );
    });

    function signedInUserOf(request: FastifyRequest): string | null {
      const token = bearerToken(request.headers.authorization);
      if (!token) return null;
      try {
        const claims = app.jwt.verify<{ sub?: unknown }>(token);
        return typeof claims.sub === 'string' ? claims.sub : null;
      } catch {
        return null;
      }
    }
    done();
  },
  { name: 'rate-limit', dependencies: ['auth'] },
);
