import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { Watcher } from './measure';

/** CPU seconds spent during the measured runs, by who spent them. */
export interface CpuSpent {
  /** The server processes (every node together). */
  nodes: number;
  /** PostgreSQL's processes: the postmaster and every backend; 0 without PostgreSQL. */
  postgres: number;
  /** This process: the load generator. */
  loadGenerator: number;
  /** Every core of the machine, busy or not: what was there to spend. */
  available: number;
  /** Every core of the machine, busy: the above and whatever else runs on the machine. */
  busy: number;
}

/** Tallies, over the runs it watches, the CPU time of the servers, of PostgreSQL, of the load generator and of the machine. */
export interface CpuMeter extends Watcher {
  spent(): CpuSpent;
}

/** /proc's CPU times are in clock ticks (USER_HZ). */
let ticksPerSecond: number | undefined;
const ticks = () => (ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })));

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces), numbered as proc(5) numbers them. */
function statFields(pid: number): (field: number) => number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (field) => Number(fields[field - 3]);
}

/** utime + stime of one process (every thread of it), in seconds. */
function processSeconds(pid: number): number {
  const field = statFields(pid);
  return (field(14) + field(15)) / ticks();
}

/**
 * PostgreSQL's CPU seconds so far: the postmaster's, its live children's (backends, WAL writer, checkpointer), and
 * those of the children that have exited (cutime + cstime of the postmaster, which reaps them).
 */
function postgresSeconds(postmaster: number): number {
  const own = statFields(postmaster);
  let total = own(14) + own(15) + own(16) + own(17);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const field = statFields(Number(entry));
      if (field(4) === postmaster) total += field(14) + field(15);
    } catch {
      // Exited since the listing: its time is the postmaster's reaped time from now on.
    }
  }
  return total / ticks();
}

/** The machine's busy and total CPU seconds so far, over every core (/proc/stat). */
function machineSeconds(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.split(/\s+/).slice(1, 9).map(Number);
  const busy = (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0);
  return { busy: busy / ticks(), total: (busy + (idle ?? 0) + (iowait ?? 0)) / ticks() };
}

function sample(nodePids: number[], postmaster: number | null): CpuSpent {
  const machine = machineSeconds();
  const { user, system } = process.cpuUsage();
  return {
    nodes: nodePids.reduce((sum, pid) => sum + processSeconds(pid), 0),
    postgres: postmaster === null ? 0 : postgresSeconds(postmaster),
    loadGenerator: (user + system) / 1e6,
    available: machine.total,
    busy: machine.busy,
  };
}

/** A meter of the server processes `nodePids`, of the PostgreSQL whose postmaster is `postmaster` (if any), and of this process. */
export function cpuMeter(nodePids: number[], postmaster: number | null): CpuMeter {
  const tally: CpuSpent = { nodes: 0, postgres: 0, loadGenerator: 0, available: 0, busy: 0 };
  const keys = Object.keys(tally) as (keyof CpuSpent)[];
  return {
    async around(work) {
      const before = sample(nodePids, postmaster);
      const result = await work();
      const after = sample(nodePids, postmaster);
      for (const key of keys) tally[key] += after[key] - before[key];
      return result;
    },
    spent: () => ({ ...tally }),
  };
}

const perUnit = (seconds: number, units: number) => {
  const ms = (seconds * 1000) / units;
  return `${ms < 10 ? ms.toPrecision(2) : ms.toFixed(0)} ms`;
};

/** "node 0.21 ms, PostgreSQL 0.15 ms, load generator 0.05 ms, other processes 0.01 ms; cores 97 % busy" */
export function cpuText(spent: CpuSpent, units: number, nodeCount: number): string {
  const other = Math.max(0, spent.busy - spent.nodes - spent.postgres - spent.loadGenerator);
  const parts = [
    `${nodeCount === 1 ? 'node' : `${nodeCount} nodes`} ${perUnit(spent.nodes, units)}`,
    ...(spent.postgres > 0 ? [`PostgreSQL ${perUnit(spent.postgres, units)}`] : []),
    `load generator ${perUnit(spent.loadGenerator, units)}`,
    `other processes ${perUnit(other, units)}`,
  ];
  return `${parts.join(', ')}; cores ${Math.round((100 * spent.busy) / spent.available)} % busy`;
}

/**
 * Resolves once the machine has been quiet for a quarter of a second (under a tenth of its cores busy), or after
 * `limitMs`: what a figure set beside another waits for, so that the work before it (the seeding, a server's last
 * writes to disk) is not counted against it.
 */
export async function untilQuiet(limitMs = 15_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    const before = machineSeconds();
    await new Promise((resolve) => setTimeout(resolve, 250));
    const after = machineSeconds();
    if ((after.busy - before.busy) / (after.total - before.total) < 0.1) return;
  }
}
