import Database from 'better-sqlite3';
import { existsSync, readdirSync } from 'node:fs';
import { cp, mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { makePrivateDir } from '../private-files';
import { moveChangeLogPast } from '../domain/change-log';
import { openWorkspaceDatabase } from '../db/open';
import {
  checkSqliteCopy,
  FILE_FOLDERS,
  PG_DUMP_FILE,
  readManifest,
  runProgram,
  SECRET_FILES,
  SQLITE_FILE,
  type BackupManifest,
} from './backup';

/**
 * How far a restore moves the change log's numbers: past any number the replaced server may have handed out after
 * the backup was taken. Every device's cursor is then below the new floor, so each downloads the workspace again
 * instead of pulling from a place in a history that no longer exists. (2^32 changes; numbers stay exact far past
 * a million restores.)
 */
export const RESTORE_LOG_JUMP = 2 ** 32;

export interface RestoreTarget {
  dataDir: string;
  databaseUrl: string | null;
  /** Replace what is there; the replaced files are moved aside into DATA_DIR, never deleted. */
  force: boolean;
  pgRestore?: string;
}

export interface RestoreResult {
  manifest: BackupManifest;
  /** Where the replaced files went (with force), or null. */
  setAside: string | null;
  /** The change-log floor devices find: every cursor below it downloads again. */
  floor: number;
}

/** What of DATA_DIR a restore would replace. */
function occupied(dataDir: string): string[] {
  const found: string[] = [];
  if (existsSync(join(dataDir, SQLITE_FILE))) found.push(SQLITE_FILE);
  for (const folder of FILE_FOLDERS) {
    const dir = join(dataDir, folder);
    if (existsSync(dir) && readdirSync(dir).length) found.push(`${folder}/`);
  }
  return found;
}

/** Restores a backup into DATA_DIR (and DATABASE_URL's database), refusing to replace a workspace unless forced. */
export async function restoreBackup(from: string, target: RestoreTarget, now = new Date()): Promise<RestoreResult> {
  const manifest = await readManifest(from);
  if ((manifest.dialect === 'postgres') !== (target.databaseUrl !== null))
    throw new Error(
      manifest.dialect === 'postgres'
        ? 'This backup is of a PostgreSQL workspace: set DATABASE_URL to the database to restore it into.'
        : 'This backup is of a SQLite workspace: unset DATABASE_URL to restore it into DATA_DIR.',
    );
  makePrivateDir(target.dataDir);
  const inTheWay = occupied(target.dataDir);
  if (target.databaseUrl && (await postgresHoldsWorkspace(target.databaseUrl))) inTheWay.push('the database');
  if (inTheWay.length && !target.force)
    throw new Error(
      `${target.dataDir} is not empty (${inTheWay.join(', ')}). Stop the server and restore into an empty ` +
        'DATA_DIR, or add --force to replace it (the replaced files are kept in DATA_DIR).',
    );
  const setAside = inTheWay.length ? await setAsideFiles(target.dataDir, now) : null;

  if (manifest.dialect === 'sqlite') await restoreSqlite(from, target.dataDir);
  else await restorePostgres(from, target);
  // Opened as the server opens it: a backup of an older version is migrated here.
  const workspace = await openWorkspaceDatabase(target);
  let floor: number;
  try {
    floor = await moveChangeLogPast(workspace.db, RESTORE_LOG_JUMP);
  } finally {
    await workspace.close();
  }
  for (const folder of FILE_FOLDERS) {
    makePrivateDir(join(target.dataDir, folder));
    await cp(join(from, folder), join(target.dataDir, folder), { recursive: true, force: false, errorOnExist: false });
  }
  // The secrets of the backed-up server keep its tokens and push subscriptions working; ones set here stay.
  for (const name of manifest.secrets) {
    if (!existsSync(join(target.dataDir, name)) && (SECRET_FILES as readonly string[]).includes(name))
      await cp(join(from, name), join(target.dataDir, name));
  }
  return { manifest, setAside, floor };
}

/** Moves the workspace's files out of the way, into one dated folder of DATA_DIR. */
async function setAsideFiles(dataDir: string, now: Date): Promise<string> {
  const aside = join(dataDir, `replaced-${now.toISOString().replace(/[:.]/g, '-')}`);
  await mkdir(aside, { mode: 0o700 });
  for (const name of [SQLITE_FILE, `${SQLITE_FILE}-wal`, `${SQLITE_FILE}-shm`, ...FILE_FOLDERS]) {
    if (existsSync(join(dataDir, name))) await rename(join(dataDir, name), join(aside, name));
  }
  return aside;
}

/** Copies the backup's database into DATA_DIR and checks the copy. */
async function restoreSqlite(from: string, dataDir: string): Promise<void> {
  const file = join(dataDir, SQLITE_FILE);
  const backup = new Database(join(from, SQLITE_FILE), { readonly: true, fileMustExist: true });
  try {
    await backup.backup(file, { progress: () => 0x7fffffff });
  } finally {
    backup.close();
  }
  checkSqliteCopy(file);
}

/** Whether the database already holds a workspace (anyone in it). */
async function postgresHoldsWorkspace(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ users: string | null }>("SELECT to_regclass('public.users') AS users");
    if (!rows[0]?.users) return false;
    const { rows: counted } = await client.query<{ n: string }>('SELECT count(*) AS n FROM users');
    return Number(counted[0]?.n ?? 0) > 0;
  } finally {
    await client.end();
  }
}

async function restorePostgres(from: string, target: RestoreTarget): Promise<void> {
  await runProgram(target.pgRestore ?? process.env.PG_RESTORE ?? 'pg_restore', [
    '--clean',
    '--if-exists',
    '--no-owner',
    '--single-transaction',
    '--exit-on-error',
    `--dbname=${target.databaseUrl ?? ''}`,
    join(from, PG_DUMP_FILE),
  ]);
}
