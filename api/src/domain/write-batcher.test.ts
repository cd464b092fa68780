import { afterEach, expect, test, vi } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { errorCatalogue, uuidv7, type Actor } from '@office/sync-protocol';
import { chatMessages } from '../db/schema';
import type * as TransactionModule from '../db/transaction';
import { bearer, signIn, startTestServer, type TestServer } from '../../test/support';
import { sendChatCommand } from './chat/commands';
import { defineCommand } from './commands';
import { WriteBatcher } from './write-batcher';

// Counts the transactions the write batcher opens, on either database. Background work of the server (the push
// queue polls PostgreSQL every second) opens its own, which are told apart by who called.
const opened = vi.hoisted(() => ({ byBatcher: 0 }));
vi.mock('../db/transaction', async (importOriginal) => {
  const original = await importOriginal<typeof TransactionModule>();
  return {
    ...original,
    transaction: vi.fn((...args: Parameters<typeof original.transaction>) => {
      if (new Error().stack?.includes('WriteBatcher')) opened.byBatcher += 1;
      return original.transaction(...args);
    }),
  };
});

let server: TestServer | undefined;
afterEach(async () => {
  opened.byBatcher = 0;
  await server?.close();
  server = undefined;
});

test('chat messages posted together share one transaction; a refusal among them fails only its own request', async () => {
  server = await startTestServer();
  const { app } = server;
  const { token } = await signIn(app, 'alice@demo.local');
  const taken = uuidv7();
  const post = (id: string, text: string) =>
    app.inject({ method: 'POST', url: '/api/messages', headers: bearer(token), payload: { id, text } });
  expect((await post(taken, 'The original')).statusCode).toBe(201);

  opened.byBatcher = 0;
  const ids = Array.from({ length: 8 }, () => uuidv7());
  const answers = await Promise.all([
    ...ids.slice(0, 4).map((id, i) => post(id, `Together ${i}`)),
    post(taken, 'Another text under a taken id'),
    ...ids.slice(4).map((id, i) => post(id, `Together ${i + 4}`)),
  ]);

  expect(answers.map((answer) => answer.statusCode)).toEqual([201, 201, 201, 201, 409, 201, 201, 201, 201]);
  expect(answers[4]?.json()).toMatchObject({ code: 'duplicate_id', message: errorCatalogue.duplicate_id.message });
  expect(opened.byBatcher).toBeGreaterThan(0);
  expect(opened.byBatcher).toBeLessThan(ids.length);
  const stored = await app.db.select().from(chatMessages).where(inArray(chatMessages.id, ids));
  expect(stored).toHaveLength(ids.length);
  expect((await app.db.select().from(chatMessages).where(eq(chatMessages.id, taken)))[0]?.text).toBe('The original');
});

test('a write that arrives while a batch runs joins it', async () => {
  server = await startTestServer();
  const { app } = server;
  const { user } = await signIn(app, 'alice@demo.local');
  const actor: Actor = { id: user.id, role: user.role };
  const batcher = new WriteBatcher(app.db, app.flush);
  const [first, later] = [uuidv7(), uuidv7()];
  let arrived: Promise<unknown> | undefined;
  // The first write's command queues another write as it runs, as a request read meanwhile would.
  const sendAndReceiveAnother = defineCommand({
    name: 'test.sendAndReceiveAnother',
    args: sendChatCommand.args,
    run(ctx, args) {
      arrived = batcher.run(actor, sendChatCommand, { id: later, text: 'Arrived while the batch ran' });
      return sendChatCommand.run(ctx, args);
    },
  });

  opened.byBatcher = 0;
  await batcher.run(actor, sendAndReceiveAnother, { id: first, text: 'First' });
  await arrived;

  expect(opened.byBatcher).toBe(1);
  const stored = await app.db
    .select()
    .from(chatMessages)
    .where(inArray(chatMessages.id, [first, later]));
  expect(stored).toHaveLength(2);
});

test('writes queued while a flush to disk runs wait for it and commit together', async () => {
  server = await startTestServer();
  const { app } = server;
  const { user } = await signIn(app, 'alice@demo.local');
  const actor: Actor = { id: user.id, role: user.role };
  let flushEnded!: () => void;
  const flushRunning = new Promise<void>((resolve) => (flushEnded = resolve));
  const batcher = new WriteBatcher(app.db, app.flush, () => flushRunning);
  const ids = [uuidv7(), uuidv7(), uuidv7()];

  opened.byBatcher = 0;
  // Queued in separate turns of the event loop, as requests read one after another during the fsync.
  const sent: Promise<unknown>[] = [];
  for (const [i, id] of ids.entries()) {
    sent.push(batcher.run(actor, sendChatCommand, { id, text: `During the flush ${i}` }));
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(opened.byBatcher).toBe(0);
  flushEnded();
  await Promise.all(sent);

  expect(opened.byBatcher).toBe(1);
  const stored = await app.db.select().from(chatMessages).where(inArray(chatMessages.id, ids));
  expect(stored).toHaveLength(ids.length);
});
