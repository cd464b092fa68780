import { eq } from 'drizzle-orm';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { openDatabase, type Db } from './client';
import { meta } from './schema';
import { transaction } from './transaction';

let dir: string;
let db: Db;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'office-transaction-'));
  db = openDatabase(join(dir, 'transaction.db'));
});

afterEach(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

const valueOf = async (key: string): Promise<string | undefined> =>
  (await db.select({ value: meta.value }).from(meta).where(eq(meta.key, key)))[0]?.value;

test('transactions started together take turns: the second begins once the first has committed', async () => {
  const order: string[] = [];
  const first = transaction(db, async (tx) => {
    order.push('first begins');
    await tx.insert(meta).values({ key: 'test.turns', value: 'first' });
    // A real wait inside the first: the second must not start meanwhile.
    await sleep(20);
    order.push('first ends');
    return 'first result';
  });
  const second = transaction(db, async (tx) => {
    order.push('second begins');
    const [row] = await tx.select().from(meta).where(eq(meta.key, 'test.turns'));
    await tx
      .update(meta)
      .set({ value: `${row?.value ?? 'none'} then second` })
      .where(eq(meta.key, 'test.turns'));
  });
  expect(await first).toBe('first result');
  await second;
  expect(order).toEqual(['first begins', 'first ends', 'second begins']);
  expect(await valueOf('test.turns')).toBe('first then second');
  expect(db.$client.inTransaction).toBe(false);
});

test('a transaction that throws keeps none of its writes, and the one waiting behind it runs', async () => {
  const failing = transaction(db, async (tx) => {
    await tx.insert(meta).values({ key: 'test.undone', value: '1' });
    await sleep(5);
    throw new Error('refused');
  });
  const next = transaction(db, async (tx) => {
    await tx.insert(meta).values({ key: 'test.next', value: '2' });
  });
  await expect(failing).rejects.toThrow('refused');
  await next;
  expect(await valueOf('test.undone')).toBeUndefined();
  expect(await valueOf('test.next')).toBe('2');
});

test('a failing statement rolls its transaction back and leaves the connection usable', async () => {
  await transaction(db, async (tx) => {
    await tx.insert(meta).values({ key: 'test.taken', value: '1' });
  });
  await expect(
    transaction(db, async (tx) => {
      await tx.insert(meta).values({ key: 'test.partial', value: '1' });
      await tx.insert(meta).values({ key: 'test.taken', value: 'again' });
    }),
  ).rejects.toThrow(/UNIQUE/);
  expect(await valueOf('test.partial')).toBeUndefined();
  expect(db.$client.inTransaction).toBe(false);
  await transaction(db, async (tx) => {
    await tx.insert(meta).values({ key: 'test.after', value: '1' });
  });
  expect(await valueOf('test.after')).toBe('1');
});
