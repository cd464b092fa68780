import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { openDatabase, type Db } from './client';
import { inSavepoint } from './savepoint';
import { transaction } from './transaction';
import { meta } from './schema';

let dir: string;
let db: Db;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'office-savepoint-'));
  db = openDatabase(join(dir, 'savepoint.db'));
});

afterEach(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

const keys = () =>
  db
    .select({ key: meta.key })
    .from(meta)
    .all()
    .map((row) => row.key)
    .filter((key) => key.startsWith('test.'))
    .sort();

test('a savepoint that throws undoes only its own writes, and the transaction goes on and commits', async () => {
  await transaction(db, async (tx) => {
    await inSavepoint(tx, () => tx.insert(meta).values({ key: 'test.kept', value: '1' }).run());
    await expect(
      inSavepoint(tx, () => {
        tx.insert(meta).values({ key: 'test.undone', value: '2' }).run();
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    // A second savepoint after a rolled-back one works: the name is free again.
    await inSavepoint(tx, () => tx.insert(meta).values({ key: 'test.after', value: '3' }).run());
  });
  expect(keys()).toEqual(['test.after', 'test.kept']);
  expect(db.$client.inTransaction).toBe(false);
});

test('a savepoint inside a transaction that rolls back leaves nothing', async () => {
  await expect(
    transaction(db, async (tx) => {
      await inSavepoint(tx, () => tx.insert(meta).values({ key: 'test.gone', value: '1' }).run());
      throw new Error('whole batch refused');
    }),
  ).rejects.toThrow('whole batch refused');
  expect(keys()).toEqual([]);
  expect(db.$client.inTransaction).toBe(false);
});
