import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { uuidv7 } from '@office/sync-protocol';
import { freePort } from '../../server-process';
import { signInDemoPeople, type Session } from '../../test/api-client';
import { bearer, startTestServer, uniqueText, type TestServer } from '../../test/support';
import { takeBackup } from './backup';
import { restoreBackup } from './restore';

// pg_dump refuses a server newer than itself, and the embedded PostgreSQL of the other tests (18) is newer than the
// client programs Debian ships (15): these tests run the workspace on Debian's own PostgreSQL server and dump it
// with its pg_dump, as an operator's matching pair would.

/** Debian's newest PostgreSQL with both the server and pg_dump, or null. */
function debianPostgres(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((version) => /^\d+$/.test(version))
    .sort((a, b) => Number(b) - Number(a));
  const found = versions.find((version) =>
    ['postgres', 'initdb', 'pg_ctl', 'pg_dump', 'pg_restore'].every((program) =>
      existsSync(join(root, version, 'bin', program)),
    ),
  );
  return found ? join(root, found, 'bin') : null;
}

const bin = debianPostgres();
const asRoot = process.getuid?.() === 0;
/** PostgreSQL refuses to run as root: as root, its programs run as Debian's `postgres` account. */
const asServerAccount = (program: string, args: string[]) =>
  asRoot
    ? execFileSync('runuser', ['-u', 'postgres', '--', join(bin ?? '', program), ...args], { stdio: 'ignore' })
    : execFileSync(join(bin ?? '', program), args, { stdio: 'ignore' });

describe.runIf(bin !== null && process.env.DATABASE_URL !== undefined)('backup and restore on PostgreSQL', () => {
  let cluster = '';
  let serverUrl = '';
  const databases: string[] = [];
  const servers: TestServer[] = [];
  const folders: string[] = [];

  beforeAll(async () => {
    cluster = mkdtempSync(join(tmpdir(), 'office-backup-pg-'));
    if (asRoot) chownSync(cluster, Number(execFileSync('id', ['-u', 'postgres']).toString()), 0);
    const port = await freePort();
    asServerAccount('initdb', ['-D', join(cluster, 'data'), '-U', 'office', '--auth=trust', '--no-sync']);
    asServerAccount('pg_ctl', [
      '-D',
      join(cluster, 'data'),
      '-o',
      `-p ${port} -k ${cluster} -c listen_addresses=127.0.0.1 -c fsync=off`,
      // The server's output goes to a file: on an inherited pipe, pg_ctl's caller would wait for the server to end.
      '-l',
      join(cluster, 'server.log'),
      '-w',
      'start',
    ]);
    serverUrl = `postgres://office@127.0.0.1:${port}`;
  }, 60_000);

  afterAll(async () => {
    for (const server of servers) await server.close();
    if (cluster) asServerAccount('pg_ctl', ['-D', join(cluster, 'data'), '-m', 'immediate', 'stop']);
    for (const dir of [cluster, ...folders]) rmSync(dir, { recursive: true, force: true });
  });

  async function newDatabase(): Promise<string> {
    const name = `office_${databases.length}_${Date.now()}`;
    const client = new pg.Client({ connectionString: `${serverUrl}/postgres` });
    await client.connect();
    await client.query(`CREATE DATABASE ${name}`);
    await client.end();
    databases.push(name);
    return `${serverUrl}/${name}`;
  }

  const newFolder = (name: string) => {
    const dir = mkdtempSync(join(tmpdir(), `office-${name}-`));
    folders.push(dir);
    return dir;
  };

  async function post(server: TestServer, session: Session): Promise<string> {
    const id = uuidv7();
    const answer = await fetch(`${server.url}/api/messages`, {
      method: 'POST',
      headers: { ...bearer(session.token), 'content-type': 'application/json' },
      body: JSON.stringify({ id, text: uniqueText('before the backup') }),
    });
    expect(answer.status).toBe(201);
    return id;
  }

  const pgDump = join(bin ?? '', 'pg_dump');
  const pgRestore = join(bin ?? '', 'pg_restore');

  test('a backup taken during a write load holds every write acknowledged before it began, and restores', async () => {
    const databaseUrl = await newDatabase();
    const dataDir = newFolder('data');
    const server = await startTestServer({ dataDir, config: { databaseUrl } });
    servers.push(server);
    const people = await signInDemoPeople(server.app);
    const acknowledged: string[] = [];
    let loading = true;
    const load = Promise.all(
      Array.from({ length: 8 }, async () => {
        while (loading) acknowledged.push(await post(server, people.alice));
      }),
    );
    while (acknowledged.length < 100) await new Promise((resolve) => setTimeout(resolve, 5));
    const before = [...acknowledged];
    const { dir, manifest } = await takeBackup({ dataDir, databaseUrl, pgDump, pgRestore }, newFolder('backups'));
    loading = false;
    await load;
    expect(manifest).toMatchObject({ dialect: 'postgres', check: 'ok' });
    expect(manifest.tables.chat_messages).toBeGreaterThanOrEqual(before.length);

    const target = await newDatabase();
    await restoreBackup(dir, { dataDir: newFolder('restored'), databaseUrl: target, force: false, pgRestore });
    const client = new pg.Client({ connectionString: target });
    await client.connect();
    const { rows } = await client.query<{ id: string }>('SELECT id FROM chat_messages');
    await client.end();
    const held = new Set(rows.map((row) => row.id));
    expect(before.filter((id) => !held.has(id))).toEqual([]);
    expect(held.size).toBe(manifest.tables.chat_messages);

    // A database that holds a workspace is not replaced without --force.
    await expect(
      restoreBackup(dir, { dataDir: newFolder('again'), databaseUrl: target, force: false, pgRestore }),
    ).rejects.toThrow(/is not empty \(the database\)/);
  }, 60_000);
});
