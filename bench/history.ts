import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from '@playwright/test';
import { chromiumLaunchOptions } from '../e2e/chromium';
import { startServerProcess, stopServerProcess } from '../api/server-process';
import {
  coldStarts,
  measureBootstrap,
  readServerCounts,
  serviceWorkerInControl,
  tabKeys,
  type ServerCounts,
} from './browser';
import type { BenchCredentials, BrowserBenchContext } from './context';
import { median, percentiles, type Measure } from './measure';
import { measureServerSearch, queries, timeQuery } from './search';
import type { OrgSize, SeededOrg, SeededUser } from './seed-org';
import { seedOrganisation } from './seed-org';
import { signInAll } from './session';

// Issue 46's history axis (`--history=1,10`): the same organisation with a longer past, and what a device pays for
// it on its first sign-in and after. The targets ask that ten times the history cost a device at most 1.2 times as
// much, and set bounds on a member's first sign-in at ten times.

/**
 * The organisation of `size` with `times` its history: its past goes back `times` as far, at the same pace. The
 * team chat and the direct conversations have `times` as many messages; today's work (the open tasks and those
 * completed lately) is the same, and the past adds tasks completed before the last 30 days at today's rate, so
 * `times` as many tasks in all. Multiplying today's open work too would measure a larger organisation, not a
 * longer history.
 */
export const withHistory = (size: OrgSize, times: number): OrgSize => ({
  ...size,
  pastTasks: size.pastTasks + size.tasks * (times - 1),
  chatMessages: size.chatMessages * times,
  conversations: size.conversations * times,
  historyDays: size.historyDays * times,
});

/** What a first sign-in cost a device. */
interface SignInCosts {
  /** The pull pages over the network as sent (compressed), and decoded. */
  transferBytes: number;
  bodyBytes: number;
  /** What IndexedDB holds once the window of history is stored (the browser's own estimate for the origin). */
  indexedDbBytes: number;
  toDashboardMs: number;
  toStoredMs: number;
}

/** What one history cost the manager's device (who sees every task), and an employee's first sign-in. */
interface DeviceCosts extends SignInCosts {
  /** Offline cold start to an interactive dashboard, median. */
  coldStartMs: number;
  /** Keystroke to painted results, p95, offline (the device's own index). */
  localSearchP95Ms: number;
  /** The page's JS heap after the searches, after a garbage collection. */
  heapBytes: number;
  member: SignInCosts;
}

/** One first sign-in on a fresh device, until its window of history is stored; the device stays open. */
async function firstSignIn(
  browser: Browser,
  bench: BrowserBenchContext,
  who: BenchCredentials,
  log: (line: string) => void,
): Promise<{ costs: SignInCosts; counts: ServerCounts; boot: Awaited<ReturnType<typeof measureBootstrap>> }> {
  const counts = await readServerCounts(bench.url, who, bench.dataDir);
  const whom = who === bench.manager ? 'the manager' : 'an employee';
  log(`history: first sign-in of ${whom} (${counts.tasks} tasks, ${counts.messages} chat messages)`);
  // A device holding the whole history took minutes to download ten times it (the issue measured 93 s at four times).
  const boot = await measureBootstrap(browser, bench, counts, 10 * 60_000, who);
  const values = boot.measure.values;
  const at = (name: string) => `${((values[name] ?? Number.NaN) / 1000).toFixed(1)} s`;
  log(
    `history, ${whom}: ${boot.measure.result}; signed in ${at('login')}, first page asked ` +
      `${at('firstPageRequested')}, last page down ${at('lastPageDownloaded')}`,
  );
  if (!Number.isFinite(values.toIndexedDb)) {
    await boot.context.close();
    throw new Error(`the bootstrap of ${whom} did not finish: ${boot.measure.result}`);
  }
  const indexedDbBytes = await boot.page.evaluate(async () => {
    const estimate = (await navigator.storage.estimate()) as StorageEstimate & {
      usageDetails?: { indexedDB?: number };
    };
    return estimate.usageDetails?.indexedDB ?? estimate.usage ?? Number.NaN;
  });
  return {
    boot,
    counts,
    costs: {
      transferBytes: values.transferBytes ?? Number.NaN,
      bodyBytes: values.bodyBytes ?? Number.NaN,
      indexedDbBytes,
      toDashboardMs: values.toDashboard ?? Number.NaN,
      toStoredMs: values.toIndexedDb ?? Number.NaN,
    },
  };
}

