import type { Actor } from '@office/sync-protocol';

/** A job acts as nobody in particular; its commands check no permission. */
export const systemActor: Actor = { id: '00000000-0000-0000-0000-000000000000', role: 'admin' };

/**
 * Runs `job` now and every `intervalMs` until the returned stop is called; a failing run is logged and the
 * next one comes as planned, and a run still going when the next is due makes that one wait its turn. The timer
 * never keeps the process alive.
 */
export function runEvery(intervalMs: number, job: () => Promise<unknown>, log: (error: unknown) => void): () => void {
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = running.then(job).then(
      () => undefined,
      (error: unknown) => log(error),
    );
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
