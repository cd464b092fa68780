import { eq, like } from 'drizzle-orm';
import { afterEach, expect, test } from 'vitest';
import type { Tx } from '../db/client';
import { sendAhead } from '../db/postgres-transaction';
import { inSavepoint } from '../db/savepoint';
import { meta } from '../db/schema';
import { transaction } from '../db/transaction';
import { startTestServer, type TestServer } from '../../test/support';
import { DomainError } from './errors';

// Statements sent ahead (PostgreSQL pipelines them; SQLite runs them at once) must never let a transaction commit
// without them: these hold on both databases.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const insertKey = (tx: Tx, key: string) => () => tx.insert(meta).values({ key, value: 'sent ahead' }).execute();

const testKeys = async (server: TestServer) =>
  (await server.app.db.select({ key: meta.key }).from(meta).where(like(meta.key, 'test.%')))
    .map((row) => row.key)
    .sort();

test('a statement sent ahead runs before the statements that follow it', async () => {
  server = await startTestServer();
  const seen = await transaction(server.app.db, async (tx) => {
    await sendAhead(tx, insertKey(tx, 'test.ahead'));
    return tx.select({ value: meta.value }).from(meta).where(eq(meta.key, 'test.ahead'));
  });
  expect(seen).toEqual([{ value: 'sent ahead' }]);
  expect(await testKeys(server)).toEqual(['test.ahead']);
});

test('a statement sent ahead that fails rolls its transaction back, though the work returned', async () => {
  server = await startTestServer();
  const { db } = server.app;
  await db.insert(meta).values({ key: 'test.taken', value: 'before' });
  await expect(
    transaction(db, async (tx) => {
      await tx.insert(meta).values({ key: 'test.written', value: 'in the transaction' });
      await sendAhead(tx, insertKey(tx, 'test.taken'));
    }),
  ).rejects.toThrow();
  expect(await testKeys(server)).toEqual(['test.taken']);
});

test('a refusal after a failed statement sent ahead fails the transaction: no savepoint is rolled back past it', async () => {
  server = await startTestServer();
  const { db } = server.app;
  await db.insert(meta).values({ key: 'test.taken', value: 'before' });
  const refused = new DomainError('invalid_input', 'refused');
  // As a batch of writes does: a refused write is rolled back to its savepoint, and the batch goes on.
  const outcome = transaction(db, async (tx) => {
    await inSavepoint(tx, async () => {
      await tx.insert(meta).values({ key: 'test.first', value: 'first write' });
      await sendAhead(tx, insertKey(tx, 'test.taken'));
    });
    await inSavepoint(tx, () => {
      throw refused;
    }).catch((error: unknown) => {
      if (error !== refused) throw error;
    });
    await tx.insert(meta).values({ key: 'test.after', value: 'a later write' });
  });
  await expect(outcome).rejects.toThrow();
  expect(await testKeys(server)).toEqual(['test.taken']);
});
