import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bundleServerCopy, startServerProcess, stopServerProcess, type ServerProcess } from '../api/server-process';
import { measureBrowser } from './browser';
import { benchBundleDir, type BrowserBenchContext } from './context';
import { cpuMeter, untilQuiet, type CpuSpent } from './cpu';
import {
  axisValues,
  concurrentWriteRate,
  measureChatAtRate,
  measureTaskReads,
  measureWriteAxis,
  type WriteAxis,
} from './http-load';
import { measureLighthouse } from './lighthouse';
import { measureOperations } from './operations';
import { median, pairedRatio, watchAll, type Measure, type Watcher } from './measure';
import { measurePostgresGroup, type Setup } from './postgres';
import { measureFanOut, measureReconnectStorm } from './realtime';
import { formatTable, machineFacts, writeResults } from './report';
import { measureRowsPerMessage } from './rows';
import { measureHistoryAxis } from './history';
import { measureSearch, measureServerSearch } from './search';
import { fullOrg, quickOrg, seedingMeasure, seedOrganisation, type SeededOrg, type SeededUser } from './seed-org';
import { signInAll } from './session';
import { measureOfflineQueue, measurePushThroughput } from './sync-push';

const root = resolve(import.meta.dirname, '..');
const quick = process.argv.includes('--quick');
/** `--keep-data`: leaves the seeded DATA_DIRs (their paths are logged) for a closer look at a finding. */
const keepData = process.argv.includes('--keep-data');
/**
 * `--only=chat,push`: a subset of the figures, for looking into one finding
 * (bare chat push rows tasks offline fanout storm browser lighthouse search pg).
 */
