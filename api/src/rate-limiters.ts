import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** What one limiter counts: `points` per `duration` seconds for each key under `keyPrefix`. */
export interface LimiterOptions {
  keyPrefix: string;
  points: number;
  duration: number;
}

/**
 * Builds the limiters of the request limits and the sign-in throttle. One process keeps them in memory (a
 * restart forgets, which only gives everyone a fresh window); several nodes pass a factory of
 * rate-limiter-flexible's RateLimiterPostgres so they share one count.
 */
export type LimiterFactory = (options: LimiterOptions) => RateLimiterAbstract;

export const inMemoryLimiters: LimiterFactory = (options) => new RateLimiterMemory(options);

/** Limiters every node shares: their counts live in PostgreSQL (the rate_limits table of api/drizzle-pg). */
export const sharedLimiters =
  (pool: pg.Pool): LimiterFactory =>
  (options) =>
    new RateLimiterPostgres({
      ...options,
      storeClient: pool,
      storeType: 'pool',
      tableName: 'rate_limits',
      tableCreated: true,
    });