/** An employee's first sign-in, then the manager's, cold starts offline and searches: every device figure of one history. */
async function measureDevice(bench: BrowserBenchContext, log: (line: string) => void): Promise<DeviceCosts> {
  process.env.PW_EXPERIMENTAL_SERVICE_WORKER_NETWORK_EVENTS ??= '1';
  const browser = await chromium.launch(chromiumLaunchOptions);
  try {
    const member = await firstSignIn(browser, bench, bench.employee, log);
    await member.boot.context.close();
    const { costs, counts, boot } = await firstSignIn(browser, bench, bench.manager, log);
    try {
      await serviceWorkerInControl(boot.page);
      log('history: cold starts offline');
      const runs = await coldStarts(boot.context, boot.page, counts.tasks, bench.quick ? 2 : 3);
      // Still offline: the device's own search, in a tab of the installed app.
      const page = await boot.context.newPage();
      await page.addInitScript((keys) => {
        sessionStorage.setItem(keys.splashShown, 'true');
        sessionStorage.setItem(keys.hasActiveSession, 'true');
      }, tabKeys);
      await page.goto('/dashboard');
      await page.getByRole('heading', { level: 1 }).waitFor({ timeout: 60_000 });
      await page.keyboard.press('Control+k');
      await page.getByText(/^Find tasks, comments, team chat/).waitFor({ timeout: 120_000 });
      log('history: local search');
      const samples: number[] = [];
      for (let round = 0; round < (bench.quick ? 2 : 3); round++)
        for (const query of queries) samples.push((await timeQuery(page, query)).toFrame);
      const cdp = await boot.context.newCDPSession(page);
      await cdp.send('HeapProfiler.collectGarbage');
      const heap = await cdp.send('Runtime.getHeapUsage');
      await cdp.detach();
      return {
        ...costs,
        coldStartMs: median(runs.map((run) => run.interactive)),
        localSearchP95Ms: percentiles(samples).p95,
        heapBytes: heap.usedSize,
        member: member.costs,
      };
    } finally {
      await boot.context.close();
    }
  } finally {
    await browser.close();
  }
}

export interface HistoryAxisOptions {
  multipliers: number[];
  members: number;
  /** The organisation at the history (1×). */
  size: OrgSize;
  quick: boolean;
  /** Which figures: the device's (browser) and the server search's (search). */
  device: boolean;
  serverSearch: boolean;
  bundle: string;
  serverEnv: Record<string, string>;
  log: (line: string) => void;
  browserContext(org: SeededOrg, url: string, dataDir: string, members: number): BrowserBenchContext;
  signedIn(org: SeededOrg): SeededUser[];
}