const only = process.argv
  .find((arg) => arg.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
/** `--sizes=5,500`: the organisation sizes to measure (5, 500 and 5 000 people by default). */
const sizes = (
  process.argv
    .find((arg) => arg.startsWith('--sizes='))
    ?.slice('--sizes='.length)
    .split(',')
    .map(Number) ?? [5, 500, 5000]
).filter((n) => Number.isInteger(n) && n >= 5);
/** The organisation of the figures measured once (bootstrap, fan-out, offline replay): the 500 people. */
const MAIN_SIZE = 500;
/** The search figure needs one organisation's device, whatever its size: the main one when measured, else the largest. */
const SEARCH_SIZE = sizes.includes(MAIN_SIZE) ? MAIN_SIZE : sizes.at(-1);
const wants = (figure: string) => !only || only.includes(figure);
/**
 * `--history=1,10`: the history axis at the main size (or the one --sizes names): the history and that many
 * times it, measured one after the other and set side by side (bench/history.ts). Only that axis runs then: its
 * device figures with `browser` in --only (or no --only), the server search with `search`.
 */
const history = process.argv
  .find((arg) => arg.startsWith('--history='))
  ?.slice('--history='.length)
  .split(',')
  .map(Number)
  .filter((n) => Number.isInteger(n) && n >= 1);
const startedAt = new Date();
/** Progress goes to stderr; stdout carries only the table. */
const log = (line: string) =>
  process.stderr.write(`[bench ${((Date.now() - startedAt.getTime()) / 1000).toFixed(0)}s] ${line}\n`);

/**
 * The server's environment. Rate limits off (0): one load generator on one IP, with a few users
 * making thousands of requests a minute, would otherwise be answered 429 after 200 requests per
 * user (100 per IP unauthenticated) and the figures would measure the limiter, not the server.
 */
const serverEnv = {
  SEED_DEMO: '0',
  RATE_LIMIT_PER_USER: '0',
  RATE_LIMIT_PER_IP: '0',
  // The browser figures load the PWA from this server.
  SERVE_PWA: '1',
  LOG_LEVEL: 'warn',
};

/** How many of the organisation sign in (argon2 per sign-in): the load comes from this many people. */
const SIGNED_IN = 60;

/** The browser figures need the built PWA, and the server bundle finds it by walking up to pwa/dist. */
function ensureBuilt(): void {
  if (existsSync(join(root, 'pwa/dist/index.html')) && existsSync(join(root, 'api/dist/main.js'))) return;
  log('pwa/dist or api/dist is missing: running npm run build');
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', process.stderr, process.stderr] });
  if (build.status !== 0) throw new Error('npm run build failed');
}

const ms = (value: number) => (value < 10 ? value.toFixed(1) : value.toFixed(0));
const perSecond = (value: number) => `${Math.round(value).toLocaleString('en-US')}/s`;

/**
 * The server's CPU time per answer (every thread of its process), in µs: unlike its rate, the load generator's
 * share of the cores does not move it.
 */
const serverMicros = (spent: CpuSpent, answered: number) => (spent.nodes * 1e6) / answered;
const cpuPart = (micros: number) => `; server CPU ${Math.round(micros)} µs each`;

/**
 * The bare Fastify + better-sqlite3 server (bench/bare-server.ts), one durable row per request. It runs through
 * the SQLite figures: its own figure comes first, and the figures set against it alternate with runs of it (see
 * bareBeside).
 */
async function startBare(): Promise<{ server: ServerProcess; dataDir: string }> {
  const bundle = resolve(benchBundleDir, 'bare-server.mjs');
  const dataDir = mkdtempSync(join(tmpdir(), 'office-bench-bare-'));
  return { server: await startServerProcess({ bundle, dataDir }), dataDir };
}

async function measureBare(bare: ServerProcess, runs: number): Promise<WriteAxis & { cpuMicros: number }> {
  const cpu = cpuMeter([bare.pid], null);
  const axis = await measureWriteAxis(
    { url: bare.url, sessions: [], quick, runs, log, watch: cpu },
    '/rows',
    'bare server',
  );
  return { ...axis, cpuMicros: serverMicros(cpu.spent(), axis.answered) };
}

/** Runs of a figure set against the bare server: three even in a quick run, so that its ratio is a median. */
const PAIRED_RUNS = 3;

/** The bare server's runs around a figure's runs: one before each and one after the last (see pairedRatio). */
interface BareBeside extends Watcher {
  /** Runs the last one; every rate, in order. */
  finish(): Promise<number[]>;
}

/**
 * The bare server measured beside a figure of the product, each run after the machine is quiet, and each of the
 * product's runs too: ratios of runs taken minutes apart would carry the machine's drift.
 */
function bareBeside(bare: ServerProcess, figure: string): BareBeside {
  const rates: number[] = [];
  const runBare = async () => {
    await untilQuiet();
    const options = { url: bare.url, sessions: [], quick, runs: 1, log };
    rates.push(await concurrentWriteRate(options, '/rows', `bare server, beside ${figure}`));
    await untilQuiet();
  };
  return {
    async around<T>(work: () => Promise<T>): Promise<T> {
      await runBare();
      return work();
    },
    async finish() {
      await runBare();
      return rates;
    },
  };
}

interface SizeRun {
  members: number;
  chat?: WriteAxis;
  /** The bare server's rates around the chat runs with 16 in flight: what `chat` is set against. */
  bareBesideChat?: number[];
  /** CPU time of the chat runs with 16 in flight. */
  chatCpu?: CpuSpent;
  push?: { rate: number; rates: number[]; applied: number; cpu: CpuSpent };
  /** The bare server's rates around the push runs, at the main size. */
  bareBesidePush?: number[];
}

async function main(): Promise<void> {
  const measures: Measure[] = [];
  const runs = quick ? 1 : 3;
  ensureBuilt();
  const bundle = await bundleServerCopy();
  const results: SizeRun[] = [];
  let bare: (WriteAxis & { cpuMicros: number }) | null = null;
  let bareServer: { server: ServerProcess; dataDir: string } | null = null;
  const stopBare = async () => {
    if (!bareServer) return;
    await stopServerProcess(bareServer.server, 'SIGTERM');
    rmSync(bareServer.dataDir, { recursive: true, force: true });
    bareServer = null;
  };
  try {
    if (!history?.length && (wants('bare') || wants('chat') || wants('push'))) {
      log('bare Fastify + better-sqlite3 server: one durable row per request');
      bareServer = await startBare();
      bare = await measureBare(bareServer.server, runs);
      measures.push({
        name: 'Reference: bare Fastify + better-sqlite3, one durable row per POST',
        target: '—',
        result: `one at a time p50 ${ms(bare.sequentialP50)} ms; 16 in flight ${perSecond(bare.throughput)} (p99 ${ms(bare.throughputP99)} ms)${cpuPart(bare.cpuMicros)}`,
        met: null,
        values: { ...axisValues(bare), cpuMicros: bare.cpuMicros },
        note: 'Same durability as the product (WAL, synchronous=NORMAL, answers after a group fsync), no auth, no change log.',
      });
    }

    if (history?.length) {
      const members = sizes.includes(MAIN_SIZE) ? MAIN_SIZE : (sizes.at(-1) ?? MAIN_SIZE);
      measures.push(
        ...(await measureHistoryAxis({
          multipliers: history,
          members,
          size: quick ? quickOrg(members) : fullOrg(members),
          quick,
          device: wants('browser'),
          serverSearch: wants('search'),
          bundle,
          serverEnv,
          log,
          browserContext,
          signedIn: pickSignedIn,
        })),
      );
    }
    for (const members of history?.length ? [] : sizes) {
      const run: SizeRun = { members };
      results.push(run);
      const size = quick ? quickOrg(members) : fullOrg(members);
      const dataDir = mkdtempSync(join(tmpdir(), 'office-bench-'));
      let server: ServerProcess | null = null;
      try {
        log(
          `${members} members: seeding ${size.tasks} tasks, ${size.chatMessages} chat messages, ${size.conversations} conversations`,
        );
        const seedStarted = performance.now();
        const org = await seedOrganisation({ dataDir, databaseUrl: null }, size);
        const seedSeconds = (performance.now() - seedStarted) / 1000;
        measures.push(seedingMeasure(org, seedSeconds, members, { quick, database: 'SQLite' }));

        server = await startServerProcess({ bundle, dataDir, env: serverEnv });
        log(`${members} members: server at ${server.url}, DATA_DIR ${dataDir}`);
        const sessions = await signInAll(server.url, pickSignedIn(org));
        const figures = { url: server.url, sessions, quick, runs, log };
        // The pg figures are set beside SQLite's chat and push figures at the main size.
        const sqliteSide = wants('pg') && members === MAIN_SIZE;

        // The device figures come first: they are about the organisation as seeded (the 50 000 messages), which
        // the write figures below grow by hundreds of thousands of messages.
        if (wants('search') && members === SEARCH_SIZE) {
          log('server search figure');
          const messages = (org.counts.chat_messages ?? 0) + (org.counts.direct_messages ?? 0);
          measures.push(await measureServerSearch({ ...figures, sessions: sessions.slice(0, 20) }, messages));
          log('search figure');
          measures.push(...(await measureSearch(browserContext(org, server.url, dataDir, members), log)));
        }
        if (members === MAIN_SIZE && (wants('browser') || wants('lighthouse'))) {
          const context = browserContext(org, server.url, dataDir, members);
          if (wants('browser')) {
            log('browser figures');
            measures.push(...(await measureBrowser(context)));
          }
          if (wants('lighthouse')) {
            log('Lighthouse figures');
            measures.push(...(await measureLighthouse(context)));
          }
        }

        if (wants('chat') || sqliteSide) {
          const cpu = cpuMeter([server.pid], null);
          const beside = bareServer && bareBeside(bareServer.server, `chat POST, ${members} members`);
          run.chat = await measureWriteAxis(
            { ...figures, ...(beside ? { runs: PAIRED_RUNS, watch: watchAll(beside, cpu) } : { watch: cpu }) },
            '/api/messages',
            `chat POST, ${members} members`,
          );
          run.chatCpu = cpu.spent();
          if (beside) run.bareBesideChat = await beside.finish();
          measures.push({
            name: `Chat message POST, ${members} members (answered once on disk)`,
            target: '—',
            result: `one at a time p50 ${ms(run.chat.sequentialP50)} ms; 16 in flight ${perSecond(run.chat.throughput)} (p99 ${ms(run.chat.throughputP99)} ms)${cpuPart(serverMicros(run.chatCpu, run.chat.answered))}`,
            met: null,
            values: { ...axisValues(run.chat), members, cpuMicros: serverMicros(run.chatCpu, run.chat.answered) },
          });
          if (members === MAIN_SIZE && wants('chat')) measures.push(await measureChatAtRate(figures, members));
        }
        if (wants('rows')) measures.push(await measureRowsPerMessage({ url: server.url, sessions, dataDir }, members));
        const pushOptions = { ...figures, dataDir, org };
        if (wants('push') || sqliteSide) {
          const cpu = cpuMeter([server.pid], null);
          const beside = bareServer && members === MAIN_SIZE && bareBeside(bareServer.server, 'sync push');
          const push = await measurePushThroughput(
            { ...pushOptions, ...(beside ? { runs: PAIRED_RUNS, watch: watchAll(beside, cpu) } : { watch: cpu }) },
            members,
          );
          run.push = { rate: push.rate, rates: push.rates, applied: push.applied, cpu: cpu.spent() };
          if (beside) run.bareBesidePush = await beside.finish();
          const cpuMicros = serverMicros(run.push.cpu, push.applied);
          measures.push({
            ...push.measure,
            result: `${push.measure.result}${cpuPart(cpuMicros)} (per mutation)`,
            values: { ...push.measure.values, cpuMicros },
          });
        }
        if (members !== MAIN_SIZE) continue;

        // The write figures leave background work behind (the push queue reading their messages, checkpoints).
        await untilQuiet();
        if (wants('tasks')) measures.push(...(await measureTaskReads(figures)));
        if (wants('offline')) measures.push(await measureOfflineQueue(pushOptions));
        const realtime = { server, sessions, quick, log };
        if (wants('fanout') || wants('storm')) {
          const fanOut = await measureFanOut(realtime);
          measures.push(...fanOut.measures);
          if (wants('storm')) {
            const storm = await measureReconnectStorm({ ...realtime, bundle, env: serverEnv }, fanOut.fleet);
            server = storm.server;
            measures.push(...storm.measures);
          } else {
            fanOut.fleet.close();
          }
        }
        if (wants('ops')) {
          // Its own servers on this workspace, one at a time.
          await stopServerProcess(server, 'SIGTERM');
          server = null;
          log('operations figures: metrics on and off, a backup while the server serves');
          measures.push(...(await measureOperations({ bundle, dataDir, serverEnv, sessions, members, quick, log })));
        }
      } finally {
        if (server) await stopServerProcess(server, 'SIGTERM');
        if (keepData) log(`kept ${dataDir}`);
        else rmSync(dataDir, { recursive: true, force: true });
      }
    }
    await stopBare();
    measures.push(...axisMeasures(results));
    if (wants('pg') && !history?.length) {
      const sqlite = sqliteSetup(results.find((run) => run.members === MAIN_SIZE));
      if (sqlite) {
        measures.push(
          ...(await measurePostgresGroup({
            bundle,
            size: quick ? quickOrg(MAIN_SIZE) : fullOrg(MAIN_SIZE),
            members: MAIN_SIZE,
            quick,
            runs,
            keepData,
            log,
            serverEnv,
            signedIn: pickSignedIn,
            sqlite,
          })),
        );
      } else {
        log(`pg figures skipped: they are measured at ${MAIN_SIZE} members, which --sizes leaves out`);
      }
    }
  } finally {
    await stopBare();
    rmSync(bundle, { force: true });
  }

  const machine = machineFacts(quick);
  const file = writeResults(join(root, 'bench/results'), machine, measures, startedAt);
  process.stdout.write(
    `\nOffice workspace benchmark (${machine.mode}; ${machine.cpus} cpus, ${(machine.memoryBytes / 2 ** 30).toFixed(0)} GB, Node ${machine.node}; the load generator runs on the same cores)\n\n${formatTable(measures)}\n`,
  );
  log(`results written to ${file} and bench/results/latest.json`);
}

/** What the browser figures need: the server, and a manager and an employee with tasks to sign in as. */
function browserContext(org: SeededOrg, url: string, dataDir: string, members: number): BrowserBenchContext {
  const manager = org.users.find((user) => user.role === 'manager');
  const employee = org.users.find((user) => user.role === 'employee' && org.tasksByAssignee.has(user.id));
  if (!manager || !employee) throw new Error('the seeded organisation has no manager or no employee with tasks');
  const credentials = (user: SeededUser) => ({ email: user.email, password: user.password });
  return { url, quick, dataDir, members, manager: credentials(manager), employee: credentials(employee) };
}

/** The people who sign in: managers first (the bootstrap and the offline reader are managers), then employees with work. */
function pickSignedIn(org: SeededOrg): SeededUser[] {
  const staff = org.users.filter((user) => user.role !== 'employee');
  const withWork = org.users.filter((user) => user.role === 'employee' && org.tasksByAssignee.has(user.id));
  const others = org.users.filter((user) => user.role === 'employee' && !org.tasksByAssignee.has(user.id));
  return [...staff, ...withWork, ...others].slice(0, SIGNED_IN);
}

/** The SQLite server's chat and push figures at one size, as the pg figures compare them. */
function sqliteSetup(run: SizeRun | undefined): Setup | null {
  if (!run?.chat || !run.chatCpu || !run.push) return null;
  return {
    label: 'SQLite, one node',
    nodes: 1,
    chat: { rate: run.chat.throughput, units: run.chat.answered, cpu: run.chatCpu },
    push: { rate: run.push.rate, units: run.push.applied, cpu: run.push.cpu },
  };
}

/** The chat runs of one size set against the bare server's runs beside them. */
const chatVsBare = (run: SizeRun | undefined) =>
  run?.chat && run.bareBesideChat ? pairedRatio(run.chat.rates, run.bareBesideChat) : null;

/** "9,402/s vs 14,126/s, 3 runs of each, alternating" */
const besideText = (product: number[], bare: number[]) =>
  `median ${perSecond(median(product))} vs ${perSecond(median(bare))}, ${product.length} runs of the product between ${bare.length} of the bare server`;

/** The targets across the organisation sizes and against the bare server. */
function axisMeasures(results: SizeRun[]): Measure[] {
  const measures: Measure[] = [];
  const bySize = (members: number) => results.find((run) => run.members === members);
  const smallest = results[0];
  const largest = results.at(-1);
  if (smallest?.chat && largest?.chat && largest !== smallest) {
    const ratio = largest.chat.throughput / smallest.chat.throughput;
    // Each size's server runs minutes after the other's: set against the bare server beside each, the machine's drift
    // in between drops out of the ratio.
    const [large, small] = [chatVsBare(largest), chatVsBare(smallest)];
    const steady = large !== null && small !== null ? large / small : null;
    const rates = `${perSecond(largest.chat.throughput)} vs ${perSecond(smallest.chat.throughput)}`;
    measures.push({
      name: `Chat POST throughput, ${largest.members} vs ${smallest.members} members`,
      target: '≥ 0.8 ×',
      result:
        steady === null
          ? `${ratio.toFixed(2)} × (${rates})`
          : `${steady.toFixed(2)} × each set against the bare server beside it (${ratio.toFixed(2)} × as measured: ${rates}, minutes apart)`,
      met: (steady ?? ratio) >= 0.8,
      values: {
        ratio,
        ...(steady === null ? {} : { ratioAgainstBare: steady }),
        large: largest.chat.throughput,
        small: smallest.chat.throughput,
      },
    });
  }
  for (const run of results) {
    const ratio = chatVsBare(run);
    if (ratio === null || !run.chat || !run.bareBesideChat) continue;
    measures.push({
      name: `Chat POST throughput vs the bare server, ${run.members} members`,
      target: '≥ 0.5 ×',
      result: `${ratio.toFixed(2)} × (${besideText(run.chat.rates, run.bareBesideChat)})`,
      met: ratio >= 0.5,
      values: { ratio, product: run.chat.throughput, bare: median(run.bareBesideChat), members: run.members },
    });
  }
  const main = bySize(MAIN_SIZE);
  if (main?.push && main.bareBesidePush) {
    const ratio = pairedRatio(main.push.rates, main.bareBesidePush);
    measures.push({
      name: `/api/sync/push mutations/s vs the bare server's requests/s, ${MAIN_SIZE} members`,
      target: '≥ 1.5 ×',
      result: `${ratio.toFixed(2)} × (${besideText(main.push.rates, main.bareBesidePush)})`,
      met: ratio >= 1.5,
      values: { ratio, push: main.push.rate, bare: median(main.bareBesidePush) },
    });
  }
  return measures;
}

await main();
// Sockets, timers and autocannon's agents may linger; the run is over.
process.exit(0);
