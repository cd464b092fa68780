import { syncBackoff } from '@office/sync-protocol';

/**
 * Delay before retry number `attempt` (1, 2, 3 ...): 1 s doubling to a 60 s cap, spread by ±50 %
 * so that many clients coming back at once do not retry in step.
 */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(syncBackoff.maxMs, syncBackoff.initialMs * 2 ** Math.max(0, attempt - 1));
  const spread = 1 + syncBackoff.jitter * (2 * random() - 1);
  return Math.round(Math.min(syncBackoff.maxMs, base * spread));
}
