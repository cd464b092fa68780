import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import {
  BINARIES_CACHE,
  closedFolderOnTheWay,
  initialiseCluster,
  postgresBinaries,
  serverAccount,
  startPostgres,
  type PostgresBinaries,
} from '../../local-postgres.mjs';
import { freePort } from '../../server-process';

// How a PostgreSQL that cannot start fails (api/local-postgres.mjs): at once, saying why, and leaving nothing behind.
// The clone of a developer under /root (mode 0700) made initdb's spawn fail with EACCES, which an unlistened error
// event turned into an unhandled error of the whole vitest run after a 60 s wait, with a password file left in /tmp.

const account = serverAccount();
const folders: string[] = [];

/** A folder the server's account owns, as startNewCluster makes them. */
function clusterFolder(): string {
  const folder = mkdtempSync(join('/tmp', 'office-pg-test-'));
  folders.push(folder);
  if (account !== null) chownSync(folder, account.uid, account.gid);
  return folder;
}

/** Binaries its account may not run: as root, real ones in a folder only root enters; otherwise files without x. */
function binariesOutOfReach(): PostgresBinaries {
  const folder = mkdtempSync(join('/tmp', 'office-pg-closed-'));
  folders.push(folder);
  const bin = join(folder, 'bin');
  mkdirSync(bin, { mode: 0o700 });
  const paths = { initdb: join(bin, 'initdb'), postgres: join(bin, 'postgres') };
  for (const path of Object.values(paths)) {
    copyFileSync('/bin/true', path);
    // Run as ourselves, a file without x is one we may not run.
    if (account === null) chmodSync(path, 0o644);
  }
  return paths;
}

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('a PostgreSQL that cannot start', () => {
  test('initdb that its account cannot run fails at once, says so, and leaves no password file', async () => {
    const folder = clusterFolder();
    const started = Date.now();
    const initialising = initialiseCluster({
      binaries: binariesOutOfReach(),
      dataDir: join(folder, 'data'),
      account,
      password: 'never left behind',
    });
    await expect(initialising).rejects.toThrow(/^initdb failed \(it could not be run: spawn \S+ EACCES\)/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(readdirSync(folder)).toEqual(['data']);
  });

  test('a server that stops while starting fails with its own last lines', async () => {
    const folder = clusterFolder();
    const dataDir = join(folder, 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    if (account !== null) chownSync(dataDir, account.uid, account.gid);
    // No initdb ran: the folder holds no cluster, and the server says what it misses.
    const starting = startPostgres({
      binaries: await postgresBinaries(account),
      dataDir,
      port: await freePort(),
      account,
    });
    await expect(starting).rejects.toThrow(
      /^PostgreSQL did not start: it stopped while starting \(exit code \d+\)\.\n.*postgresql\.conf.*No such file/s,
    );
  });

  test('a server its account cannot run fails at once instead of leaving the caller waiting', async () => {
    const started = Date.now();
    const starting = startPostgres({
      binaries: binariesOutOfReach(),
      dataDir: clusterFolder(),
      port: await freePort(),
      account,
    });
    await expect(starting).rejects.toThrow(/^PostgreSQL did not start: it could not be run: spawn \S+ EACCES/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe.runIf(account !== null)('as root', () => {
  test('the binaries run from a root-owned copy every account can read, outside the clone', async () => {
    const binaries = await postgresBinaries(account);
    expect(binaries.postgres.startsWith(`${BINARIES_CACHE}/`)).toBe(true);
    expect(closedFolderOnTheWay(binaries.postgres, account)).toBeNull();
    const { uid, mode } = statSync(binaries.postgres);
    expect(uid).toBe(0);
    expect(mode & 0o777).toBe(0o755);
  });

  test('a folder on the way that the account may not pass is named', () => {
    const folder = mkdtempSync(join('/tmp', 'office-pg-private-'));
    folders.push(folder);
    mkdirSync(join(folder, 'inner'));
    expect(closedFolderOnTheWay(join(folder, 'inner', 'bin'), account)).toBe(folder);
  });
});
