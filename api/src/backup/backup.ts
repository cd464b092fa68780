import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, readdir, rename, rm, stat, writeFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { makePrivateDir, privateFileMode } from '../private-files';
import { CHANGE_LOG_FLOOR_KEY } from '../domain/change-log';

/** The files of DATA_DIR a backup holds besides the database: uploads, profile photos and the server's secrets. */
export const FILE_FOLDERS = ['uploads', 'avatars'] as const;
export const SECRET_FILES = ['jwt-secret', 'vapid.json'] as const;

/** The SQLite file's name, in DATA_DIR and in a backup. */
export const SQLITE_FILE = 'workspace.db';
/** The PostgreSQL dump's name in a backup (pg_dump's custom format). */
export const PG_DUMP_FILE = 'workspace.pgdump';
export const MANIFEST_FILE = 'manifest.json';

/** A backup's folder name starts with this, then the time it was taken (sortable: the newest sorts last). */
export const BACKUP_PREFIX = 'office-backup-';

/** What a backup holds, written beside it as manifest.json and printed when it is taken. */
export interface BackupManifest {
  format: 1;
  takenAt: string;
  dialect: 'sqlite' | 'postgres';
  /** The newest change-log number in the backup (what a device that pulled everything had reached). */
  changeLogHead: number;
  /** Rows per table, counted in the backup itself (SQLite) or in the dump's own snapshot (PostgreSQL). */
  tables: Record<string, number>;
  files: Record<(typeof FILE_FOLDERS)[number], { count: number; bytes: number }>;
  secrets: string[];
  /** `ok`: SQLite's integrity check of the copy passed, or pg_restore read the whole dump's table of contents. */
  check: 'ok';
}

/** Where a backup is taken from. */
export interface BackupSource {
  dataDir: string;
  databaseUrl: string | null;
  /**
   * SQLite: the server's own connection, when the server takes the backup. Its writes during the backup reach the
   * copy as they are made (SQLite's online backup), and the copy goes in small steps between its requests. Without
   * it (the command) the file is opened and copied in one step, which another process's writes cannot restart.
   */
  connection?: Database.Database;
  /** pg_dump to run (PG_DUMP, else the one on the PATH). */
  pgDump?: string;
  /** pg_restore, to check a dump (PG_RESTORE, else the one on the PATH). */
  pgRestore?: string;
}

/** Pages a server's backup copies between two turns of its event loop (400 KiB of 4 KiB pages). */
const PAGES_PER_STEP = 100;
/** Pages the command copies in one step: all of them. */
const ALL_PAGES = 0x7fffffff;

const stampOf = (date: Date): string => date.toISOString().replace(/[:.]/g, '-');

/** Takes a backup into a new folder of `into`; the folder appears only once the backup is whole and checked. */
export async function takeBackup(
  source: BackupSource,
  into: string,
  now = new Date(),
): Promise<{
  dir: string;
  manifest: BackupManifest;
}> {
  makePrivateDir(into);
  const dir = join(into, `${BACKUP_PREFIX}${stampOf(now)}`);
  if (existsSync(dir)) throw new Error(`A backup named ${dir} exists already`);
  const partial = `${dir}.partial`;
  await rm(partial, { recursive: true, force: true });
  makePrivateDir(partial);
  try {
    const database = source.databaseUrl
      ? await dumpPostgres(source.databaseUrl, partial, source)
      : await copySqlite(source, partial);
    const files = await copyFiles(source.dataDir, partial);
    const secrets: string[] = [];
    for (const name of SECRET_FILES) {
      if (!existsSync(join(source.dataDir, name))) continue;
      await cp(join(source.dataDir, name), join(partial, name));
      secrets.push(name);
    }
    const manifest: BackupManifest = {
      format: 1,
      takenAt: now.toISOString(),
      dialect: source.databaseUrl ? 'postgres' : 'sqlite',
      changeLogHead: database.head,
      tables: database.tables,
      files,
      secrets,
      check: 'ok',
    };
    await writeFile(join(partial, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, { mode: privateFileMode });
    await rename(partial, dir);
    return { dir, manifest };
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw error;
  }
}

interface DatabaseCopy {
  head: number;
  tables: Record<string, number>;
}

/** The newest change-log number of an open SQLite workspace (the compaction floor counts when the log is empty). */
export function sqliteHead(db: Database.Database): number {
  const newest = db.prepare('SELECT max(seq) FROM change_log').pluck().get() as number | null;
  const floor = db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(CHANGE_LOG_FLOOR_KEY) as
    string | undefined;
  return Math.max(newest ?? 0, Number(floor ?? 0));
}

/** Rows of every table of an open SQLite database, by table. */
export function sqliteRowCounts(db: Database.Database): Record<string, number> {
  const names = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
  return Object.fromEntries(
    names.map((name) => [
      name,
      db
        .prepare(`SELECT count(*) FROM "${name.replace(/"/g, '""')}"`)
        .pluck()
        .get() as number,
    ]),
  );
}

/** Opens a SQLite copy read-only and checks it page by page; throws unless SQLite finds it whole. */
export function checkSqliteCopy(file: string): DatabaseCopy {
  const copy = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const problems = copy.prepare('PRAGMA integrity_check').pluck().all() as string[];
    if (problems.length !== 1 || problems[0] !== 'ok')
      throw new Error(`The copy of the database is damaged: ${problems.slice(0, 5).join('; ')}`);
    return { head: sqliteHead(copy), tables: sqliteRowCounts(copy) };
  } finally {
    copy.close();
  }
}

