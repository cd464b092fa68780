import webpush from 'web-push';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { uuidv7 } from '@office/sync-protocol';
import { createTestDatabase, queryPostgres, startTestPostgres, type TestPostgres } from '../../test/postgres';
import { stopServerProcess } from '../../server-process';
import { callJson, signInOverHttp, useChildServers } from '../../test/fault-support';

const servers = useChildServers();
let postgres: TestPostgres;
const vapid = webpush.generateVAPIDKeys();

beforeAll(async () => {
  postgres = await startTestPostgres();
}, 60_000);

afterAll(async () => {
  await postgres?.stop();
});

/** A node of the workspace on `databaseUrl`: the secrets every node shares come from the environment. */
const startNode = (databaseUrl: string, seed = true) =>
  servers.start({
    dataDir: servers.newDataDir(),
    env: {
      DATABASE_URL: databaseUrl,
      VAPID_PUBLIC_KEY: vapid.publicKey,
      VAPID_PRIVATE_KEY: vapid.privateKey,
      SEED_DEMO: seed ? '1' : '0',
    },
  });

describe('several nodes on one PostgreSQL', () => {
  test('two nodes starting at once migrate and seed once; a token from one works on the other', async () => {
    const url = await createTestDatabase(postgres.url);
    const [a, b] = await Promise.all([startNode(url), startNode(url)]);
    expect(await queryPostgres(url, 'SELECT count(*)::int AS n FROM users')).toEqual([{ n: 5 }]);
    expect(await queryPostgres(url, 'SELECT title FROM tasks GROUP BY title HAVING count(*) > 1')).toEqual([]);
    const alice = await signInOverHttp(a.url, 'alice@demo.local');
    const me = await callJson<{ user: { email: string } }>(b.url, 'GET', '/api/auth/me', { token: alice.token });
    expect(me).toMatchObject({ status: 200, body: { user: { email: 'alice@demo.local' } } });
  }, 60_000);

  test('kill -9 of a node in the middle of a burst of chat posts: every acknowledged message is on the other node, once', async () => {
    const url = await createTestDatabase(postgres.url);
    const a = await startNode(url);
    const b = await startNode(url, false);
    const alice = await signInOverHttp(a.url, 'alice@demo.local');
    const acknowledged: string[] = [];
    let stop = false;
    const post = async () => {
      while (!stop) {
        const id = uuidv7();
        try {
          const res = await callJson(a.url, 'POST', '/api/messages', {
            token: alice.token,
            body: { id, text: `Burst ${id}` },
          });
          if (res.status === 201) acknowledged.push(id);
        } catch {
          return; // The node is gone: this request was never answered.
        }
      }
    };
    const senders = Array.from({ length: 8 }, post);
    while (acknowledged.length < 60) await new Promise((resolve) => setTimeout(resolve, 5));
    await stopServerProcess(a, 'SIGKILL');
    stop = true;
    await Promise.all(senders);

    const rows = await queryPostgres<{ id: string; n: number }>(
      url,
      'SELECT id, count(*)::int AS n FROM chat_messages WHERE id = ANY($1) GROUP BY id',
      [acknowledged],
    );
    expect(rows.filter((row) => row.n !== 1)).toEqual([]);
    expect(rows.map((row) => row.id).sort()).toEqual([...acknowledged].sort());
    const read = await callJson<{ messages: { id: string }[] }>(b.url, 'GET', '/api/messages?limit=100', {
      token: (await signInOverHttp(b.url, 'bob@demo.local')).token,
    });
    expect(read.status).toBe(200);
    const onB = new Set(read.body.messages.map((message) => message.id));
    expect(acknowledged.slice(-20).filter((id) => !onB.has(id))).toEqual([]);
  }, 60_000);
});
