import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bundleServer } from './bundle.mjs';

// The real server as a child process: for the bench, and for tests that kill it (`kill -9`), stop it (SIGTERM) or
// measure its memory. A tool beside bundle.mjs and local-postgres.mjs, not part of the server.

/**
 * A bundle of the server's current sources, of this process' own. It lives under api/node_modules so that it finds
 * its npm packages and the migrations exactly as api/dist/main.js does.
 */
export async function bundleServerCopy(): Promise<string> {
  const outfile = resolve(import.meta.dirname, `node_modules/.cache/test-server/main-${process.pid}-${Date.now()}.mjs`);
  await bundleServer(outfile, { sourcemap: false });
  return outfile;
}

export interface ServerProcess {
  url: string;
  pid: number;
  dataDir: string;
  child: ChildProcess;
  /** Resolves with the exit code (null after a signal) and the signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** The resident memory right now and its peak since the last `resetPeakMemory`, in bytes (Linux /proc). */
  memory(): { rss: number; peak: number };
  resetPeakMemory(): void;
}

export interface ServerProcessOptions {
  bundle: string;
  dataDir?: string;
  /** Keeps the port of an earlier process, so clients can reconnect to the same URL. */
  port?: number;
  env?: Record<string, string>;
}

/** A fixed secret: a restarted process takes the tokens the one before it signed. */
const PROCESS_JWT_SECRET = 'test-secret-'.padEnd(48, 'x');

/** Starts the bundled server on loopback with SEED_DEMO=0 unless `env` says otherwise; resolves once it listens. */
export async function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'office-proc-'));
  const child = spawn(process.execPath, [options.bundle], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(options.port ?? 0),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      JWT_SECRET: PROCESS_JWT_SECRET,
      SEED_DEMO: '0',
      LOG_LEVEL: 'warn',
      // One test process is many clients on one IP; a test that proves the limits sets them.
      RATE_LIMIT_PER_USER: '0',
      RATE_LIMIT_PER_IP: '0',
      // The API alone, unless a caller needs the PWA (the bench's browser figures).
      SERVE_PWA: '0',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  const port = await new Promise<number>((done, fail) => {
    let out = '';
    const onData = (chunk: string) => {
      out += chunk;
      const match = /running at http:\/\/localhost:(\d+)/.exec(out);
      if (match) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        done(Number(match[1]));
      }
    };
    child.stdout?.setEncoding('utf8').on('data', onData);
    void exited.then(({ code, signal }) =>
      fail(new Error(`the server exited before listening (code ${code}, signal ${signal}): ${errors}`)),
    );
  });
  const pid = child.pid ?? 0;
  const status = () => readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (text: string, field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(text)?.[1] ?? 0) * 1024;
  return {
    url: `http://127.0.0.1:${port}`,
    pid,
    dataDir,
    child,
    exited,
    stderr: () => errors,
    memory() {
      const text = status();
      return { rss: kib(text, 'VmRSS'), peak: kib(text, 'VmHWM') };
    },
    // Writing 5 to clear_refs resets the kernel's peak resident size (VmHWM) of the process.
    resetPeakMemory: () => writeFileSync(`/proc/${pid}/clear_refs`, '5'),
  };
}

/** Kills the process with `signal` and waits for it to be gone. */
export async function stopServerProcess(server: ServerProcess, signal: NodeJS.Signals = 'SIGKILL') {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill(signal);
  return server.exited;
}

export const removeDataDir = (dir: string) => rmSync(dir, { recursive: true, force: true });

/** A loopback port nobody listens on now: the kernel picks one for a throwaway listener. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP port was assigned');
  return address.port;
}
