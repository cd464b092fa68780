import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import {
  pullResponseSchema,
  pushResponseSchema,
  uploadOutcomeResponseSchema,
  uuidv7,
  type PullQuery,
} from '@office/sync-protocol';
import { signIn, startTestServer, type TestServer } from '../../../api/test/support';
import { ApiError } from '../api/http';
import type { WorkspaceDb } from '../data/db';
import { SyncEngine } from './engine';
import { clientIdOf } from './meta';
import { mutate } from './mutate';
import { freshDb } from '../../test/sync-support';
import { uploadForm, type SyncTransport } from './transport';

let server: TestServer;
let db: WorkspaceDb;

beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  db?.close();
  await server.close();
});

/**
 * The engine's real wire calls against the real server, with a switch to cut the network. Every answer is
 * parsed with the protocol's schema, as the PWA's transport does: the server's answers must match them.
 */
function networkTransport(token: string) {
  const state = {
    online: true,
    dropNextPushAnswer: false,
    /** Smaller bootstrap pages than the engine asks for, so a small workspace downloads in several. */
    pageLimit: null as number | null,
    /** Called before each pull is sent, with the query; the pull waits for what it returns. */
    beforePull: (_query: PullQuery): Promise<void> | void => undefined,
    /** What was sent, in order: `push` or `pull <cursor> <snapshot token or ->`. */
    calls: [] as string[],
  };
  const call = async <S extends z.ZodType>(path: string, answer: S, init: RequestInit = {}): Promise<z.output<S>> => {
    if (!state.online) throw new ApiError(0, 'network', 'offline');
    const response = await fetch(`${server.url}/api${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    const body: unknown = await response.json();
    if (!response.ok) {
      const failure = body as { code?: string; message?: string };
      throw new ApiError(response.status, failure.code ?? 'internal', failure.message ?? '');
    }
    return answer.parse(body);
  };
  const transport: SyncTransport = {
    async push(request) {
      state.calls.push('push');
      const answer = await call('/sync/push', pushResponseSchema, { method: 'POST', body: JSON.stringify(request) });
      if (state.dropNextPushAnswer) {
        // The server committed, but the answer never arrives.
        state.dropNextPushAnswer = false;
        throw new ApiError(0, 'network', 'connection reset');
      }
      return answer;
    },
    async pull(query) {
      await state.beforePull(query);
      state.calls.push(`pull ${query.cursor} ${query.snapshot ?? '-'}`);
      const params = new URLSearchParams({
        clientId: query.clientId,
        cursor: String(query.cursor),
        limit: String(state.pageLimit ?? query.limit),
        ...(query.snapshot ? { snapshot: query.snapshot } : {}),
      });
      return call(`/sync/pull?${params.toString()}`, pullResponseSchema);
    },
    async upload(clientId, entry) {
      if (!state.online) throw new ApiError(0, 'network', 'offline');
      const form = uploadForm(clientId, entry);
      const response = await fetch(`${server.url}/api/messages/upload`, {
        method: 'POST',
        body: form,
        headers: { authorization: `Bearer ${token}` },
      });
      const body = uploadOutcomeResponseSchema.parse(await response.json());
      if (state.dropNextPushAnswer) {
        state.dropNextPushAnswer = false;
        throw new ApiError(0, 'network', 'connection reset');
      }
      return body.outcome;
    },
  };
  return { transport, state };
}

const countRows = (sql: string, ...params: unknown[]) =>
  (server.app.db.$client.prepare(sql).get(...params) as { n: number }).n;
/** How many of this device's mutations the server has processed (applied or refused). */
const processedOf = async (db: WorkspaceDb) =>
  countRows('SELECT coalesce(max(last_mutation_id), 0) n FROM sync_clients WHERE client_id = ?', await clientIdOf(db));

/** A new device of the person with `email`: signed in, its database empty, its engine's backoff jitter `random`. */
async function newDevice(email: string, random: number) {
  const { token, user } = await signIn(server.app, email);
  db = freshDb(user.id);
  const ctx = { userId: user.id };
  const { transport, state } = networkTransport(token);
  const engine = new SyncEngine(db, ctx, transport, { random: () => random });
  return { user, ctx, state, engine };
}

describe('the sync engine against the real server', () => {
  test('writes queued offline reach the server exactly once, in order, when the network returns', async () => {
    const { user, ctx, state, engine } = await newDevice('alice@demo.local', 0.5);
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
    expect(await processedOf(db)).toBe(0);

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
    // All three applied: processed, and no refusal stored.
    expect(await processedOf(db)).toBe(3);
    expect(countRows('SELECT count(*) n FROM sync_mutations')).toBe(0);
    expect(countRows("SELECT count(*) n FROM change_log WHERE entity = 'user' AND entity_id = ?", user.id)).toBe(4);
    engine.stop();
  });

  test('a message written during a first download reaches the server between its pages, not after the last', async () => {
    const { user, ctx, state, engine } = await newDevice('manager@demo.local', 0);
    state.pageLimit = 4;
    const id = uuidv7();
    // The person sends a message while the second page is on its way.
    let pulls = 0;
    state.beforePull = async () => {
      pulls += 1;
      if (pulls === 2) await mutate(db, ctx, 'chat.send', { id, text: 'Sent while downloading' });
    };
    engine.kick();
    await engine.settled();

    const pages = state.calls.filter((call) => call.startsWith('pull 0 '));
    expect(pages.length).toBeGreaterThan(3);
    // Pushed right after the second page, while the rest of the download was still to come.
    expect(state.calls.indexOf('push')).toBe(2);
    expect(state.calls.slice(3).filter((call) => call.startsWith('pull 0 ')).length).toBeGreaterThan(0);
    expect(countRows('SELECT count(*) n FROM chat_messages WHERE id = ? AND user_id = ?', id, user.id)).toBe(1);
    expect(await db.outbox.count()).toBe(0);
    expect(await db.chatMessages.get(id)).toMatchObject({ text: 'Sent while downloading' });
    expect((await db.chatMessages.get(id))?.pending).toBeUndefined();
    engine.stop();
  });

  test('an answer lost after the server committed is replayed as a duplicate, with one effect', async () => {
    const { user, ctx, state, engine } = await newDevice('bob@demo.local', 0);
    state.dropNextPushAnswer = true;
    await mutate(db, ctx, 'user.updateDetails', { name: 'Robert Smith', email: 'bob@demo.local' });
    engine.kick();
    await engine.settled();
    expect(await db.outbox.count()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 600));
    await engine.settled();
    expect(await db.outbox.count()).toBe(0);
    expect(await processedOf(db)).toBe(1);
    expect(countRows('SELECT count(*) n FROM change_log WHERE entity_id = ?', user.id)).toBe(2);
    expect(await db.users.get(user.id)).toMatchObject({ name: 'Robert Smith' });
    engine.stop();
  });

  test('a message with a file written offline is uploaded once, in its place in the queue, even when the answer is lost', async () => {
    const { ctx, state, engine } = await newDevice('carol@demo.local', 0);
    engine.kick();
    await engine.settled();

    const seededFiles = readdirSync(join(server.config.dataDir, 'uploads')).length;
    state.online = false;
    const before = uuidv7();
    const withFile = uuidv7();
    const after = uuidv7();
    await mutate(db, ctx, 'chat.send', { id: before, text: 'First, plain text' });
    const blob = new Blob(['quarterly numbers'], { type: 'text/plain' });
    await mutate(db, ctx, 'chat.sendFiles', {
      id: withFile,
      text: 'Here is the file',
      files: [{ name: 'numbers.txt', type: 'text/plain', size: blob.size, blob }],
    });
    await mutate(db, ctx, 'chat.send', { id: after, text: 'Last, plain text' });
    expect(await db.chatMessages.get(withFile)).toMatchObject({
      pending: 1,
      attachments: [{ originalName: 'numbers.txt' }],
    });

    state.online = true;
    state.dropNextPushAnswer = false;
    engine.kick();
    await engine.settled();
    expect(await db.outbox.count()).toBe(0);

    const rows = server.app.db.$client
      .prepare('SELECT id FROM chat_messages WHERE id IN (?, ?, ?) ORDER BY rowid')
      .all(before, withFile, after) as { id: string }[];
    expect(rows.map((row) => row.id)).toEqual([before, withFile, after]);
    expect(countRows('SELECT count(*) n FROM chat_attachments WHERE message_id = ?', withFile)).toBe(1);
    const synced = await db.chatMessages.get(withFile);
    expect(synced?.pending).toBeUndefined();
    expect(synced?.attachments[0]).toMatchObject({ originalName: 'numbers.txt', kind: 'document' });

    // The same queued upload again (its answer lost): the server answers duplicate and keeps one file.
    const again = uuidv7();
    await mutate(db, ctx, 'chat.sendFiles', {
      id: again,
      text: '',
      files: [{ name: 'again.txt', type: 'text/plain', size: blob.size, blob }],
    });
    state.dropNextPushAnswer = true;
    engine.kick();
    await engine.settled();
    expect(await db.outbox.count()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 700));
    await engine.settled();
    expect(await db.outbox.count()).toBe(0);
    expect(countRows('SELECT count(*) n FROM chat_attachments WHERE message_id = ?', again)).toBe(1);
    expect(readdirSync(join(server.config.dataDir, 'uploads'))).toHaveLength(seededFiles + 2);
    engine.stop();
  });
});
