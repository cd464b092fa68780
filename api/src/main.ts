import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { buildApp } from './app';
import { loadConfig, type Config } from './config';
import { DEMO_PASSWORD, demoAccounts, isEmpty, seedDemo } from './db/seed';
import { scheduleDueChecks } from './jobs/due-checks';
import { scheduleMorningDigests } from './jobs/morning-digest';
import { UploadStore } from './domain/chat/uploads';
import { scheduleBackups } from './backup/scheduled-backups';
import { scheduleAuditRetention } from './jobs/audit-retention';

/** The built PWA sits in pwa/dist beside this bundle's workspace. */
function pwaDist(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'pwa', 'dist');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    dir = dirname(dir);
  }
  return null;
}

/** The configuration, or the reason this node cannot start, said plainly (no stack trace) before exiting. */
function configOrExit(): Config {
  try {
    // SERVE_PWA=0 serves the API alone (the tests' child servers, which must not depend on a build in progress).
    return loadConfig(process.env, { staticDir: process.env.SERVE_PWA === '0' ? null : pwaDist() });
  } catch (error) {
    process.stderr.write(`Office Workspace cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}

const config = configOrExit();
const app = await buildApp({ config });

// Nodes that start together on one PostgreSQL take turns: the first seeds, the others find the workspace full.
await app.exclusively(async () => {
  if (!config.seedDemo || !(await isEmpty(app.db))) return;
  await seedDemo(app.db, app.flush, { uploads: new UploadStore(config.dataDir) });
  app.log.info('Seeded the demo workspace');
});

const stopDueChecks = scheduleDueChecks(app.db, app.flush, (error) =>
  app.log.error({ err: error }, 'due checks failed'),
);
const stopDigests = config.digestCheckSeconds
  ? scheduleMorningDigests(app.db, app.flush, config.digestCheckSeconds * 1000, (error) =>
      app.log.error({ err: error }, 'morning digests failed'),
    )
  : () => undefined;
const stopBackups = scheduleBackups(app, config);
const stopAuditRetention = scheduleAuditRetention(app.db, config.auditKeepDays, (error) =>
  app.log.error({ err: error }, 'audit retention failed'),
);
app.addHook('onClose', (_instance, done) => {
  stopDueChecks();
  stopDigests();
  stopBackups();
  stopAuditRetention();
  done();
});

/** Requests in flight get this long to finish; the rest of the 10 s is for closing sockets and the database. */
const DRAIN_MS = 8_000;
const SHUTDOWN_LIMIT_MS = 10_000;

let closing = false;
const shutdown = (signal: string) => {
  if (closing) return;
  closing = true;
  app.log.info(`${signal}: answering 503 to new requests, finishing those in flight, then closing`);
  const force = setTimeout(() => process.exit(1), SHUTDOWN_LIMIT_MS);
  force.unref();
  app
    .drain(DRAIN_MS)
    .then(() => app.close())
    .then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
};
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));

await app.listen({ port: config.port, host: config.host });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : config.port;
const lines = [
  '',
  `  Office Workspace is running at http://localhost:${port}`,
  config.staticDir ? '' : '  (API only: the PWA is not built; run npm run build)',
  config.seedDemo ? `  Demo accounts (password ${DEMO_PASSWORD}):` : '',
  ...(config.seedDemo ? demoAccounts.map((a) => `    ${a.email.padEnd(22)} ${a.role}`) : []),
  '',
].filter((line, i, all) => line !== '' || i === 0 || i === all.length - 1);
process.stdout.write(`${lines.join('\n')}\n`);
