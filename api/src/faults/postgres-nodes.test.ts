import webpush from 'web-push';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { uuidv7, type PullResponse, type PushResponse } from '@office/sync-protocol';
import { createTestDatabase, queryPostgres, startTestPostgres, type TestPostgres } from '../../test/postgres';
import { stopServerProcess, type ServerProcess } from '../../server-process';
import { connectSocket, sleep, waitUntil, type TestSocket } from '../../test/support';
import { serverOf, startTcpProxy } from '../../tcp-proxy';
import {
  callJson,
  signInOverHttp,
  SyncOutbox,
  useChildServers,
  type HttpAnswer,
  type HttpSession,
} from '../../test/fault-support';

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

/** Each of the chat messages `ids` is stored, once. */
async function expectStoredOnce(url: string, ids: string[]) {
  const rows = await queryPostgres<{ id: string; n: number }>(
    url,
    'SELECT id, count(*)::int AS n FROM chat_messages WHERE id = ANY($1) GROUP BY id',
    [ids],
  );
  expect(rows.filter((row) => row.n !== 1)).toEqual([]);
  expect(rows.map((row) => row.id).sort()).toEqual([...ids].sort());
}

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

    await expectStoredOnce(url, acknowledged);
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
 * Stops `node` (`stop`, undone by `resume`) while a transaction of its has written; answers when. The node writes all
 * the time, in transactions of milliseconds: one that committed between the look and the stop is let go, and the node
 * is caught again.
 */
async function catchInsideTransaction(
  url: string,
  node: string,
  stop: () => void,
  resume: () => void,
): Promise<number> {
  for (let attempt = 1; attempt <= 20; attempt++) {
    await waitUntil(() => openWritesOf(url, node).then((n) => n > 0), 10_000);
    stop();
    const stoppedAt = Date.now();
    await sleep(CAUGHT_MS);
    if ((await openWritesOf(url, node)) > 0) return stoppedAt;
    resume();
  }
  throw new Error(`${node} was never caught inside a transaction of its`);
}

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
  const stoppedAt = await catchInsideTransaction(url, 'node-b', stop, resume);
  const onA = sendChat(a, carol, 4);
  await waitUntil(() => openWritesOf(url, 'node-b').then((n) => n === 0), 15_000);
  const endedAt = Date.now();
  await waitUntil(() => onA.acknowledged.some((write) => write.at > endedAt), 10_000);
  return { onA, onB, stoppedAt, endedAt };
}

