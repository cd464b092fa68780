import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startServerProcess, stopServerProcess, type ServerProcess } from '../api/server-process';
import { cpuMeter, untilQuiet } from './cpu';
import { concurrentWriteRun, latencyText } from './http-load';
import { median, percentiles, type Measure } from './measure';
import { runPacedLoad } from './paced-load';
import type { BenchSession } from './session';

export interface OperationsOptions {
  bundle: string;
  /** The seeded organisation's DATA_DIR; no server may be running on it. */
  dataDir: string;
  serverEnv: Record<string, string>;
  sessions: BenchSession[];
  members: number;
  quick: boolean;
  log: (line: string) => void;
}

const METRICS_TOKEN = 'bench-metrics-token-0123456789';
const BACKUP_CLI = resolve(import.meta.dirname, '../api/dist/backup-cli.js');

/** Runs `npm run backup`'s bundle into a folder of its own; resolves with when it ran (performance clock). */
function runBackup(dataDir: string): Promise<{ started: number; ended: number }> {
  const into = mkdtempSync(join(tmpdir(), 'office-bench-backup-'));
  const started = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BACKUP_CLI, 'backup', '--into', into], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let errors = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
    child.once('exit', (code) => {
      const ended = performance.now();
      rmSync(into, { recursive: true, force: true });
      if (code === 0) done({ started, ended });
      else fail(new Error(`the backup failed (${code}): ${errors}`));
    });
  });
}

/**
 * Chat POST with metrics on (METRICS_TOKEN set) and off, servers started in turn on the same workspace: the
 * server's CPU per answer of each, as a ratio (the load generator shares the cores, so rates move with it).
 */
async function metricsCost(options: OperationsOptions): Promise<Measure> {
  const cpuOn: number[] = [];
  const cpuOff: number[] = [];
  const rounds = options.quick ? 2 : 3;
  for (let round = 0; round < rounds; round++) {
    for (const metrics of [true, false]) {
      const env = { ...options.serverEnv, ...(metrics ? { METRICS_TOKEN } : {}) };
      const server = await startServerProcess({ bundle: options.bundle, dataDir: options.dataDir, env });
      try {
        await untilQuiet();
        options.log(`metrics ${metrics ? 'on' : 'off'}: chat POST, 16 in flight, round ${round + 1}/${rounds}`);
        const cpu = cpuMeter([server.pid], null);
        const run = await cpu.around(() =>
          concurrentWriteRun(
            { url: server.url, sessions: options.sessions, quick: options.quick },
            '/api/messages',
            'chat POST',
          ),
        );
        (metrics ? cpuOn : cpuOff).push((cpu.spent().nodes * 1e6) / run.latencies.length);
      } finally {
        await stopServerProcess(server, 'SIGTERM');
      }
    }
  }
  const ratio = median(cpuOn) / median(cpuOff);
  return {
    name: `Chat POST server CPU with metrics on vs off, ${options.members} members (16 in flight)`,
    target: '≤ 1.1 ×',
    result: `${ratio.toFixed(2)} × (${Math.round(median(cpuOn))} vs ${Math.round(median(cpuOff))} µs per answer, medians of ${rounds} runs each, in turn)`,
    met: ratio <= 1.1,
    values: { ratio, cpuOnMicros: median(cpuOn), cpuOffMicros: median(cpuOff) },
  };
}

/**
 * Chat POSTs at a fixed rate, once alone and once while `npm run backup` copies the workspace: the p99 of the
 * requests due while the backup ran against the p99 of the run without it.
 */
async function latencyDuringBackup(options: OperationsOptions): Promise<Measure> {
  const rate = 200;
  const seconds = options.quick ? 8 : 20;
  const server: ServerProcess = await startServerProcess({
    bundle: options.bundle,
    dataDir: options.dataDir,
    env: options.serverEnv,
  });
  try {
    const load = (onAnswer?: (dueAt: number, latencyMs: number) => void) =>
      runPacedLoad({
        url: server.url,
        path: '/api/messages',
        method: 'POST',
        sessions: options.sessions,
        connections: 50,
        seconds,
        rate,
        body: JSON.stringify({ text: 'Benchmark message [<id>]' }),
        ...(onAnswer ? { onAnswer } : {}),
      });
    await untilQuiet();
    options.log(`chat POST at ${rate}/s for ${seconds} s, no backup`);
    const alone = percentiles((await load()).latencies);
    await untilQuiet();
    options.log(`chat POST at ${rate}/s for ${seconds} s, a backup started after 1 s`);
    const answers: { dueAt: number; latency: number }[] = [];
    const loaded = load((dueAt, latency) => answers.push({ dueAt, latency }));
    const backup = new Promise<void>((done) => setTimeout(done, 1000)).then(() => runBackup(options.dataDir));
    const [run, { started, ended }] = await Promise.all([loaded, backup]);
    const lastDue = Math.max(...answers.map(({ dueAt }) => dueAt));
    const during = answers.filter(({ dueAt }) => dueAt >= started && dueAt <= ended).map(({ latency }) => latency);
    const withBackup = percentiles(during.length ? during : run.latencies);
    const ratio = withBackup.p99 / alone.p99;
    const backupSeconds = (ended - started) / 1000;
    return {
      name: `Chat POST p99 during a backup vs without, ${options.members} members (${rate} req/s)`,
      target: '≤ 2 ×',
      result: `${ratio.toFixed(2)} × (during the backup ${latencyText(withBackup)}, ${during.length} requests in its ${backupSeconds.toFixed(1)} s; without ${latencyText(alone)})`,
      met: ratio <= 2 && run.non2xx + run.errors === 0,
      values: { ratio, duringP99: withBackup.p99, aloneP99: alone.p99, backupSeconds, requestsDuring: during.length },
      ...(ended > lastDue ? { note: 'The backup outlasted the load: its last part ran without requests.' } : {}),
    };
  } finally {
    await stopServerProcess(server, 'SIGTERM');
  }
}

/** `--only=ops`: what running it costs the server, metrics and a backup taken while it serves (issue 44). */
export async function measureOperations(options: OperationsOptions): Promise<Measure[]> {
  return [await metricsCost(options), await latencyDuringBackup(options)];
}
