import { beforeAll, describe, expect, test } from 'vitest';
import { sleep, waitUntil } from '../../test/support';
import type { ServerProcess } from '../../server-process';
import {
  emptyWriteLog,
  integrityCheck,
  lostWrites,
  seededRandom,
  signInOverHttp,
  startWriters,
  SyncOutbox,
  useChildServers,
  type WriterSessions,
} from '../../test/fault-support';

const ROUNDS = 20;
/**
 * The budget is 25 s for all rounds; they take about 15 s on a quiet 2-core machine, nearly
 * all of it the 21 server starts. The timeout leaves room for a machine busy with other test runs.
 */
const TIMEOUT_MS = 150_000;
// FAULT_SEED replays a failing run: it fixes each round's kill moment.
const seed = Number(process.env.FAULT_SEED ?? Date.now() % 1_000_000_000);
const random = seededRandom(seed);

const servers = useChildServers();
let dataDir = '';
let server: ServerProcess;
let sessions: WriterSessions;

// The same data dir in every round; the demo users exist from the first start, and their tokens
// outlive restarts because the JWT secret is fixed.
const startServer = () => servers.start({ dataDir, env: { SEED_DEMO: '1' } });

beforeAll(async () => {
  dataDir = servers.newDataDir();
  server = await startServer();
  const [manager, alice, bob, carol] = await Promise.all(
    ['manager', 'alice', 'bob', 'carol'].map((name) => signInOverHttp(server.url, `${name}@demo.local`)),
  );
  if (!manager || !alice || !bob || !carol) throw new Error('the demo users did not sign in');
  sessions = {
    chatAuthors: [alice, bob],
    manager,
    assignee: alice,
    syncClients: [
      { session: bob, outbox: new SyncOutbox('bob pushes') },
      { session: carol, outbox: new SyncOutbox('carol pushes') },
    ],
  };
}, 30_000);

describe('crash durability', () => {
  test(
    `writes acknowledged before a kill -9 are all present after restart, and PRAGMA integrity_check is ok (${ROUNDS} rounds under load)`,
    async ({ signal }) => {
      const log = emptyWriteLog();
      const started = Date.now();
      let inFlightAtKills = 0;
      let restartMs = 0;
      for (let round = 1; round <= ROUNDS; round++) {
        // After a timeout the test body runs on in the background: no more rounds then.
        signal.throwIfAborted();
        const context = `seed ${seed}, round ${round}`;
        const writers = startWriters(server.url, sessions, { log });
        // Once each writer got through (the fresh process is warm and every kind of write is in the
        // round), a plain sleep is the point: the kill lands at a random moment of the load.
        await waitUntil(writers.allAcknowledged, 10_000);
        await sleep(20 + Math.floor(random() * 131));
        const inFlight = writers.inFlight();
        server.child.kill('SIGKILL');
        await writers.stop();
        expect((await server.exited).signal, context).toBe('SIGKILL');
        expect(inFlight, `${context}: the kill landed with no write in flight`).toBeGreaterThan(0);
        inFlightAtKills += inFlight;

        const restartedAt = Date.now();
        server = await startServer();
        restartMs += Date.now() - restartedAt;
        expect(integrityCheck(dataDir), context).toBe('ok');
        expect(lostWrites(dataDir, log), context).toEqual([]);
        // Before the kill every answer was a 2xx; a refusal would mean the load itself was wrong.
        expect(log.refusals, context).toEqual([]);
      }

      const acknowledged = {
        chat: log.chatMessageIds.length,
        tasks: log.taskIds.length,
        sync: log.syncMutations.length,
        syncDuplicates: log.syncDuplicates,
      };
      // Every round had each kind of write acknowledged before its kill.
      expect(acknowledged.chat).toBeGreaterThanOrEqual(ROUNDS * sessions.chatAuthors.length);
      expect(acknowledged.tasks).toBeGreaterThanOrEqual(ROUNDS);
      expect(acknowledged.sync).toBeGreaterThanOrEqual(ROUNDS * sessions.syncClients.length);
      if (process.env.FAULT_VERBOSE)
        console.info(
          `crash durability: ${ROUNDS} rounds in ${Date.now() - started} ms (restarts ${restartMs} ms), seed ${seed},`,
          `acknowledged ${JSON.stringify(acknowledged)}, ${inFlightAtKills} writes in flight at the kills`,
        );
    },
    TIMEOUT_MS,
  );
});
