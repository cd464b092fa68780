import { limits } from '@office/sync-protocol';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { inMemoryLimiters, type LimiterFactory } from '../../rate-limiters';
import { DomainError } from '../errors';

/** Failed sign-ins one address may make in an hour, whatever the emails: past it, the address is refused. */
export const loginFailuresPerAddressHour = 100;

/**
 * How long an attempt on an email waits after `failures` consecutive failures for it: nothing up to the
 * allowance, then 1 s doubling to 5 s, which keeps the spec's client (10 s timeout) able to sign in.
 */
export const defaultSlowDown = (failures: number): number =>
  failures < limits.loginFailuresAllowed ? 0 : Math.min(5000, 1000 * 2 ** (failures - limits.loginFailuresAllowed));

export interface LoginThrottleOptions {
  create?: LimiterFactory;
  slowDown?: (failures: number) => number;
  failuresPerAddressHour?: number;
}

/**
 * rate-limiter-flexible's login protection: hard limits per (address, email) and per address; failures for
 * an email from anywhere only slow its attempts down, so nobody can lock another person out, and the right
 * password from another address still gets in.
 */
export class LoginThrottle {
  private readonly byAddressAndEmail: RateLimiterAbstract;
  private readonly byAddress: RateLimiterAbstract;
  private readonly byEmail: RateLimiterAbstract;
  private readonly slowDown: (failures: number) => number;
  private readonly failuresPerAddressHour: number;

  constructor({
    create = inMemoryLimiters,
    slowDown = defaultSlowDown,
    failuresPerAddressHour = loginFailuresPerAddressHour,
  }: LoginThrottleOptions = {}) {
    const window = limits.loginFailureWindowMs / 1000;
    this.byAddressAndEmail = create({
      keyPrefix: 'login-ip-email',
      points: limits.loginFailuresAllowed,
      duration: window,
    });
    this.byAddress = create({ keyPrefix: 'login-ip', points: failuresPerAddressHour, duration: 60 * 60 });
    // Counts consecutive failures (a success deletes the count); its points are never a refusal.
    this.byEmail = create({ keyPrefix: 'login-email', points: Number.MAX_SAFE_INTEGER, duration: window });
    this.slowDown = slowDown;
    this.failuresPerAddressHour = failuresPerAddressHour;
  }

  /** Before a password is checked: refuses (429) past a hard limit, otherwise waits out the email's slow-down. */
  async beforeAttempt(ip: string, email: string): Promise<void> {
    const [pair, address, forEmail] = await Promise.all([
      this.byAddressAndEmail.get(`${ip}|${email}`),
      this.byAddress.get(ip),
      this.byEmail.get(email),
    ]);
    let waitMs = 0;
    if (pair && pair.consumedPoints >= limits.loginFailuresAllowed) waitMs = pair.msBeforeNext;
    if (address && address.consumedPoints >= this.failuresPerAddressHour)
      waitMs = Math.max(waitMs, address.msBeforeNext);
    if (waitMs > 0) {
      const minutes = Math.max(1, Math.ceil(waitMs / 60_000));
      throw new DomainError(
        'rate_limited',
        `Too many failed sign-in attempts. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      ).retryAfter(waitMs);
    }
    const delay = this.slowDown(forEmail?.consumedPoints ?? 0);
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  }

  async recordFailure(ip: string, email: string): Promise<void> {
    await Promise.all([
      this.byAddressAndEmail.penalty(`${ip}|${email}`),
      this.byAddress.penalty(ip),
      this.byEmail.penalty(email),
    ]);
  }

  /** The right password proves the earlier failures for this email were typos; the address's count stays. */
  async recordSuccess(ip: string, email: string): Promise<void> {
    await Promise.all([this.byAddressAndEmail.delete(`${ip}|${email}`), this.byEmail.delete(email)]);
  }
}
