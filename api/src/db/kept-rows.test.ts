import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { openDatabase, type Db } from './client';
import { KEPT_ROW_MS, KeptRows } from './kept-rows';
import { inSavepoint } from './savepoint';
import { transaction } from './transaction';

let dir: string;
let first: Db;
let second: Db;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'office-kept-'));
  first = openDatabase(join(dir, 'first.db'));
  second = openDatabase(join(dir, 'second.db'));
});

afterEach(() => {
  first.$client.close();
  second.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

const now = Date.now();

describe('KeptRows (SQLite)', () => {
  test('a kept row answers until it was read a minute ago, and only for its own database', () => {
    const kept = new KeptRows<{ name: string }>(10);
    kept.set(first, 'alice', { name: 'Alice' }, now);

    expect(kept.get(first, 'alice', now + KEPT_ROW_MS - 1)).toEqual({ name: 'Alice' });
    expect(kept.get(first, 'alice', now + KEPT_ROW_MS)).toBeUndefined();
    expect(kept.get(second, 'alice', now)).toBeUndefined();
  });

  test('forgetKey drops one row, forget the rows it picks', () => {
    const kept = new KeptRows<{ owner: string }>(10);
    kept.set(first, 's1', { owner: 'alice' }, now);
    kept.set(first, 's2', { owner: 'alice' }, now);
    kept.set(first, 's3', { owner: 'bob' }, now);

    kept.forgetKey(first, 's1');
    expect(kept.get(first, 's1', now)).toBeUndefined();
    kept.forget(first, (_key, row) => row.owner === 'alice');
    expect(kept.get(first, 's2', now)).toBeUndefined();
    expect(kept.get(first, 's3', now)).toEqual({ owner: 'bob' });
  });

  test('a rolled-back transaction drops what its database kept: it may have been read from its own writes', async () => {
    const kept = new KeptRows<{ name: string }>(10);
    kept.set(second, 'bob', { name: 'Bob' }, now);
    await expect(
      transaction(first, async () => {
        kept.set(first, 'alice', { name: 'Alice, renamed in a transaction that fails' }, now);
        throw new Error('unexpected');
      }),
    ).rejects.toThrow('unexpected');

    expect(kept.get(first, 'alice', now)).toBeUndefined();
    expect(kept.get(second, 'bob', now)).toEqual({ name: 'Bob' });
  });

  test('a rolled-back savepoint drops what its database kept; a committed transaction keeps it', async () => {
    const kept = new KeptRows<{ name: string }>(10);
    await transaction(first, async (tx) => {
      await expect(
        inSavepoint(tx, () => {
          kept.set(first, 'alice', { name: 'Alice, in a refused write' }, now);
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      expect(kept.get(first, 'alice', now)).toBeUndefined();
      kept.set(first, 'alice', { name: 'Alice' }, now);
    });

    expect(kept.get(first, 'alice', now)).toEqual({ name: 'Alice' });
  });
});
