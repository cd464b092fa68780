import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { uuidv7 } from '@office/sync-protocol';
import { apiClient, mutation, signInDemoPeople, type Session } from '../../test/api-client';
import { bearer, startTestServer, uniqueText, type TestServer } from '../../test/support';
import { BACKUP_PREFIX, pruneBackups, readManifest, SQLITE_FILE, takeBackup } from './backup';
import { RESTORE_LOG_JUMP, restoreBackup } from './restore';

const folders: string[] = [];
const servers: TestServer[] = [];
const newFolder = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `office-${name}-`));
  folders.push(dir);
  return dir;
};
const started = async (options: Parameters<typeof startTestServer>[0]) => {
  const server = await startTestServer(options);
  servers.push(server);
  return server;
};

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Posts a team chat message with its own id; resolves with the id once the server acknowledged it. */
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

function messageIds(dataDir: string): Set<string> {
  const db = new Database(join(dataDir, SQLITE_FILE), { readonly: true });
  try {
    return new Set(db.prepare('SELECT id FROM chat_messages').pluck().all() as string[]);
  } finally {
    db.close();
  }
}

describe('backup and restore on SQLite', () => {
  test.each([
    ['by the server, on its own connection, in steps', true],
    ['by the command, from another connection, in one step', false],
  ])(
    'a backup taken %s during a write load holds every write acknowledged before it began',
    async (_how, onServerConnection) => {
      const dataDir = newFolder('data');
      const server = await started({ dataDir });
      const people = await signInDemoPeople(server.app);
      const acknowledged: string[] = [];
      let loading = true;
      // Eight writers post until the backup is done; each id is recorded once the server has answered.
      const load = Promise.all(
        Array.from({ length: 8 }, async () => {
          while (loading) acknowledged.push(await post(server, people.alice));
        }),
      );
      while (acknowledged.length < 200) await new Promise((resolve) => setTimeout(resolve, 5));
      const before = [...acknowledged];
      const into = newFolder('backups');
      const { dir, manifest } = await takeBackup(
        {
          dataDir,
          databaseUrl: null,
          ...(onServerConnection ? { connection: server.app.db.$client } : {}),
        },
        into,
      );
      loading = false;
      await load;

      expect(manifest).toMatchObject({ format: 1, dialect: 'sqlite', check: 'ok' });
      expect(manifest.tables.chat_messages).toBeGreaterThanOrEqual(before.length);
      expect(await readManifest(dir)).toEqual(manifest);
      expect(readdirSync(into)).toEqual([dir.slice(into.length + 1)]);

      const restoredDir = newFolder('restored');
      await restoreBackup(dir, { dataDir: restoredDir, databaseUrl: null, force: false });
      const restored = new Database(join(restoredDir, SQLITE_FILE), { readonly: true });
      expect(restored.prepare('PRAGMA integrity_check').pluck().get()).toBe('ok');
      restored.close();
      const held = messageIds(restoredDir);
      expect(before.filter((id) => !held.has(id))).toEqual([]);
    },
  );

  test('the restored workspace serves: what was backed up, and its people sign in', async () => {
    const dataDir = newFolder('data');
    const original = await started({ dataDir });
    const people = await signInDemoPeople(original.app);
    const kept = await post(original, people.bob);
    const { dir } = await takeBackup({ dataDir, databaseUrl: null }, newFolder('backups'));
    const restoredDir = newFolder('restored');
    await restoreBackup(dir, { dataDir: restoredDir, databaseUrl: null, force: false });
    const restored = await started({ dataDir: restoredDir, seed: false });
    const again = await signInDemoPeople(restored.app);
    const answer = await fetch(`${restored.url}/api/messages`, { headers: bearer(again.carol.token) });
    const { messages } = (await answer.json()) as { messages: { id: string }[] };
    expect(messages.map((message) => message.id)).toContain(kept);
  });

  test('restore refuses a DATA_DIR that holds a workspace, and with --force keeps it aside', async () => {
    const dataDir = newFolder('data');
    await started({ dataDir });
    const { dir } = await takeBackup({ dataDir, databaseUrl: null }, newFolder('backups'));
    const occupied = newFolder('occupied');
    writeFileSync(join(occupied, SQLITE_FILE), 'a workspace of its own');
    await expect(restoreBackup(dir, { dataDir: occupied, databaseUrl: null, force: false })).rejects.toThrow(
      /is not empty \(workspace\.db\).*--force/,
    );
    const { setAside } = await restoreBackup(dir, { dataDir: occupied, databaseUrl: null, force: true });
    expect(setAside).not.toBeNull();
    expect(existsSync(join(setAside ?? '', SQLITE_FILE))).toBe(true);
    expect(messageIds(occupied).size).toBeGreaterThan(0);
  });

  test('a restore of a backup of the other dialect is refused with the reason', async () => {
    const dataDir = newFolder('data');
    await started({ dataDir });
    const { dir } = await takeBackup({ dataDir, databaseUrl: null }, newFolder('backups'));
    await expect(
      restoreBackup(dir, {
        dataDir: newFolder('target'),
        databaseUrl: 'postgres://nobody@127.0.0.1:1/x',
        force: false,
      }),
    ).rejects.toThrow('This backup is of a SQLite workspace: unset DATABASE_URL to restore it into DATA_DIR.');
  });

  test('a device that synced after the backup downloads again and its queued writes arrive once', async () => {
    const dataDir = newFolder('data');
    const original = await started({ dataDir });
    const client = apiClient(() => original.app);
    const alice = (await signInDemoPeople(original.app)).alice;
    const clientId = uuidv7();
    const send = (id: number) => mutation(id, 'chat.send', { id: uuidv7(), text: uniqueText(`queued ${id}`) });
    const first = await client.pull(alice, clientId, '0');
    expect((await client.push(alice, clientId, [send(1), send(2)])).lastMutationId).toBe(2);
    const { dir } = await takeBackup({ dataDir, databaseUrl: null }, newFolder('backups'));
    // After the backup: acknowledged, then lost with the replaced server.
    const lost = [send(3), send(4)];
    await client.push(alice, clientId, lost);
    const synced = await client.pull(alice, clientId, first.cursor);
    await original.close();
    servers.splice(servers.indexOf(original), 1);

    const restoredDir = newFolder('restored');
    const { floor } = await restoreBackup(dir, { dataDir: restoredDir, databaseUrl: null, force: false });
    expect(Number(floor.split(':').at(-1))).toBeGreaterThan(RESTORE_LOG_JUMP);
    const restored = await started({ dataDir: restoredDir, seed: false });
    const afterRestore = apiClient(() => restored.app);
    const aliceAgain = (await signInDemoPeople(restored.app)).alice;
    // Its next write, queued while the server was being restored.
    const queued = send(5);
    const gap = await afterRestore.push(aliceAgain, clientId, [queued]);
    expect(gap.outcomes).toEqual([]);
    const download = await afterRestore.pull(aliceAgain, clientId, synced.cursor);
    expect(download.reset).toBe(true);
    expect(download.lastMutationId).toBe(2);
    const resumed = await afterRestore.push(aliceAgain, clientId, [queued]);
    expect(resumed.outcomes).toEqual([{ id: 5, status: 'applied' }]);
    const replayed = await afterRestore.push(aliceAgain, clientId, [queued]);
    expect(replayed.outcomes).toEqual([{ id: 5, status: 'duplicate', original: 'applied' }]);
    const text = (queued.args as { text: string }).text;
    const held = new Database(join(restoredDir, SQLITE_FILE), { readonly: true });
    expect(held.prepare('SELECT count(*) FROM chat_messages WHERE text = ?').pluck().get(text)).toBe(1);
    held.close();
    // A device that never synced before the restore starts from 1 as ever: a gap still stops its queue.
    const fresh = uuidv7();
    await afterRestore.pull(aliceAgain, fresh, '0');
    expect((await afterRestore.push(aliceAgain, fresh, [send(3)])).outcomes).toEqual([]);
  });

  test('pruning keeps the newest backups', async () => {
    const into = newFolder('backups');
    for (const stamp of ['2026-01-01', '2026-01-02', '2026-01-03'])
      writeFileSync(join(into, `${BACKUP_PREFIX}${stamp}`), '');
    expect(await pruneBackups(into, 2)).toEqual([`${BACKUP_PREFIX}2026-01-01`]);
    expect(readdirSync(into).sort()).toEqual([`${BACKUP_PREFIX}2026-01-02`, `${BACKUP_PREFIX}2026-01-03`]);
  });
});
