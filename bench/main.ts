import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bundleTestServer, startServerProcess, stopServerProcess, type ServerProcess } from '../api/src/test-process';
import { measureBrowser } from './browser';
import { measureChatPosts, measureTaskReads } from './http-load';
import { measureLighthouse } from './lighthouse';
import type { Measure } from './measure';
import { measureFanOut, measureReconnectStorm } from './realtime';
import { formatTable, machineFacts, writeResults } from './report';
import { fullOrg, quickOrg, seedOrganisation, type SeededUser } from './seed-org';
import { signInAll } from './session';
import { measureOfflineQueue, measurePushThroughput } from './sync-push';

const root = resolve(import.meta.dirname, '..');
const quick = process.argv.includes('--quick');
/** `--keep-data`: leaves the seeded DATA_DIR (its path is logged) for a closer look at a finding. */
const keepData = process.argv.includes('--keep-data');
/** `--only=chat,push`: a subset of the figures, for looking into one finding (tasks chat push offline fanout storm browser lighthouse). */
const only = process.argv
  .find((arg) => arg.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const wants = (figure: string) => !only || only.includes(figure);
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

/** The browser figures need the built PWA, and the server bundle finds it by walking up to pwa/dist. */
function ensureBuilt(): void {
  if (existsSync(join(root, 'pwa/dist/index.html')) && existsSync(join(root, 'api/dist/main.js'))) return;
  log('pwa/dist or api/dist is missing: running npm run build');
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', process.stderr, process.stderr] });
  if (build.status !== 0) throw new Error('npm run build failed');
}

async function main(): Promise<void> {
  const measures: Measure[] = [];
  const runs = quick ? 1 : 3;
  const size = quick ? quickOrg : fullOrg;
  ensureBuilt();
  const bundle = await bundleTestServer();
  const dataDir = mkdtempSync(join(tmpdir(), 'office-bench-'));
  let server: ServerProcess | null = null;
  try {
    log(
      `seeding ${size.users} users, ${size.tasks} tasks, ${size.chatMessages} chat messages, ${size.conversations} conversations`,
    );
    const seedStarted = performance.now();
    const org = await seedOrganisation(dataDir, size);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    measures.push({
      name: `Seeding through the domain commands${quick ? ' (quick: a smaller organisation)' : ''}`,
      target: '—',
      result: `${seedSeconds.toFixed(1)} s: ${org.counts.users} users, ${org.counts.tasks} tasks, ${org.counts.chat_messages} chat messages, ${org.counts.conversations} conversations, ${org.counts.direct_messages} direct messages, ${org.counts.notifications} notifications`,
      met: null,
      values: { seconds: seedSeconds, ...org.counts },
      note: 'Every chat message notifies the 49 other users, as the app does, so the notifications outnumber the messages.',
    });

    server = await startServerProcess({ bundle, dataDir, env: serverEnv });
    log(`server at ${server.url}, DATA_DIR ${dataDir}`);
    const sessions = await signInAll(server.url, org.users);
    const figures = { url: server.url, sessions, quick, runs, log };

    if (wants('tasks')) measures.push(...(await measureTaskReads(figures)));
    if (wants('chat')) measures.push(...(await measureChatPosts(figures)));
    const pushOptions = { ...figures, dataDir, org };
    if (wants('push')) measures.push(await measurePushThroughput(pushOptions));
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

    if (wants('browser') || wants('lighthouse')) {
      const manager = org.users.find((user) => user.role === 'manager');
      const employee = org.users.find((user) => user.role === 'employee' && org.tasksByAssignee.has(user.id));
      if (!manager || !employee) throw new Error('the seeded organisation has no manager or no employee with tasks');
      const credentials = (user: SeededUser) => ({ email: user.email, password: user.password });
      const context = {
        url: server.url,
        quick,
        dataDir,
        manager: credentials(manager),
        employee: credentials(employee),
      };
      if (wants('browser')) {
        log('browser figures');
        measures.push(...(await measureBrowser(context)));
      }
      if (wants('lighthouse')) {
        log('Lighthouse figures');
        measures.push(...(await measureLighthouse(context)));
      }
    }
  } finally {
    if (server) await stopServerProcess(server, 'SIGTERM');
    if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    rmSync(bundle, { force: true });
  }

  const machine = machineFacts(quick);
  const file = writeResults(join(root, 'bench/results'), machine, measures, startedAt);
  process.stdout.write(
    `\nOffice workspace benchmark (${machine.mode}; ${machine.cpus} cpus, ${(machine.memoryBytes / 2 ** 30).toFixed(0)} GB, Node ${machine.node})\n\n${formatTable(measures)}\n`,
  );
  log(`results written to ${file} and bench/results/latest.json`);
}

await main();
// Sockets, timers and autocannon's agents may linger; the run is over.
process.exit(0);
