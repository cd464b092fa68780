import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { findFreePort } from './free-port';

/**
 * A server of a test's own: its workspace-wide changes (who may join) cannot reach the other tests' server, and it
 * can be stopped, restored or replaced (backups).
 */
export interface OwnServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

async function waitForHealth(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} before it answered`);
    try {
      const answer = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(1000) });
      if (answer.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new Error(`the server did not answer ${url}/api/health within ${timeoutMs} ms`);
}

/**
 * Starts the built server (`npm run build`) as playwright.config.ts starts the shared one: on `port` (a free one by
 * default) with `dataDir` (by default a fresh, seeded folder of its own, removed by `stop`; a folder given is kept).
 * `stop` ends it (SIGTERM, bounded).
 */
export async function startOwnServer(
  options: { env?: Record<string, string>; dataDir?: string; port?: number } = {},
): Promise<OwnServer> {
  const port = options.port ?? (await findFreePort());
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'office-e2e-own-'));
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [resolve(import.meta.dirname, '..', 'api', 'dist', 'main.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_USER: '5000',
      RATE_LIMIT_PER_IP: '5000',
      DIGEST_CHECK_SECONDS: '0',
      ...options.env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      const killLater = setTimeout(() => child.kill('SIGKILL'), 12_000);
      await exited;
      clearTimeout(killLater);
    }
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForHealth(url, child, 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, port, stop };
}
