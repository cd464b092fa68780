import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { PullResponse, PushResponse } from '@office/sync-protocol';
import { signIn, startTestServer, type TestServer } from '../../../api/src/test-support';
import { ApiError } from '../api/http';
import type { WorkspaceDb } from '../data/db';
import { SyncEngine } from './engine';
import { mutate } from './mutate';
import { freshDb } from './test-support';
import type { SyncTransport } from './transport';

let server: TestServer;
let db: WorkspaceDb;

beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  db?.close();
  await server.close();
});

/** The engine's real wire calls against the real server, with a switch to cut the network. */
function networkTransport(token: string) {
  const state = { online: true, dropNextPushAnswer: false };
  const call = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    if (!state.online) throw new ApiError(0, 'network', 'offline');
    const response = await fetch(`${server.url}/api${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    const body = (await response.json()) as T & { code?: string; message?: string };
    if (!response.ok) throw new ApiError(response.status, body.code ?? 'internal', body.message ?? '');
    return body;
  };
  const transport: SyncTransport = {
    async push(request) {
      const answer = await call<PushResponse>('/sync/push', { method: 'POST', body: JSON.stringify(request) });
      if (state.dropNextPushAnswer) {
        // The server committed, but the answer never arrives.
        state.dropNextPushAnswer = false;
        throw new ApiError(0, 'network', 'connection reset');
      }
      return answer;
    },
    pull: ({ clientId, cursor, limit }) =>
      call<PullResponse>(`/sync/pull?clientId=${clientId}&cursor=${cursor}&limit=${limit}`),
  };
  return { transport, state };
}

const countRows = (sql: string, ...params: unknown[]) =>
  (server.app.db.$client.prepare(sql).get(...params) as { n: number }).n;

describe('the sync engine against the real server', () => {
  test('writes queued offline reach the server exactly once, in order, when the network returns', async () => {
    const { token, user } = await signIn(server.app, 'alice@demo.local');
    db = freshDb(user.id);
    const ctx = { userId: user.id };
    const { transport, state } = networkTransport(token);
    const engine = new SyncEngine(db, ctx, transport, { random: () => 0.5 });
    engine.kick();
    await engine.settled();
    expect(await db.users.count()).toBe(5);

    state.online = false;
    for (const name of ['Alice One', 'Alice Two', 'Alice Three']) {
      await mutate(db, ctx, 'user.updateDetails', { name, email: 'alice@demo.local' });
      engine.kick();
      await engine.settled();
    }
    expect(engine.getState().phase).toBe('offline');
    expect(await db.users.get(user.id)).toMatchObject({ name: 'Alice Three', pending: 1 });
    expect(countRows('SELECT count(*) n FROM sync_mutations')).toBe(0);

    state.online = true;
    engine.kick();
    await engine.settled();
    expect(engine.getState().phase).toBe('idle');
    expect(await db.outbox.count()).toBe(0);
    const local = await db.users.get(user.id);
    expect(local).toMatchObject({ name: 'Alice Three' });
    expect(local?.pending).toBeUndefined();
    expect(server.app.db.$client.prepare('SELECT name FROM users WHERE id = ?').get(user.id)).toEqual({
      name: 'Alice Three',
    });
    expect(countRows("SELECT count(*) n FROM sync_mutations WHERE status = 'applied'")).toBe(3);
    expect(countRows("SELECT count(*) n FROM change_log WHERE entity = 'user' AND entity_id = ?", user.id)).toBe(4);
    engine.stop();
  });

  test('an answer lost after the server committed is replayed as a duplicate, with one effect', async () => {
    const { token, user } = await signIn(server.app, 'bob@demo.local');
    db = freshDb(user.id);
    const ctx = { userId: user.id };
    const { transport, state } = networkTransport(token);
    const engine = new SyncEngine(db, ctx, transport, { random: () => 0 });
    state.dropNextPushAnswer = true;
    await mutate(db, ctx, 'user.updateDetails', { name: 'Robert Smith', email: 'bob@demo.local' });
    engine.kick();
    await engine.settled();
    expect(await db.outbox.count()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 600));
    await engine.settled();
    expect(await db.outbox.count()).toBe(0);
    expect(countRows('SELECT count(*) n FROM sync_mutations')).toBe(1);
    expect(countRows('SELECT count(*) n FROM change_log WHERE entity_id = ?', user.id)).toBe(2);
    expect(await db.users.get(user.id)).toMatchObject({ name: 'Robert Smith' });
    engine.stop();
  });
});
