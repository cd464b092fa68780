import { limits } from '@office/sync-protocol';

/**
 * Counts failed sign-ins per (IP, email) and per email in a sliding window. In memory: one process
 * serves everything; a restart forgets, which only gives an attacker a fresh window after a restart.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly allowed = limits.loginFailuresAllowed,
    private readonly windowMs = limits.loginFailureWindowMs,
    private readonly clock: () => number = Date.now,
  ) {}

  private keys(ip: string, email: string): string[] {
    return [`ip:${ip}|${email}`, `email:${email}`];
  }

  private recent(key: string): number[] {
    const since = this.clock() - this.windowMs;
    const kept = (this.failures.get(key) ?? []).filter((t) => t > since);
    if (kept.length) this.failures.set(key, kept);
    else this.failures.delete(key);
    return kept;
  }

  /** Milliseconds until another attempt is allowed, or 0 when it is allowed now. */
  retryAfterMs(ip: string, email: string): number {
    let wait = 0;
    for (const key of this.keys(ip, email)) {
      const times = this.recent(key);
      if (times.length >= this.allowed) wait = Math.max(wait, (times[0] ?? 0) + this.windowMs - this.clock());
    }
    return wait;
  }

  recordFailure(ip: string, email: string): void {
    for (const key of this.keys(ip, email)) this.failures.set(key, [...this.recent(key), this.clock()]);
  }

  /** The right password proves the earlier failures were typos: both counts start again. */
  recordSuccess(ip: string, email: string): void {
    for (const key of this.keys(ip, email)) this.failures.delete(key);
  }
}
