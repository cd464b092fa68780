import { limits } from '@office/sync-protocol';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { inMemoryLimiters, type LimiterFactory } from '../../rate-limiters';
import { DomainError } from '../errors';

/**
 * Failed sign-ins one address may make in an hour, whatever the emails: past it, sign-ins from it without a
 * device proof are let through one at a time, `slowedAddressIntervalSeconds` apart.
 */
export const loginFailuresPerAddressHour = 100;

/** How far apart an address past its hourly failures may try again without a device proof, over all its clients. */
export const slowedAddressIntervalSeconds = 10;

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

/** The nonce of a device proof the attempt carries for the account it names (see device-proofs.ts); null without. */
export type TrustedDevice = string | null;

/** Whether a count has reached `points` and is still running (an in-memory count outlives its window until a timer clears it). */
const spent = (count: RateLimiterRes | null, points: number): count is RateLimiterRes =>
  count !== null && count.consumedPoints >= points && count.msBeforeNext > 0;

const tryAgainIn = (waitMs: number): DomainError => {
  const minutes = Math.max(1, Math.ceil(waitMs / 60_000));
  return new DomainError(
    'rate_limited',
    `Too many failed sign-in attempts. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
  ).retryAfter(waitMs);
};

/**
 * rate-limiter-flexible's login protection with OWASP's device cookies. A browser holding a device proof of the
 * account it signs in as is limited only by its own proof's failures (5 in the window lock that proof alone), so
 * nobody behind the same address, nor anyone guessing the email elsewhere, can shut its owner out. Every other
 * client keeps the untrusted limits: a hard limit per (address, email), failures for an email slowing its
 * attempts down, and an address past its hourly failures let through one attempt at a time, never walled off.
 */
export class LoginThrottle {
  private readonly byAddressAndEmail: RateLimiterAbstract;
  private readonly byAddress: RateLimiterAbstract;
  private readonly byEmail: RateLimiterAbstract;
  private readonly byDevice: RateLimiterAbstract;
  private readonly slowedAddress: RateLimiterAbstract;
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
    this.byDevice = create({ keyPrefix: 'login-device', points: limits.loginFailuresAllowed, duration: window });
    this.slowedAddress = create({ keyPrefix: 'login-ip-slowed', points: 1, duration: slowedAddressIntervalSeconds });
    this.slowDown = slowDown;
    this.failuresPerAddressHour = failuresPerAddressHour;
  }

  /**
   * Before a password is checked: refuses (429) past a hard limit, lets an address past its hourly failures
   * through one attempt at a time, otherwise waits out the email's slow-down. A trusted device meets only its own
   * proof's limit.
   */
  async beforeAttempt(ip: string, email: string, device: TrustedDevice = null): Promise<void> {
    if (device) {
      const own = await this.byDevice.get(device);
      if (spent(own, limits.loginFailuresAllowed)) throw tryAgainIn(own.msBeforeNext);
      return;
    }
    const [pair, address, forEmail] = await Promise.all([
      this.byAddressAndEmail.get(`${ip}|${email}`),
      this.byAddress.get(ip),
      this.byEmail.get(email),
    ]);
    if (spent(pair, limits.loginFailuresAllowed)) throw tryAgainIn(pair.msBeforeNext);
    if (spent(address, this.failuresPerAddressHour)) await this.takeSlowedTurn(ip);
    const delay = this.slowDown(forEmail?.consumedPoints ?? 0);
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  }

  /** One attempt per interval for the whole address, shared by every node: the rest hear when to try again. */
  private async takeSlowedTurn(ip: string): Promise<void> {
    try {
      await this.slowedAddress.consume(ip);
    } catch (refusal) {
      // The limiter rejects with its result when the turn is taken, and with an Error when its store fails.
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      const seconds = Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));
      throw new DomainError(
        'rate_limited',
        `Too many failed sign-in attempts from this network. Please try again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
      ).retryAfter(refusal.msBeforeNext);
    }
  }

  /** A trusted device's failure counts against its proof alone; anyone else's against the address and the email. */
  async recordFailure(ip: string, email: string, device: TrustedDevice = null): Promise<void> {
    if (device) {
      await this.byDevice.penalty(device);
      return;
    }
    await Promise.all([
      this.byAddressAndEmail.penalty(`${ip}|${email}`),
      this.byAddress.penalty(ip),
      this.byEmail.penalty(email),
    ]);
  }

  /** The right password proves the earlier failures for this email were typos; the address's count stays. */
  async recordSuccess(ip: string, email: string, device: TrustedDevice = null): Promise<void> {
    await Promise.all([
      this.byAddressAndEmail.delete(`${ip}|${email}`),
      this.byEmail.delete(email),
      ...(device ? [this.byDevice.delete(device)] : []),
    ]);
  }
}