async function copySqlite(source: BackupSource, into: string): Promise<DatabaseCopy> {
  const target = join(into, SQLITE_FILE);
  const own = source.connection === undefined;
  const db =
    source.connection ?? new Database(join(source.dataDir, SQLITE_FILE), { readonly: true, fileMustExist: true });
  try {
    await db.backup(target, { progress: () => (own ? ALL_PAGES : PAGES_PER_STEP) });
  } finally {
    if (own) db.close();
  }
  return checkSqliteCopy(target);
}

/** Copies the file folders; counts what they hold. */
async function copyFiles(dataDir: string, into: string): Promise<BackupManifest['files']> {
  const files = {} as BackupManifest['files'];
  for (const folder of FILE_FOLDERS) {
    const from = join(dataDir, folder);
    const to = join(into, folder);
    makePrivateDir(to);
    let count = 0;
    let bytes = 0;
    if (existsSync(from)) {
      for (const name of await readdir(from)) {
        // A file removed since the listing (its message was deleted) is simply not in the backup.
        const copied = await cp(join(from, name), join(to, name), { errorOnExist: true, force: false }).then(
          () => true,
          (error: { code?: string }) => {
            if (error.code === 'ENOENT') return false;
            throw error;
          },
        );
        if (!copied) continue;
        count += 1;
        bytes += (await stat(join(to, name))).size;
      }
    }
    files[folder] = { count, bytes };
  }
  return files;
}

/** Runs a program to its end; rejects with what it printed on a failure. */
export function runProgram(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    const errors: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => errors.push(chunk));
    child.on('error', (error) =>
      reject(
        (error as { code?: string }).code === 'ENOENT'
          ? new Error(
              `${command} was not found: install PostgreSQL's client programs, or name it in PG_DUMP / PG_RESTORE`,
            )
          : error,
      ),
    );
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(output).toString());
      else reject(new Error(`${command} failed (${code}): ${Buffer.concat(errors).toString().trim()}`));
    });
  });
}

/**
 * pg_dump in its custom format, from a snapshot this process holds open: the rows counted for the manifest are
 * those the dump holds, whatever the nodes write meanwhile. pg_restore then reads the dump's table of contents back.
 */
async function dumpPostgres(url: string, into: string, source: BackupSource): Promise<DatabaseCopy> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const { rows: snapshot } = await client.query<{ id: string }>('SELECT pg_export_snapshot() AS id');
    const { rows: tableRows } = await client.query<{ name: string }>(
      "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
    );
    const tables: Record<string, number> = {};
    for (const { name } of tableRows) {
      const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${name.replace(/"/g, '""')}"`);
      tables[name] = Number(rows[0]?.n ?? 0);
    }
    const { rows: headRows } = await client.query<{ head: string | null }>(
      'SELECT greatest((SELECT max(seq) FROM change_log), (SELECT value::bigint FROM meta WHERE key = $1), 0) AS head',
      [CHANGE_LOG_FLOOR_KEY],
    );
    const file = join(into, PG_DUMP_FILE);
    await runProgram(source.pgDump ?? process.env.PG_DUMP ?? 'pg_dump', [
      '--format=custom',
      `--snapshot=${snapshot[0]?.id ?? ''}`,
      '--no-owner',
      `--file=${file}`,
      `--dbname=${url}`,
    ]);
    await client.query('COMMIT');
    const contents = await runProgram(source.pgRestore ?? process.env.PG_RESTORE ?? 'pg_restore', ['--list', file]);
    const missing = tableRows.filter(({ name }) => !new RegExp(`TABLE DATA public ${name} `).test(contents));
    if (missing.length) throw new Error(`The dump lacks the rows of ${missing.map(({ name }) => name).join(', ')}`);
    return { head: Number(headRows[0]?.head ?? 0), tables };
  } finally {
    await client.end();
  }
}

/** Reads a backup's manifest; throws if the folder is not a whole backup of ours. */
export async function readManifest(dir: string): Promise<BackupManifest> {
  const file = join(dir, MANIFEST_FILE);
  if (!existsSync(file)) throw new Error(`${dir} is not a backup: it has no ${MANIFEST_FILE}`);
  const manifest = JSON.parse(await readFile(file, 'utf8')) as BackupManifest;
  if (manifest.format !== 1) throw new Error(`${dir} is a backup of a format this version cannot read`);
  return manifest;
}

/** Keeps the newest `keep` backups of `dir`; removes older ones and leftovers of backups that never finished. */
export async function pruneBackups(dir: string, keep: number): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const names = (await readdir(dir)).filter((name) => name.startsWith(BACKUP_PREFIX)).sort();
  const finished = names.filter((name) => !name.endsWith('.partial'));
  const removed = [...finished.slice(0, Math.max(0, finished.length - keep))];
  for (const name of removed) await rm(join(dir, name), { recursive: true, force: true });
  return removed;
}

/** One line per part of a backup, as the command prints it. */
export function describeBackup(dir: string, manifest: BackupManifest): string {
  const rows = Object.values(manifest.tables).reduce((sum, n) => sum + n, 0);
  const { tables } = manifest;
  const lines = [
    `Backup ${dir}`,
    `  taken ${manifest.takenAt} from ${manifest.dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, checked: ${manifest.check}`,
    `  ${rows} rows in ${Object.keys(tables).length} tables: ${tables.users ?? 0} people, ${tables.tasks ?? 0} tasks, ` +
      `${tables.chat_messages ?? 0} team chat messages, ${tables.direct_messages ?? 0} direct messages`,
    `  change log up to ${manifest.changeLogHead}`,
    ...FILE_FOLDERS.map(
      (folder) => `  ${folder}: ${manifest.files[folder].count} files, ${manifest.files[folder].bytes} bytes`,
    ),
    `  secrets: ${manifest.secrets.length ? manifest.secrets.join(', ') : 'none (set in the environment)'}`,
  ];
  return lines.join('\n');
}