interface HistoryRun {
  times: number;
  size: OrgSize;
  device: DeviceCosts | Error | null;
  serverSearch: Measure | null;
  messages: number;
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const msText = (ms: number) => `${ms.toFixed(0)} ms`;

/** The history axis: each multiplier seeded, served and measured in turn, then the figures side by side. */
export async function measureHistoryAxis(options: HistoryAxisOptions): Promise<Measure[]> {
  const runs: HistoryRun[] = [];
  for (const times of options.multipliers) {
    const size = withHistory(options.size, times);
    const dataDir = mkdtempSync(join(tmpdir(), 'office-bench-history-'));
    let server = null;
    try {
      options.log(
        `history ${times}×: seeding ${size.tasks + size.pastTasks} tasks (${size.pastTasks} completed long ago), ${size.chatMessages} chat messages, ${size.conversations} conversations over ${size.historyDays} days`,
      );
      const org = await seedOrganisation({ dataDir, databaseUrl: null }, size);
      server = await startServerProcess({ bundle: options.bundle, dataDir, env: options.serverEnv });
      const sessions = await signInAll(server.url, options.signedIn(org).slice(0, 20));
      const messages = (org.counts.chat_messages ?? 0) + (org.counts.direct_messages ?? 0);
      const serverSearch = options.serverSearch
        ? await measureServerSearch({ url: server.url, sessions, quick: options.quick, log: options.log }, messages)
        : null;
      let device: DeviceCosts | Error | null = null;
      if (options.device) {
        try {
          device = await measureDevice(options.browserContext(org, server.url, dataDir, options.members), options.log);
        } catch (error) {
          device = error instanceof Error ? error : new Error(String(error));
        }
      }
      runs.push({ times, size, device, serverSearch, messages });
    } finally {
      if (server) await stopServerProcess(server, 'SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return historyMeasures(runs);
}

/** A figure's raw numbers by history (`x1`, `x10`) and their ratio, for the JSON file. */
function valuesBy(runs: HistoryRun[], values: number[], ratio: number): Record<string, number> {
  const byRun: Record<string, number> = { ratio };
  runs.forEach((run, at) => (byRun[`x${run.times}`] = values[at] ?? Number.NaN));
  return byRun;
}

/** One row per figure: each history's value side by side, and the largest over the smallest. */
function historyMeasures(runs: HistoryRun[]): Measure[] {
  const [small, large] = [runs[0], runs.at(-1)];
  if (!small || !large) return [];
  const label = (run: HistoryRun) =>
    `${run.times}× (${run.size.tasks + run.size.pastTasks} tasks, ${run.messages} messages)`;
  // The bounds on a member's first sign-in at its largest history; the manager, who sees every task, is the
  // heaviest device and is held to the ratio.
  const figures: {
    name: string;
    pick(costs: DeviceCosts): number;
    show(value: number): string;
    bound?: number;
  }[] = [
    {
      name: 'an employee’s first sign-in, bytes over the network (as sent)',
      pick: (c) => c.member.transferBytes,
      show: mb,
      bound: 5 * 2 ** 20,
    },
    {
      name: 'an employee’s first sign-in, IndexedDB once the window is stored',
      pick: (c) => c.member.indexedDbBytes,
      show: mb,
      bound: 20 * 2 ** 20,
    },
    {
      name: 'an employee’s first sign-in, time to an interactive dashboard',
      pick: (c) => c.member.toDashboardMs,
      show: sec,
      bound: 2000,
    },
    {
      name: 'an employee’s first sign-in, time until the window is stored offline',
      pick: (c) => c.member.toStoredMs,
      show: sec,
      bound: 10_000,
    },
    { name: 'the manager’s first sign-in, bytes over the network (as sent)', pick: (c) => c.transferBytes, show: mb },
    { name: 'the manager’s first sign-in, JSON decoded', pick: (c) => c.bodyBytes, show: mb },
    { name: 'the manager’s IndexedDB once the window is stored', pick: (c) => c.indexedDbBytes, show: mb },
    { name: 'the manager’s time to an interactive dashboard', pick: (c) => c.toDashboardMs, show: sec },
    { name: 'the manager’s time until the window is stored offline', pick: (c) => c.toStoredMs, show: sec },
    { name: 'cold start offline, manager (median)', pick: (c) => c.coldStartMs, show: msText },
    { name: 'local search, keystroke to painted results (p95)', pick: (c) => c.localSearchP95Ms, show: msText },
    { name: 'JS heap after searching', pick: (c) => c.heapBytes, show: mb },
  ];
  const measured = runs.some((run) => run.device !== null);
  const measures: Measure[] = (measured ? figures : []).map((figure) => {
    const values = runs.map((run) =>
      run.device === null || run.device instanceof Error ? Number.NaN : figure.pick(run.device),
    );
    const largest = values.at(-1) ?? Number.NaN;
    const ratio = largest / (values[0] ?? Number.NaN);
    const failures = runs.flatMap((run) =>
      run.device instanceof Error ? [`${run.times}×: ${run.device.message}`] : [],
    );
    const ratioMet = runs.length > 1 && Number.isFinite(ratio) ? ratio <= 1.2 : null;
    const boundMet = figure.bound === undefined ? null : largest <= figure.bound;
    const targets = [
      ...(runs.length > 1 ? [`${large.times}× ≤ 1.2 × ${small.times}×`] : []),
      ...(figure.bound === undefined ? [] : [`${large.times}× ≤ ${figure.show(figure.bound)}`]),
    ];
    return {
      name: `History axis: ${figure.name}`,
      target: targets.length ? targets.join('; ') : '—',
      result:
        runs.map((run, at) => `${label(run)}: ${figure.show(values[at] ?? Number.NaN)}`).join(' | ') +
        (runs.length > 1 ? ` | ratio ${ratio.toFixed(2)}` : ''),
      met: ratioMet === null && boundMet === null ? null : ratioMet !== false && boundMet !== false,
      values: valuesBy(runs, values, ratio),
      ...(failures.length ? { note: `Not measured: ${failures.join('; ')}` } : {}),
    };
  });
  if (runs.some((run) => run.serverSearch === null)) return measures;
  const searchValues = runs.map((run) => run.serverSearch?.values.p95 ?? Number.NaN);
  const searchRatio = (searchValues.at(-1) ?? Number.NaN) / (searchValues[0] ?? Number.NaN);
  measures.push({
    name: 'History axis: server search at 20/s (p95)',
    target: 'p95 ≤ 100 ms',
    result:
      runs.map((run, at) => `${label(run)}: ${msText(searchValues[at] ?? Number.NaN)}`).join(' | ') +
      (runs.length > 1 ? ` | ratio ${searchRatio.toFixed(2)}` : ''),
    met: searchValues.every((value) => value <= 100),
    values: valuesBy(runs, searchValues, searchRatio),
    note: runs.map((run) => `${run.times}×: ${run.serverSearch?.result ?? ''}`).join('; '),
  });
  return measures;
}