/** Every acknowledged message is stored once, and a pull from before the trouble brings each of them. */
async function expectEachOnce(url: string, node: ServerProcess, ids: string[], cursor: string) {
  await expectStoredOnce(url, ids);
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

/** How long the soak writes, each phase: all three nodes, after C is killed, while B is frozen, after B thaws. */
const SOAK_PHASE_MS = 6_000;
/** The frozen node stays stopped past PostgreSQL's end of its transaction, as a node frozen for good would. */
const SOAK_FREEZE_MS = IDLE_IN_TRANSACTION_MS + 2_000;

/**
 * A device as the PWA is one: an outbox of chat messages pushed until acknowledged (to another node when its node is
 * gone, as a load balancer sends it), and what it holds of the team chat, from pulls (when it connects) and from its
 * socket's live changes in between.
 */
class SoakDevice {
  readonly outbox: SyncOutbox;
  /** The texts of every mutation the server acknowledged, and when. */
  readonly acknowledged: { text: string; at: number }[] = [];
  /** Chat messages of the soak the device holds: id → text. */
  readonly held = new Map<string, string>();
  /** Answers a client does not push again (a refusal, not a 5xx or a lost answer), as "status body". */
  readonly refused: string[] = [];
  private socket: TestSocket | null = null;
  private cursor = '0';
  private attachedTo: ServerProcess | null = null;
  private stopped = false;
  private running: Promise<void> | null = null;

  constructor(
    readonly session: HttpSession,
    private readonly nodes: () => ServerProcess[],
  ) {
    this.outbox = new SyncOutbox(`Soak ${session.user.name}`);
  }

  /** Connects to `node`: the socket first, then a pull from its cursor, so nothing falls between the two. */
  async attach(node: ServerProcess): Promise<void> {
    this.socket?.close();
    this.attachedTo = node;
    const socket = await connectSocket(node.url, this.session.token);
    this.socket = socket;
    socket.on('sync.change', ({ change }) => this.hold(change));
    socket.on('disconnect', () => {
      if (this.socket === socket) this.attachedTo = null;
    });
    await this.pullFrom(node);
  }

  private hold(change: PullResponse['changes'][number]) {
    if (change.entity === 'chatMessage' && change.op === 'put' && change.data.text.startsWith('Soak '))
      this.held.set(change.id, change.data.text);
  }

  private async pullFrom(node: ServerProcess) {
    let snapshot: string | null = null;
    for (;;) {
      const query = `clientId=${this.outbox.clientId}&cursor=${this.cursor}&limit=500${snapshot ? `&snapshot=${snapshot}` : ''}`;
      const page: HttpAnswer<PullResponse> = await callJson<PullResponse>(node.url, 'GET', `/api/sync/pull?${query}`, {
        token: this.session.token,
      });
      if (page.status !== 200) throw new Error(`pull on ${node.url} answered ${page.status}`);
      for (const change of page.body.changes) this.hold(change);
      snapshot = page.body.bootstrap?.next ?? null;
      if (!snapshot && !page.body.more) {
        this.cursor = page.body.cursor;
        return;
      }
      if (!snapshot) this.cursor = page.body.cursor;
    }
  }

  /** Pushes two messages at a time until stopped; a node that does not answer is left for the next one alive. */
  start() {
    this.running = (async () => {
      while (!this.stopped) await this.pushOnce();
    })();
  }

  /** One push of what the outbox holds (topped up to two while running); false when it was not acknowledged. */
  async pushOnce(): Promise<boolean> {
    const node = await this.node();
    const queued = this.stopped ? this.outbox.pending(2) : this.outbox.batch(2);
    const mutations = queued.map(({ text: _text, ...mutation }) => mutation);
    if (!mutations.length) return true;
    try {
      const res = await callJson<PushResponse>(node.url, 'POST', '/api/sync/push', {
        token: this.session.token,
        body: { clientId: this.outbox.clientId, mutations },
      });
      if (res.status === 200) {
        const { acknowledged, unexpected } = this.outbox.settle(res.body);
        expect(unexpected).toEqual([]);
        this.acknowledged.push(...acknowledged.map(({ text }) => ({ text, at: Date.now() })));
        return true;
      }
      if (res.status < 500) this.refused.push(`${res.status} ${JSON.stringify(res.body)}`);
    } catch {
      // The node is gone (killed) or the answer was lost: the outbox keeps the mutations for the next push.
      this.attachedTo = null;
    }
    await sleep(50);
    return false;
  }

  /** The node the device talks to: its own while its socket is up, else the first that takes a connection. */
  private async node(): Promise<ServerProcess> {
    if (this.attachedTo) return this.attachedTo;
    for (;;) {
      for (const node of this.nodes()) {
        try {
          await this.attach(node);
          return node;
        } catch {
          // Not this one: it is down, or away from the database for a moment.
        }
      }
      await sleep(100);
    }
  }

  /** Stops writing new messages and pushes what is queued until the server acknowledged all of it. */
  async drain(): Promise<void> {
    this.stopped = true;
    await this.running;
    while (this.outbox.pending(1).length) await this.pushOnce();
  }

  close() {
    this.socket?.close();
  }
}

/**
 * Once the devices have pushed what they queued: every write the server acknowledged is stored once, nothing else is
 * stored, no request was refused that a client would not push again, and each device holds what the server holds
 * (what its socket heard since its last pull, never a change that was rolled back).
 */
async function expectEveryWriteOnceAndHeld(url: string, devices: SoakDevice[]) {
  await Promise.all(devices.map((device) => device.drain()));
  expect(devices.flatMap((device) => device.refused)).toEqual([]);
  const texts = devices.flatMap((device) => device.acknowledged.map((write) => write.text));
  const stored = await queryPostgres<{ id: string; text: string; n: number }>(
    url,
    "SELECT min(id::text) AS id, text, count(*)::int AS n FROM chat_messages WHERE text LIKE 'Soak %' GROUP BY text",
  );
  expect(stored.filter((row) => row.n !== 1)).toEqual([]);
  expect(stored.map((row) => row.text).sort()).toEqual([...texts].sort());
  expect(texts.length).toBeGreaterThan(0);
  const server = new Map(stored.map((row) => [row.id, row.text]));
  for (const device of devices) {
    await waitUntil(() => device.held.size >= server.size, 15_000).catch(() => undefined);
    expect({ who: device.session.user.name, held: new Map(device.held) }).toEqual({
      who: device.session.user.name,
      held: server,
    });
  }
}

/** Devices of the demo workspace's five people, each connected first to its node in `homes` (by turn). */
async function devicesOn(homes: ServerProcess[], serving: () => ServerProcess[]): Promise<SoakDevice[]> {
  const emails = ['alice', 'bob', 'carol', 'manager', 'admin'].map((name) => `${name}@demo.local`);
  const sessions = await Promise.all(emails.map((email) => signInOverHttp((homes[0] as ServerProcess).url, email)));
  const devices = sessions.map((session) => new SoakDevice(session, serving));
  await Promise.all(devices.map((device, i) => device.attach(homes[i % homes.length] as ServerProcess)));
  for (const device of devices) device.start();
  return devices;
}

/** Writes the devices had acknowledged after `at`. */
const acknowledgedSince = (devices: SoakDevice[], at: number) =>
  devices.reduce((n, device) => n + device.acknowledged.filter((write) => write.at > at).length, 0);

describe('three nodes, one killed and one frozen in turn', () => {
  test(
    'a minute of pushes on three nodes: every acknowledged write is stored once, and every device ends with what the server holds',
    async () => {
      const url = await createTestDatabase(postgres.url);
      const [a, b, c] = await Promise.all([
        startNode(url, true, boundedNode('node-a')),
        startNode(url, false, boundedNode('node-b')),
        startNode(url, false, boundedNode('node-c')),
      ]);
      const alive = new Set([a, b, c]);
      // Devices spread over the nodes as a load balancer would.
      const devices = await devicesOn([a, b, c], () => [...alive]);
      try {
        await sleep(SOAK_PHASE_MS);
        await stopServerProcess(c, 'SIGKILL');
        alive.delete(c);
        const killedAt = Date.now();
        await sleep(SOAK_PHASE_MS);
        expect(acknowledgedSince(devices, killedAt)).toBeGreaterThan(0);

        const frozenAt = await catchInsideTransaction(
          url,
          'node-b',
          () => b.child.kill('SIGSTOP'),
          () => b.child.kill('SIGCONT'),
        );
        await sleep(SOAK_FREEZE_MS);
        // PostgreSQL ended the frozen transaction, and node A went on meanwhile.
        expect(await openWritesOf(url, 'node-b')).toBe(0);
        expect(acknowledgedSince(devices, frozenAt)).toBeGreaterThan(0);
        b.child.kill('SIGCONT');
        await sleep(SOAK_PHASE_MS);

        await expectEveryWriteOnceAndHeld(url, devices);
        expect(acknowledgedSince(devices, 0)).toBeGreaterThan(100);
      } finally {
        b.child.kill('SIGCONT');
        for (const device of devices) device.close();
      }
    },
    TROUBLE_TEST_TIMEOUT_MS,
  );
});

describe('operations on a cluster under load', () => {
  test(
    'a rolling restart (each node stopped with SIGTERM and started again while the other serves): no acknowledged write lost or doubled, no request refused, every device ends with what the server holds',
    async () => {
      const url = await createTestDatabase(postgres.url);
      const serving = await startTwoNodes(url, url);
      const devices = await devicesOn([...serving], () => [...serving]);
      try {
        await waitUntil(() => acknowledgedSince(devices, 0) >= 20, 20_000);
        for (const name of ['node-a', 'node-b']) {
          const [leaving] = serving.splice(0, 1) as [ServerProcess];
          await stopServerProcess(leaving, 'SIGTERM');
          const stoppedAt = Date.now();
          // The node's devices went on with the other node meanwhile.
          await waitUntil(() => acknowledgedSince(devices, stoppedAt) >= 10, 10_000);
          serving.push(await startNode(url, false, boundedNode(name)));
        }
        await expectEveryWriteOnceAndHeld(url, devices);
      } finally {
        for (const device of devices) device.close();
      }
    },
    TROUBLE_TEST_TIMEOUT_MS,
  );

  test(
    'PostgreSQL restarted under load: /api/health answers 503 while it is away, the nodes reconnect on their own and writes resume within 10 s, none lost or doubled',
    async () => {
      const url = await createTestDatabase(postgres.url);
      const [a, b] = await startTwoNodes(url, url);
      const devices = await devicesOn([a, b], () => [a, b]);
      try {
        await waitUntil(() => acknowledgedSince(devices, 0) >= 20, 20_000);
        await postgres.restart(async () => {
          await waitUntil(async () => (await callJson(a.url, 'GET', '/api/health')).status === 503, 10_000);
        });
        expect(
          [a, b].map((node) => node.child.exitCode),
          a.stderr() + b.stderr(),
        ).toEqual([null, null]);
        const backAt = Date.now();
        await waitUntil(() => devices.every((device) => acknowledgedSince([device], backAt) > 0), 10_000);
        for (const node of [a, b]) expect((await callJson(node.url, 'GET', '/api/health')).status).toBe(200);
        await expectEveryWriteOnceAndHeld(url, devices);
      } finally {
        for (const device of devices) device.close();
      }
    },
    TROUBLE_TEST_TIMEOUT_MS,
  );
});
