import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { openDatabase, type Db, type Tx } from './client';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { prepared, preparedSelect, preparedWrite } from './prepared';
import { inSavepoint } from './savepoint';
import { meta } from './schema';
import { transaction } from './transaction';

let dir: string;
let databases: Db[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'office-prepared-'));
  databases = [openDatabase(join(dir, 'first.db')), openDatabase(join(dir, 'second.db'))];
});

afterEach(() => {
  for (const db of databases) db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

const insertMeta = (handle: Db | Tx) =>
  prepared(handle, 'test.meta.insert', (h) =>
    h
      .insert(meta)
      .values({ key: sql.placeholder('key'), value: sql.placeholder('value') })
      .prepare(),
  );
const readMeta = (handle: Db | Tx, key: string) =>
  prepared(handle, 'test.meta.read', (h) =>
    h
      .select({ value: meta.value })
      .from(meta)
      .where(eq(meta.key, sql.placeholder('key')))
      .prepare(),
  ).get({ key })?.value;

test('a prepared query is built once per connection and runs on the database it was asked for', () => {
  const [first, second] = databases as [Db, Db];
  expect(insertMeta(first)).toBe(insertMeta(first));
  expect(insertMeta(first)).not.toBe(insertMeta(second));
  insertMeta(first).run({ key: 'where', value: 'first' });
  insertMeta(second).run({ key: 'where', value: 'second' });
  expect(readMeta(first, 'where')).toBe('first');
  expect(readMeta(second, 'where')).toBe('second');
});

test('a query prepared outside a transaction takes part in a later one: it commits and rolls back with it', async () => {
  const [db] = databases as [Db];
  insertMeta(db);
  await transaction(db, async (tx) => {
    insertMeta(tx).run({ key: 'kept', value: 'yes' });
    await expect(
      inSavepoint(tx, () => {
        insertMeta(tx).run({ key: 'dropped', value: 'yes' });
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
  });
  await expect(
    transaction(db, async (tx) => {
      insertMeta(tx).run({ key: 'rolled back', value: 'yes' });
      throw new Error('failed');
    }),
  ).rejects.toThrow('failed');
  expect(readMeta(db, 'kept')).toBe('yes');
  expect(readMeta(db, 'dropped')).toBeUndefined();
  expect(readMeta(db, 'rolled back')).toBeUndefined();
});

/** A table of this test's own, with a boolean column (stored as 0 or 1, as drizzle's encoder writes it). */
const flags = sqliteTable('test_flags', {
  id: text('id').primaryKey(),
  on: integer('on', { mode: 'boolean' }).notNull(),
  first: text('first'),
  second: text('second'),
});

test('a prepared write binds its placeholders by name, through the encoders of their columns, and its constants; it counts its rows', async () => {
  const [db] = databases;
  if (!db) throw new Error('no database');
  db.$client.exec('CREATE TABLE test_flags (id TEXT PRIMARY KEY, "on" INTEGER NOT NULL, first TEXT, second TEXT)');
  const insert = preparedWrite(db, 'test.flags.insert', (h) =>
    h
      .insert(flags)
      .values({
        id: sql.placeholder('id'),
        on: sql.placeholder('on'),
        first: sql.placeholder('stamp'),
        second: sql.placeholder('stamp'),
      })
      .onConflictDoNothing(),
  );
  const setOff = preparedWrite(db, 'test.flags.setOff', (h) =>
    h
      .update(flags)
      .set({ on: false })
      .where(eq(flags.id, sql.placeholder('id'))),
  );

  expect(await insert({ id: 'a', on: true, stamp: 'then' })).toBe(1);
  expect(await insert({ id: 'a', on: false, stamp: 'again' })).toBe(0);
  expect(await insert({ id: 'b', on: false, stamp: null })).toBe(1);
  expect(db.$client.prepare('SELECT * FROM test_flags ORDER BY id').all()).toEqual([
    { id: 'a', on: 1, first: 'then', second: 'then' },
    { id: 'b', on: 0, first: null, second: null },
  ]);
  expect(await setOff({ id: 'missing' })).toBe(0);
  expect(await setOff({ id: 'a' })).toBe(1);
  expect(db.$client.prepare('SELECT "on" FROM test_flags WHERE id = ?').pluck().get('a')).toBe(0);
});

test('a prepared select answers what drizzle would: its fields by name, decoded by their columns, across a join', async () => {
  const [db] = databases;
  if (!db) throw new Error('no database');
  db.$client.exec('CREATE TABLE test_flags (id TEXT PRIMARY KEY, "on" INTEGER NOT NULL, first TEXT, second TEXT)');
  db.$client.exec(`INSERT INTO test_flags VALUES ('a', 1, 'one', NULL), ('b', 0, NULL, 'two')`);
  await transaction(db, async (tx) => {
    await tx.insert(meta).values({ key: 'b', value: 'meta of b' });
  });
  const byId = preparedSelect(
    db,
    'test.flags.byId',
    { on: flags.on, first: flags.first, value: meta.value },
    (h, fields) =>
      h
        .select(fields)
        .from(flags)
        .leftJoin(meta, eq(meta.key, flags.id))
        .where(eq(flags.id, sql.placeholder('id'))),
  );
  const asDrizzle = (id: string) =>
    db
      .select({ on: flags.on, first: flags.first, value: meta.value })
      .from(flags)
      .leftJoin(meta, eq(meta.key, flags.id))
      .where(eq(flags.id, id));

  expect(await byId({ id: 'a' })).toEqual([{ on: true, first: 'one', value: null }]);
  expect(await byId({ id: 'b' })).toEqual([{ on: false, first: null, value: 'meta of b' }]);
  expect(await byId({ id: 'missing' })).toEqual([]);
  for (const id of ['a', 'b', 'missing']) expect(await byId({ id })).toEqual(await asDrizzle(id));
  // Drizzle takes statements of the same text from the connection's cache and sets their mode: not this one's.
  const sameText = asDrizzle('a').toSQL().sql;
  db.$client.prepare(sameText).raw(false);
  expect(await byId({ id: 'a' })).toEqual([{ on: true, first: 'one', value: null }]);
});
