import fp from 'fastify-plugin';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { DomainError } from '../domain/errors';
import { inMemoryLimiters, type LimiterFactory } from '../rate-limiters';

export interface RequestLimits {
  /** Requests per minute of one signed-in user, all devices and socket writes together; 0 turns the limit off. */
  perUser: number;
  /** Requests per minute without a valid session, per IP address; 0 turns the limit off. */
  perIp: number;
}

const ONE_MINUTE_SECONDS = 60;
const TOO_MANY = 'Too many requests. Please wait a minute and try again.';

/** The per-person and per-address allowances of API requests and socket writes. */
export class RequestLimiter {
  private readonly perUser: RateLimiterAbstract | null;
  private readonly perIp: RateLimiterAbstract | null;

  constructor(limits: RequestLimits, create: LimiterFactory = inMemoryLimiters) {
    const minuteOf = (keyPrefix: string, points: number) =>
      points > 0 ? create({ keyPrefix, points, duration: ONE_MINUTE_SECONDS }) : null;
    this.perUser = minuteOf('requests-user', limits.perUser);
    this.perIp = minuteOf('requests-ip', limits.perIp);
  }

  /** Counts one request or socket write of a person; a 429 DomainError once their minute's allowance is spent. */
  takeForUser = (userId: string): Promise<void> => take(this.perUser, userId);

  /** Counts one request of an address without a valid session. */
  takeForAddress = (ip: string): Promise<void> => take(this.perIp, ip);
}

async function take(limiter: RateLimiterAbstract | null, key: string): Promise<void> {
  if (!limiter) return;
  try {
    await limiter.consume(key);
  } catch (refusal) {
    // The limiter rejects with its result when the allowance is spent, and with an Error when its store fails.
    if (!(refusal instanceof RateLimiterRes)) throw refusal;
    throw new DomainError('rate_limited', TOO_MANY).retryAfter(refusal.msBeforeNext);
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    requestLimiter: RequestLimiter;
  }
}

/** Monitoring probes and the public avatar images (plain <img> loads) are not counted; `url` is a path or a route. */
export const isUncounted = (method: string, url: string): boolean =>
  url === '/api/health' || (method === 'GET' && url.startsWith('/api/auth/avatars/'));

/**
 * Limits API requests: per user for a live session, per IP otherwise; an ended, expired or forged token
 * counts against the address it comes from, never against the person it names. The PWA's files are not
 * API requests and are never counted; socket writes count through `requestLimiter` (realtime).
 */
export const rateLimitPlugin = fp<{ limiter: RequestLimiter }>(
  (app, { limiter }, done) => {
    app.decorate('requestLimiter', limiter);
    app.addHook('onRequest', async (request) => {
      if (!request.url.startsWith('/api/') || isUncounted(request.method, request.url)) return;
      const { credentials } = request;
      if (credentials && !(credentials instanceof DomainError)) await limiter.takeForUser(credentials.actor.id);
      else await limiter.takeForAddress(request.ip);
    });
    done();
  },
  { name: 'rate-limit', dependencies: ['auth'] },
);
