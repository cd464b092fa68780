import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { asc, gt } from 'drizzle-orm';
import { uuidv7 } from '@office/sync-protocol';
import { openDatabase, type Db } from '../db/client';
import { changeAudience, changeLog, notifications, users } from '../db/schema';
import { seedDemo } from '../db/seed';
import { currentVersion, recordChange, recordChanges, type ChangeRef } from './change-log';

let dir: string;
let db: Db;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'office-change-log-'));
  db = openDatabase(join(dir, 'workspace.db'));
  await seedDemo(db, () => {});
});

afterEach(() => {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Notifications for every demo user, and the changes that put them (one put twice, one delete). */
function newNotifications(): Omit<ChangeRef, 'seq'>[] {
  const recipients = db.select({ id: users.id }).from(users).all();
  const rows = recipients.map(({ id }) => ({
    id: uuidv7(),
    recipientId: id,
    type: 'chat_message' as const,
    title: 'New message',
    message: 'Hello',
  }));
  db.insert(notifications).values(rows).run();
  const puts = rows.map((row) => ({
    entity: 'notification' as const,
    id: row.id,
    op: 'put' as const,
    audience: [`user:${row.recipientId}`],
  }));
  const [first, second] = puts;
  if (!first || !second) throw new Error('the demo has fewer than two users');
  return [...puts, { ...first, audience: ['team'] }, { ...second, op: 'delete', formerAudience: ['role:admin'] }];
}

/** The rows a set of changes left: [entity, id, op, principals] per sequence number, and each entity's version. */
function footprint(after: number, ids: string[]) {
  const log = db.select().from(changeLog).where(gt(changeLog.seq, after)).orderBy(asc(changeLog.seq)).all();
  const audience = db.select().from(changeAudience).where(gt(changeAudience.seq, after)).all();
  const versions = new Map(
    db
      .select()
      .from(notifications)
      .all()
      .map((row) => [row.id, row.version]),
  );
  return {
    log: log.map((row) => [
      row.seq - after,
      row.entity,
      row.entityId,
      row.op,
      audience
        .filter((a) => a.seq === row.seq)
        .map((a) => a.principal)
        .sort(),
    ]),
    versions: ids.map((id) => (versions.get(id) ?? 0) - after),
  };
}

test('recording many changes at once leaves the same rows, in the same order, as recording them one by one', () => {
  const oneByOne = newNotifications();
  const before = currentVersion(db);
  db.transaction((tx) => oneByOne.forEach((change) => recordChange(tx, change)));
  const expected = footprint(
    before,
    oneByOne.map((c) => c.id),
  );

  const atOnce = newNotifications();
  const middle = currentVersion(db);
  const refs = db.transaction((tx) => recordChanges(tx, atOnce));
  const actual = footprint(
    middle,
    atOnce.map((c) => c.id),
  );

  // Same shape with the other batch's ids: compare everything but the ids themselves.
  const withoutIds = (rows: typeof expected.log) =>
    rows.map(([seq, entity, , op, principals]) => [seq, entity, op, principals]);
  expect(withoutIds(actual.log)).toEqual(withoutIds(expected.log));
  expect(actual.log.map((row) => row[2])).toEqual(atOnce.map((c) => c.id));
  expect(actual.versions).toEqual(expected.versions);
  expect(refs.map((ref) => ref.seq - middle)).toEqual(atOnce.map((_, i) => i + 1));
});

test('recording nothing writes nothing', () => {
  const before = currentVersion(db);
  expect(db.transaction((tx) => recordChanges(tx, []))).toEqual([]);
  expect(currentVersion(db)).toBe(before);
});
