import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { ChatMessage, ErrorBody } from '@office/sync-protocol';
import { connectSocket, waitUntil, type TestSocket } from '../../test/support';
import { sampleFile } from '../../test/multipart';
import type { ServerProcess } from '../../server-process';
import {
  getOnNewConnection,
  integrityCheck,
  lostWrites,
  signInOverHttp,
  startWriters,
  streamMultipartUpload,
  SyncOutbox,
  useChildServers,
  type HttpSession,
  type WriterSessions,
} from '../../test/fault-support';

/** The limit from SIGTERM to the process gone. */
const SHUTDOWN_LIMIT_MS = 10_000;
const SLOW_UPLOAD_BYTES = 1024 * 1024;
/** Long enough that the upload is surely still arriving when the 503 is seen. */
const SLOW_UPLOAD_MS = 2000;

const servers = useChildServers();
let dataDir = '';
let server: ServerProcess;
let people: Record<'manager' | 'alice' | 'bob' | 'carol', HttpSession>;
const sockets: TestSocket[] = [];

beforeAll(async () => {
  dataDir = servers.newDataDir();
  server = await servers.start({ dataDir, env: { SEED_DEMO: '1' } });
  const [manager, alice, bob, carol] = await Promise.all(
    ['manager', 'alice', 'bob', 'carol'].map((name) => signInOverHttp(server.url, `${name}@demo.local`)),
  );
  if (!manager || !alice || !bob || !carol) throw new Error('the demo users did not sign in');
  people = { manager, alice, bob, carol };
  return () => {
    for (const socket of sockets) socket.close();
  };
}, 30_000);

const uploadsOnDisk = () => readdirSync(join(dataDir, 'uploads'));

describe('graceful shutdown', () => {
  test('SIGTERM under load finishes in 10 s: in-flight requests complete, new ones get 503, sockets close cleanly, no acknowledged write is lost', async () => {
    const { manager, alice, bob, carol } = people;
    sockets.push(...(await Promise.all([alice, bob].map((person) => connectSocket(server.url, person.token)))));
    const disconnects = sockets.map(
      (socket) => new Promise<string>((resolve) => socket.once('disconnect', (reason) => resolve(reason))),
    );
    const sessions: WriterSessions = {
      chatAuthors: [alice, bob],
      manager,
      assignee: alice,
      syncClients: [{ session: carol, outbox: new SyncOutbox('carol pushes') }],
    };
    const writers = startWriters(server.url, sessions);
    await waitUntil(writers.allAcknowledged, 10_000);

    // A slow client's upload: SIGTERM comes once the server has started storing its file.
    const filesBefore = new Set(uploadsOnDisk());
    const slowUpload = streamMultipartUpload<{ message: ChatMessage }>({
      url: `${server.url}/api/messages/upload`,
      token: bob.token,
      // It starts as an MP4 does: uploads are typed by their bytes.
      file: { name: 'slow.mp4', type: 'video/mp4', size: SLOW_UPLOAD_BYTES, head: sampleFile('slow.mp4') },
      fields: { text: 'sent over a slow line' },
      durationMs: SLOW_UPLOAD_MS,
    });
    await waitUntil(() => uploadsOnDisk().some((name) => !filesBefore.has(name)), 5000);
    let slowUploadDone = false;
    const markDone = () => (slowUploadDone = true);
    slowUpload.then(markDone, markDone);

    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    const writesInFlight = writers.inFlight();

    // The signal is handled on the server's next turn: a new request gets 503 from then on.
    let refused: Awaited<ReturnType<typeof getOnNewConnection>> | undefined;
    await waitUntil(async () => {
      refused = await getOnNewConnection(`${server.url}/api/auth/me`, alice.token);
      return refused.status !== 200;
    }, 5000);
    expect(slowUploadDone, 'the slow upload was still in flight when the 503 came').toBe(false);
    expect(refused?.status).toBe(503);
    expect(refused?.body).toEqual({
      code: 'unavailable',
      message: 'The server is busy or restarting. Please try again shortly.',
    } satisfies ErrorBody);
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused?.headers.connection).toBe('close');

    const slow = await slowUpload;
    expect(slow.status, JSON.stringify(slow.body)).toBe(201);
    // Until the last request in flight is answered the server only drains: no connection fails.
    expect(writers.log.networkErrors, 'requests failed while the server drained').toBe(0);
    const exit = await server.exited;
    const shutdownMs = Date.now() - signalledAt;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(shutdownMs).toBeLessThanOrEqual(SHUTDOWN_LIMIT_MS);
    expect(await Promise.all(disconnects)).toEqual(['io server disconnect', 'io server disconnect']);

    const log = await writers.stop();
    // Once draining, the only refusal is our 503; anything else (a 500, a 401) would be a fault.
    const unavailable = `503 ${JSON.stringify(refused?.body)}`;
    expect(log.refusals.filter((refusal) => refusal !== unavailable)).toEqual([]);
    if (process.env.FAULT_VERBOSE)
      console.info(
        `graceful shutdown: exit ${shutdownMs} ms after SIGTERM (${writesInFlight} writes in flight); acknowledged chat ${log.chatMessageIds.length},`,
        `tasks ${log.taskIds.length}, sync ${log.syncMutations.length}; ${log.refusals.length} refused with 503,`,
        `${log.networkErrors} network errors after the listener closed`,
        log.refusals.slice(0, 2),
      );

    server = await servers.start({ dataDir, env: { SEED_DEMO: '1' } });
    expect(integrityCheck(dataDir)).toBe('ok');
    expect(lostWrites(dataDir, { ...log, chatMessageIds: [...log.chatMessageIds, slow.body.message.id] })).toEqual([]);
    const [attachment] = slow.body.message.attachments;
    expect(statSync(join(dataDir, 'uploads', attachment?.filename ?? '')).size).toBe(SLOW_UPLOAD_BYTES);
  }, 30_000);
});
