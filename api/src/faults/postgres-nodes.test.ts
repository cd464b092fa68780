import webpush from 'web-push';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { uuidv7, type PullResponse } from '@office/sync-protocol';
import { createTestDatabase, queryPostgres, startTestPostgres, type TestPostgres } from '../../test/postgres';
import { stopServerProcess, type ServerProcess } from '../../server-process';
import { sleep, waitUntil } from '../../test/support';
import { serverOf, startTcpProxy } from '../../tcp-proxy';
import { callJson, signInOverHttp, useChildServers, type HttpSession } from '../../test/fault-support';

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
const startNode = (databaseUrl: string, seed = true, env: Record<string, string> = {}) =>
  servers.start({
    dataDir: servers.newDataDir(),
    env: {
      DATABASE_URL: databaseUrl,
      VAPID_PUBLIC_KEY: vapid.publicKey,
      VAPID_PRIVATE_KEY: vapid.privateKey,
      SEED_DEMO: seed ? '1' : '0',
      // Every message a test writes stays in the window a pull sends (a busy test writes more than its default).
      HISTORY_TEAM_CHAT_MESSAGES: '1000000',
      ...env,
    },
  });

describe('several nodes on one PostgreSQL', () => {
  test('two nodes starting at once migrate and seed once, though a seed outlasts their lock timeout; a token from one works on the other', async () => {
    const url = await createTestDatabase(postgres.url);
    const [a, b] = await Promise.all([
      startNode(url, true, boundedNode('node-a')),
      startNode(url, true, boundedNode('node-b')),
    ]);
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

/**
 * How long PostgreSQL lets a transaction wait for its node's next statement in these tests: the other node's first
 * acknowledgements must fit in it on a busy machine.
 */
const IDLE_IN_TRANSACTION_MS = 5_000;

/** Bounds a node is given here: short enough that a frozen node's transaction ends within the test. */
const boundedNode = (name: string): Record<string, string> => ({
  // Names the node's sessions in pg_stat_activity (node-postgres reads PGAPPNAME).
  PGAPPNAME: name,
  PG_IDLE_IN_TRANSACTION_TIMEOUT_MS: String(IDLE_IN_TRANSACTION_MS),
  PG_LOCK_TIMEOUT_MS: '3000',
  PG_STATEMENT_TIMEOUT_MS: '4000',
  PG_TRANSACTION_TIMEOUT_MS: '10000',
});

/** Nodes A (which seeds) and B, started together: the startup lock has them migrate one after the other. */
const startTwoNodes = (urlOfA: string, urlOfB: string) =>
  Promise.all([startNode(urlOfA, true, boundedNode('node-a')), startNode(urlOfB, false, boundedNode('node-b'))]);

/** Two nodes start, one freezes or loses its link for seconds, and every write is checked: minutes on a busy machine. */
const TROUBLE_TEST_TIMEOUT_MS = 150_000;

/** The node's transactions open right now that have written (a transaction id of their own). */
const openWritesOf = async (url: string, node: string): Promise<number> =>
  (
    await queryPostgres<{ n: number }>(
      url,
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND backend_xid IS NOT NULL',
      [node],
    )
  )[0]?.n ?? 0;

interface Sender {
  acknowledged: { id: string; at: number; ms: number }[];
  failed: number;
  stop(): Promise<void>;
}

/** `inFlight` chat posts at a time on `node` by `author` until stopped; a post that fails is not retried. */
function sendChat(node: ServerProcess, author: HttpSession, inFlight: number): Sender {
  const acknowledged: Sender['acknowledged'] = [];
  let failed = 0;
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      const id = uuidv7();
      const started = Date.now();
      try {
        const res = await callJson(node.url, 'POST', '/api/messages', {
          token: author.token,
          body: { id, text: `From ${author.user.name} ${id}` },
        });
        if (res.status === 201) acknowledged.push({ id, at: Date.now(), ms: Date.now() - started });
        else failed++;
      } catch {
        failed++;
      }
    }
  };
  const loops = Array.from({ length: inFlight }, loop);
  return {
    acknowledged,
    get failed() {
      return failed;
    },
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/** Longer than any transaction of a node in good health: one still open after it is caught by the trouble. */
const CAUGHT_MS = 300;

/**
 * Node B takes 16 chat posts at a time and is stopped (`stop`, undone by `resume`) while a transaction of its has
 * written; node A takes posts meanwhile. Answers when B's open transaction ended, and what each node acknowledged.
 */
async function troubleOnB(
  url: string,
  b: ServerProcess,
  a: ServerProcess,
  stop: () => void,
  resume: () => void,
): Promise<{ onA: Sender; onB: Sender; stoppedAt: number; endedAt: number }> {
  const [alice, carol] = await Promise.all([
    signInOverHttp(a.url, 'alice@demo.local'),
    signInOverHttp(a.url, 'carol@demo.local'),
  ]);
  const onB = sendChat(b, alice, 16);
  await waitUntil(() => onB.acknowledged.length >= 20, 20_000);
  // B writes all the time, in transactions of milliseconds: the trouble must catch one that has written. One that
  // committed between the look and the trouble is let go, and B is caught again.
  let stoppedAt = 0;
  for (let attempt = 1; ; attempt++) {
    await waitUntil(() => openWritesOf(url, 'node-b').then((n) => n > 0), 10_000);
    stop();
    stoppedAt = Date.now();
    await sleep(CAUGHT_MS);
    if ((await openWritesOf(url, 'node-b')) > 0) break;
    if (attempt === 20) throw new Error('B was never caught inside a transaction of its');
    resume();
  }
  const onA = sendChat(a, carol, 4);
  await waitUntil(() => openWritesOf(url, 'node-b').then((n) => n === 0), 15_000);
  const endedAt = Date.now();
  await waitUntil(() => onA.acknowledged.some((write) => write.at > endedAt), 10_000);
  return { onA, onB, stoppedAt, endedAt };
}

/** Every acknowledged message is stored once, and a pull from before the trouble brings each of them. */
async function expectEachOnce(url: string, node: ServerProcess, ids: string[], cursor: string) {
  const rows = await queryPostgres<{ id: string; n: number }>(
    url,
    'SELECT id, count(*)::int AS n FROM chat_messages WHERE id = ANY($1) GROUP BY id',
    [ids],
  );
  expect(rows.filter((row) => row.n !== 1)).toEqual([]);
  expect(rows.map((row) => row.id).sort()).toEqual([...ids].sort());
  const bob = await signInOverHttp(node.url, 'bob@demo.local');
  const pulled = new Set<string>();
  const clientId = uuidv7();
  let from = cursor;
  for (;;) {
    const page = await callJson<PullResponse>(
      node.url,
      'GET',
      `/api/sync/pull?clientId=${clientId}&cursor=${from}&limit=500`,
      { token: bob.token },
    );
    expect(page.status).toBe(200);
    // From a cursor, never a bootstrap: its cursor stays 0 until its last page.
    expect(page.body.bootstrap).toBeNull();
    for (const change of page.body.changes) pulled.add(change.id);
    from = page.body.cursor;
    if (!page.body.more) break;
  }
  expect(ids.filter((id) => !pulled.has(id))).toEqual([]);
}

/**
 * Where a pull on `node` stands now: what it brings from here on is what commits after. A device's first pull is a
 * bootstrap in pages, and only its last page gives the cursor.
 */
async function cursorOn(node: ServerProcess): Promise<string> {
  const bob = await signInOverHttp(node.url, 'bob@demo.local');
  const clientId = uuidv7();
  let snapshot: string | null = null;
  for (;;) {
    const page: { status: number; body: PullResponse } = await callJson<PullResponse>(
      node.url,
      'GET',
      `/api/sync/pull?clientId=${clientId}&cursor=0&limit=500${snapshot ? `&snapshot=${snapshot}` : ''}`,
      { token: bob.token },
    );
    expect(page.status).toBe(200);
    snapshot = page.body.bootstrap?.next ?? null;
    if (!snapshot) return page.body.cursor;
  }
}

describe('a node in trouble never stops the others (no cluster-wide writer lock)', () => {
  test(
    'a node frozen (SIGSTOP) mid-write: the other node acknowledges writes all along, and the frozen transaction ends within the timeout',
    async () => {
      const url = await createTestDatabase(postgres.url);
      const [a, b] = await startTwoNodes(url, url);
      const before = await cursorOn(a);
      const { onA, onB, stoppedAt, endedAt } = await troubleOnB(
        url,
        b,
        a,
        () => b.child.kill('SIGSTOP'),
        () => b.child.kill('SIGCONT'),
      );
      try {
        // PostgreSQL ended the frozen node's transaction once it had waited for its node that long.
        expect(endedAt - stoppedAt).toBeLessThan(IDLE_IN_TRANSACTION_MS + 3_000);
        // Node A went on while B's transaction was still open, not only after.
        expect(onA.acknowledged.filter((write) => write.at < endedAt).length).toBeGreaterThan(0);
        expect(onA.failed).toBe(0);
      } finally {
        b.child.kill('SIGCONT');
      }
      await Promise.all([onA.stop(), onB.stop()]);
      await expectEachOnce(
        url,
        a,
        [...onA.acknowledged, ...onB.acknowledged].map((write) => write.id),
        before,
      );
    },
    TROUBLE_TEST_TIMEOUT_MS,
  );

  test(
    'a node whose link to PostgreSQL is cut (a proxy that stops forwarding): the other node goes on, the cut transaction ends within the timeout, the cut node answers 503',
    async () => {
      const url = await createTestDatabase(postgres.url);
      const proxy = await startTcpProxy(serverOf(url));
      try {
        const [a, b] = await startTwoNodes(url, proxy.via(url));
        const before = await cursorOn(a);
        const { onA, onB, stoppedAt, endedAt } = await troubleOnB(
          url,
          b,
          a,
          () => proxy.cut(),
          () => proxy.restore(),
        );
        expect(endedAt - stoppedAt).toBeLessThan(IDLE_IN_TRANSACTION_MS + 3_000);
        expect(onA.acknowledged.filter((write) => write.at < endedAt).length).toBeGreaterThan(0);
        expect(onA.failed).toBe(0);
        // The cut node's own requests end (no hang until the client gives up) and it says it cannot reach the database.
        const failedBefore = onB.failed;
        await waitUntil(() => onB.failed > failedBefore, 20_000);
        expect(b.child.exitCode, b.stderr()).toBeNull();
        const health = await callJson(b.url, 'GET', '/api/health');
        expect(health.status).toBe(503);
        await Promise.all([onA.stop(), onB.stop()]);
        await expectEachOnce(
          url,
          a,
          [...onA.acknowledged, ...onB.acknowledged].map((write) => write.id),
          before,
        );
      } finally {
        await proxy.close();
      }
    },
    TROUBLE_TEST_TIMEOUT_MS,
  );
});
