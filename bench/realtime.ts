import { monitorEventLoopDelay } from 'node:perf_hooks';
import { io, type Socket } from 'socket.io-client';
import {
  limits,
  socketReconnection,
  uuidv7,
  type ClientToServerEvents,
  type PullResponse,
  type ServerToClientEvents,
} from '@office/sync-protocol';
import { startServerProcess, stopServerProcess, type ServerProcess } from '../api/server-process';
import { latencyText } from './http-load';
import { percentiles, type Measure } from './measure';
import { explainMiss } from './report';
import { call, type BenchSession } from './session';
import { headVersion } from './sync-push';

type BenchSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** One simulated device with a live connection. */
interface FleetClient {
  session: BenchSession;
  socket: BenchSocket;
  /** Fired on every (re)connect. */
  onConnect?: () => void;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * Opens `count` sockets, spread round robin over the sessions, each its own connection (forceNew:
 * several sockets of one user are several devices). WebSocket only: the load generator shares the 2
 * cores with the server, and the PWA's first long-polling request only matters for the first connect.
 */
async function connectFleet(url: string, sessions: BenchSession[], count: number): Promise<FleetClient[]> {
  const clients: FleetClient[] = [];
  const PARALLEL = 100;
  for (let start = 0; start < count; start += PARALLEL) {
    const batch = Array.from({ length: Math.min(PARALLEL, count - start) }, (_, i) => {
      const session = sessions[(start + i) % sessions.length] as BenchSession;
      const socket: BenchSocket = io(url, {
        path: '/socket.io',
        transports: ['websocket'],
        forceNew: true,
        auth: { token: session.token },
        reconnection: true,
        reconnectionAttempts: Infinity,
        ...socketReconnection,
      });
      const client: FleetClient = { session, socket };
      socket.on('connect', () => client.onConnect?.());
      // As the PWA does: a server that ends the connection (a restart) is not retried by Socket.IO itself.
      socket.on('disconnect', (reason) => {
        if (reason === 'io server disconnect') socket.connect();
      });
      return client;
    });
    await Promise.all(
      batch.map(
        ({ socket }) =>
          new Promise<void>((done, fail) => {
            const timer = setTimeout(() => fail(new Error('a socket did not connect within 20 s')), 20_000);
            socket.once('connect', () => {
              clearTimeout(timer);
              done();
            });
          }),
      ),
    );
    clients.push(...batch);
  }
  return clients;
}

export interface RealtimeFigureOptions {
  server: ServerProcess;
  sessions: BenchSession[];
  quick: boolean;
  log: (line: string) => void;
}

const SOCKETS = 1000;

/** The fleet the fan-out opened, kept for the reconnect storm. */
export interface Fleet {
  clients: FleetClient[];
  close(): void;
}

/**
 * 1 000 sockets in the team room; 10 chat messages a second are posted, and each socket times the
 * message's `sync.change` from the moment its POST was sent.
 */
export async function measureFanOut({
  server,
  sessions,
  quick,
  log,
}: RealtimeFigureOptions): Promise<{ measures: Measure[]; fleet: Fleet }> {
  log(`fan-out: connecting ${SOCKETS} sockets`);
  const connectStarted = performance.now();
  const clients = await connectFleet(server.url, sessions, SOCKETS);
  const connectSeconds = (performance.now() - connectStarted) / 1000;

  const sentAt = new Map<string, number>();
  const deliveries = new Map<string, number>();
  const latencies: number[] = [];
  // The pulls the fan-out makes devices do. A PWA pulls when the server pokes it or its socket comes back;
  // a live change that reaches a device connected since its last pull moves its cursor without one (and
  // these devices write nothing, so no change is held for a pending write).
  let pulls = 0;
  for (const { socket } of clients) {
    socket.on('sync.poke', () => (pulls += 1));
    socket.io.on('reconnect', () => (pulls += 1));
    socket.on('sync.change', ({ change }) => {
      if (change.entity !== 'chatMessage') return;
      const at = sentAt.get(change.id);
      if (at === undefined) return;
      latencies.push(performance.now() - at);
      deliveries.set(change.id, (deliveries.get(change.id) ?? 0) + 1);
    });
  }

  const seconds = quick ? 5 : 30;
  const PER_SECOND = 10;
  log(`fan-out: ${PER_SECOND} messages/s for ${seconds} s`);
  // How late the bench process itself runs its callbacks: the clients' share of the latency.
  const clientDelay = monitorEventLoopDelay({ resolution: 10 });
  clientDelay.enable();
  const started = performance.now();
  const posts: Promise<void>[] = [];
  let failedPosts = 0;
  for (let k = 0; k < seconds * PER_SECOND; k++) {
    const due = started + (k * 1000) / PER_SECOND;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const sender = sessions[k % sessions.length] as BenchSession;
    const id = uuidv7();
    sentAt.set(id, performance.now());
    posts.push(
      call(server.url, sender.token, 'POST', '/api/messages', { id, text: `Fan-out ${k} at ${Date.now()}` }).then(
        (answer) => {
          if (answer.status !== 201) failedPosts++;
        },
      ),
    );
  }
  await Promise.all(posts);
  await sleep(2000);
  clientDelay.disable();
  const clientLagP99 = clientDelay.percentile(99) / 1e6;
  const expected = sentAt.size * SOCKETS;
  const delivered = [...deliveries.values()].reduce((sum, n) => sum + n, 0);
  const lost = expected - delivered;
  const p = percentiles(latencies);

  const measures: Measure[] = [
    explainMiss(
      {
        name: `Fan-out: ${SOCKETS} sockets in the team room, ${PER_SECOND} messages/s for ${seconds} s`,
        target: 'p99 ≤ 100 ms, none lost, no pull',
        result: `${latencyText(p)}, ${lost} lost, ${pulls} pulls${failedPosts ? `, ${failedPosts} posts failed` : ''} (bench event-loop lag p99 ${clientLagP99.toFixed(0)} ms)`,
        met: p.p99 <= 100 && lost === 0 && failedPosts === 0 && pulls === 0,
        values: { ...p, lost, delivered, expected, failedPosts, pulls, connectSeconds, clientLagP99 },
        note: 'From the POST being sent to the sync.change event in each socket: includes the HTTP write, its commit and the group fsync (changes go out once on disk); each message is one event per socket. The 1 000 clients run in one Node process beside the server.',
      },
      'The 1 000 clients parse 10 000 events a second in one Node process on the same 2 cores as the server.',
    ),
  ];
  return {
    measures,
    fleet: { clients, close: () => clients.forEach(({ socket }) => socket.close()) },
  };
}

/**
 * Restarts the server (SIGTERM, then a new process on the same DATA_DIR and port) under the fleet,
 * writes messages as soon as it listens, and times until every socket is back and has caught up by
 * pull from the cursor it had; every message must reach every device (by pull or live).
 */
export async function measureReconnectStorm(
  { server, sessions, bundle, env, log }: RealtimeFigureOptions & { bundle: string; env: Record<string, string> },
  fleet: Fleet,
): Promise<{ measures: Measure[]; server: ServerProcess }> {
  const WRITES = 20;
  const cursor = String(headVersion(server.dataDir));
  const written = new Set<string>();
  const states = fleet.clients.map((client) => ({
    client,
    clientId: uuidv7(),
    reconnectedAt: null as number | null,
    caughtUpAt: null as number | null,
    seen: new Set<string>(),
    failedPulls: 0,
  }));
  let restarted = false;
  for (const state of states) {
    const { socket, session } = state.client;
    socket.on('sync.change', ({ change }) => {
      if (restarted && change.entity === 'chatMessage') state.seen.add(change.id);
    });
    state.client.onConnect = () => {
      if (!restarted || state.reconnectedAt !== null) return;
      state.reconnectedAt = performance.now();
      void (async () => {
        let from = cursor;
        for (;;) {
          const answer = await call<PullResponse>(
            server.url,
            session.token,
            'GET',
            `/api/sync/pull?clientId=${state.clientId}&cursor=${from}&limit=${limits.pullPageMax}`,
          ).catch(() => null);
          if (!answer || answer.status !== 200) {
            state.failedPulls++;
            await sleep(500);
            continue;
          }
          for (const change of answer.body.changes) if (change.entity === 'chatMessage') state.seen.add(change.id);
          from = answer.body.cursor;
          if (!answer.body.more) break;
        }
        state.caughtUpAt = performance.now();
      })();
    };
  }

  log(`reconnect storm: SIGTERM with ${states.length} sockets connected`);
  const stopping = performance.now();
  await stopServerProcess(server, 'SIGTERM');
  const stoppedSeconds = (performance.now() - stopping) / 1000;
  restarted = true;
  const port = Number(new URL(server.url).port);
  const next = await startServerProcess({ bundle, dataDir: server.dataDir, port, env });
  const listening = performance.now();
  // A fresh process is the clean baseline for memory per socket: the one before carried the heap of the HTTP load.
  const rssFresh = next.memory().rss;
  const writer = sessions.find((s) => s.user.role === 'manager');
  if (!writer) throw new Error('the seeded organisation has no manager');
  for (let i = 0; i < WRITES; i++) {
    const id = uuidv7();
    const answer = await call(next.url, writer.token, 'POST', '/api/messages', { id, text: `After restart ${i}` });
    if (answer.status === 201) written.add(id);
  }
  log('reconnect storm: waiting for every socket to reconnect and catch up');
  const deadline = listening + 60_000;
  while (performance.now() < deadline && states.some((s) => s.caughtUpAt === null)) await sleep(100);

  await sleep(2000);
  const rssConnected = next.memory().rss;
  const perSocketKb = (rssConnected - rssFresh) / states.length / 1024;
  const reconnected = states.filter((s) => s.reconnectedAt !== null);
  const lastReconnect = Math.max(...reconnected.map((s) => s.reconnectedAt ?? 0));
  const lastCaughtUp = Math.max(...states.map((s) => s.caughtUpAt ?? 0));
  const reconnectSeconds = (lastReconnect - listening) / 1000;
  const caughtUpSeconds = (lastCaughtUp - listening) / 1000;
  let missing = 0;
  for (const state of states) for (const id of written) if (!state.seen.has(id)) missing++;
  const failedPulls = states.reduce((sum, s) => sum + s.failedPulls, 0);
  const notBack = states.length - reconnected.length;
  fleet.close();
  return {
    server: next,
    measures: [
      {
        name: `Reconnect storm: ${states.length} sockets after a restart, catch-up by pull`,
        target: 'all back ≤ 10 s, nothing missing',
        result: `all back in ${reconnectSeconds.toFixed(1)} s, caught up in ${caughtUpSeconds.toFixed(1)} s, ${missing} missing${notBack ? `, ${notBack} never came back` : ''}`,
        met: notBack === 0 && reconnectSeconds <= 10 && missing === 0 && written.size === WRITES,
        values: {
          reconnectSeconds,
          caughtUpSeconds,
          missing,
          notBack,
          failedPulls,
          written: written.size,
          stopSeconds: stoppedSeconds,
        },
        note: `Timed from the new process listening (the SIGTERM stop took ${stoppedSeconds.toFixed(1)} s); ${WRITES} messages written right after it listened. Clients back off ${socketReconnection.reconnectionDelay}–${socketReconnection.reconnectionDelayMax} ms with ±${socketReconnection.randomizationFactor * 100} % jitter, so the last one needs a few seconds by design.`,
      },
      {
        name: 'Server memory per connected socket',
        target: '≤ 50 KB',
        result: `${perSocketKb.toFixed(1)} KB (RSS ${(rssFresh / 2 ** 20).toFixed(0)} → ${(rssConnected / 2 ** 20).toFixed(0)} MB with ${reconnected.length} sockets)`,
        met: perSocketKb <= 50,
        values: { perSocketKb, rssFresh, rssConnected, sockets: reconnected.length },
        note: 'Measured on the restarted process: RSS when it listens vs. once every socket is back and has pulled (the pulls add a little).',
      },
    ],
  };
}
