import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** Whether a process with this id is still running (EPERM: it runs, under another user). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the artifact folders (test-results/run-<pid>) of earlier runs that have ended, and keeps
 * those of runs still going in this checkout (playwright.config.ts explains the folders).
 */
export default function globalSetup(): void {
  const resultsDir = process.env.E2E_RESULTS_DIR;
  if (!resultsDir) return;
  let entries: string[];
  try {
    entries = readdirSync(resultsDir);
  } catch {
    return;
  }
  for (const entry of entries) {
    const pid = /^run-(\d+)$/.exec(entry)?.[1];
    if (pid === undefined || Number(pid) === process.pid || isRunning(Number(pid))) continue;
    rmSync(join(resultsDir, entry), { recursive: true, force: true });
  }
}
