import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterEach, describe, expect, test } from 'vitest';
import { uuidv7 } from '@office/sync-protocol';
import { compactableUpTo, pushChatCursor } from '../domain/change-log';
import { changeLogFloor, readablePosition } from './change-feed';
import { listNotices, markerOf, unreadCount } from '../domain/notifications/notices';
import { openDatabase } from './client';

// Issue 14, point 7: a database made by the schema before team chat notices were derived (migrations up to
// 0005, filled as that code filled it) converts: each person's stored chat notices become their read marker and
// marks, every person reads the same notices read and unread as before, and no other notification is lost.

const migrations = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'drizzle');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A database at the schema of migration `upTo` (0005 by default), as the code of that time left it. */
function yesterdaysDatabase(upTo = 5): { file: string; sqlite: Database.Database } {
  const dir = mkdtempSync(join(tmpdir(), 'office-migration-'));
  dirs.push(dir);
  const folder = join(dir, 'drizzle');
  mkdirSync(join(folder, 'meta'), { recursive: true });
  const journal = JSON.parse(readFileSync(join(migrations, 'meta', '_journal.json'), 'utf8')) as {
    entries: { idx: number; tag: string }[];
  };
  journal.entries = journal.entries.filter((entry) => entry.idx <= upTo);
  writeFileSync(join(folder, 'meta', '_journal.json'), JSON.stringify(journal));
  for (const { tag } of journal.entries) cpSync(join(migrations, `${tag}.sql`), join(folder, `${tag}.sql`));
  const file = join(dir, 'workspace.db');
  const sqlite = new Database(file);
  migrate(drizzle({ client: sqlite }), { migrationsFolder: folder });
  return { file, sqlite };
}

const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 9, minute)).toISOString();

describe('migrating a database of the per-member chat notices', () => {
  test('read markers and marks keep every person’s read and unread; other notifications stay; devices bootstrap', async () => {
    const { file, sqlite } = yesterdaysDatabase();
    const person = (name: string, joined: number) => {
      const id = uuidv7();
      sqlite
        .prepare('INSERT INTO users (id, name, email, role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(id, name, `${name.toLowerCase()}@old.test`, 'employee', at(joined), at(joined));
      return id;
    };
    const ann = person('Ann', 0);
    const ben = person('Ben', 0);
    const cal = person('Cal', 0);
    const dan = person('Dan', 25);
    const everyone = [ann, ben, cal, dan];
    let seq = 0;
    const change = (entity: string, id: string, audience: string) => {
      seq += 1;
      sqlite
        .prepare('INSERT INTO change_log (seq, entity, entity_id, op) VALUES (?, ?, ?, ?)')
        .run(seq, entity, id, 'put');
      sqlite.prepare('INSERT INTO change_audience (principal, seq) VALUES (?, ?)').run(audience, seq);
    };
    const notice = (recipient: string, type: string, minute: number, read: boolean, data: object, sender = ann) => {
      const id = uuidv7(Date.parse(at(minute)));
      sqlite
        .prepare(
          `INSERT INTO notifications (id, recipient_id, sender_id, type, title, message, data, read_at, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          id,
          recipient,
          sender,
          type,
          `A ${type}`,
          'Text',
          JSON.stringify(data),
          read ? at(minute + 1) : null,
          at(minute),
        );
      change('notification', id, `user:${recipient}`);
      return id;
    };
    // The team chat, each message notifying every other member who existed then (as chat.send did).
    const chat = (author: string, minute: number, reads: Record<string, boolean>, deleted = false) => {
      const id = uuidv7(Date.parse(at(minute)));
      sqlite
        .prepare(
          'INSERT INTO chat_messages (id, user_id, text, created_at, updated_at, deleted_at) VALUES (?, ?, ?, ?, ?, ?)',
        )
        .run(id, author, `Message at ${minute}`, at(minute), at(minute), deleted ? at(minute + 30) : null);
      change('chatMessage', id, 'team');
      for (const [recipient, read] of Object.entries(reads))
        notice(recipient, 'chat_message', minute, read, { messageId: id }, author);
      return id;
    };
    const taskNotice = notice(ann, 'task_assigned', 5, false, {});
    const m1 = chat(ann, 10, { [ben]: true, [cal]: false });
    const bensTask = notice(ben, 'task_updated', 15, true, {});
    const m2 = chat(ben, 20, { [ann]: true, [cal]: true });
    const m3 = chat(ann, 30, { [ben]: false, [cal]: true, [dan]: false });
    const m4 = chat(cal, 40, { [ann]: true, [ben]: true, [dan]: true });
    // A direct message noticed twice (the spec's client asked for a second one), and one noticed once.
    const dmId = uuidv7();
    const dmNotices = [
      notice(ben, 'direct_message', 45, false, { messageId: dmId }),
      notice(ben, 'direct_message', 45, false, { messageId: dmId }),
    ];
    const head = seq;

    // What each person read and had unread, as the old code listed it.
    const before = new Map(
      everyone.map((id) => [
        id,
        (
          sqlite.prepare('SELECT type, data, read_at FROM notifications WHERE recipient_id = ?').all(id) as {
            type: string;
            data: string;
            read_at: string | null;
          }[]
        ).map((row) => ({
          type: row.type,
          data: JSON.parse(row.data) as { messageId?: string },
          read: row.read_at !== null,
        })),
      ]),
    );
    sqlite.close();

    const db = openDatabase(file);
    try {
      expect(db.$client.prepare("SELECT count(*) FROM notifications WHERE type = 'chat_message'").pluck().get()).toBe(
        0,
      );
      for (const id of everyone) {
        const marker = await markerOf(db, id);
        const { notices } = await listNotices(db, marker, { limit: 100 });
        const old = before.get(id) ?? [];
        const oldChat = new Map(old.filter((n) => n.type === 'chat_message').map((n) => [n.data.messageId, n.read]));
        const newChat = new Map(notices.filter((n) => n.type === 'chat_message').map((n) => [n.id, n.read]));
        expect(newChat, `chat notices of ${id}`).toEqual(oldChat);
        const oldOther = old
          .filter((n) => n.type !== 'chat_message')
          .map((n) => [n.type, n.read])
          .sort();
        const newOther = notices
          .filter((n) => n.type !== 'chat_message')
          .map((n) => [n.type, n.read])
          .sort();
        expect(newOther, `other notices of ${id}`).toEqual(oldOther);
        expect(await unreadCount(db, marker), `unread of ${id}`).toBe(old.filter((n) => !n.read).length);
      }
      // Spot checks of the conversion itself.
      expect(await markerOf(db, ben)).toMatchObject({ readThrough: at(15), chatReads: [m4] });
      expect(await markerOf(db, cal)).toMatchObject({
        readThrough: null,
        chatReads: expect.arrayContaining([m2, m3]) as unknown,
      });
      expect(await markerOf(db, ann)).toMatchObject({
        readThrough: null,
        chatReads: expect.arrayContaining([m2, m4]) as unknown,
      });
      expect(await markerOf(db, dan)).toMatchObject({ chatSince: at(30) });
      const noticeIds = async (id: string) =>
        (await listNotices(db, await markerOf(db, id), { limit: 100 })).notices.map((n) => n.id);
      expect(await noticeIds(ann)).toContain(taskNotice);
      expect(await noticeIds(ben)).toContain(bensTask);
      // Nobody has a notice of their own message.
      expect(await noticeIds(ben)).not.toContain(m2);
      expect(await noticeIds(cal)).toContain(m1);
      // One of the two notices of the direct message now names it; the other stays as it was.
      const named = db.$client
        .prepare('SELECT id, message_id FROM notifications WHERE id IN (?, ?) ORDER BY id')
        .all(...dmNotices) as { id: string; message_id: string | null }[];
      expect(named.map((row) => row.message_id).sort()).toEqual([dmId, null].sort());
      // Every device bootstraps once more: the log so far is compacted, the version does not go back.
      expect(db.$client.prepare('SELECT count(*) FROM change_log').pluck().get()).toBe(0);
      expect((await changeLogFloor(db)).seq).toBe(head);
      expect((await readablePosition(db)).seq).toBe(head);
    } finally {
      db.$client.close();
    }
  });
});

describe('migrating to team chat push by create changes (0015)', () => {
  /**
   * A database at 0014 holding these messages (`flagged`: not yet pushed to the team; each message's newest change is
   * at its version) and a change log up to `head`; what the migration made of it.
   */
  async function migrate14(messages: { version: number; flagged: boolean }[], head: number) {
    const { file, sqlite } = yesterdaysDatabase(14);
    const author = uuidv7();
    sqlite
      .prepare('INSERT INTO users (id, name, email, role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(author, 'Ann', 'ann@old.test', 'employee', at(0), at(0));
    const ids = messages.map(() => uuidv7());
    for (let seq = 1; seq <= head; seq++) {
      const at = messages.findIndex((message) => message.version === seq);
      sqlite
        .prepare(
          "INSERT INTO change_log (seq, entity, entity_id, op, principal) VALUES (?, 'chatMessage', ?, 'put', 'team')",
        )
        .run(seq, ids[at] ?? uuidv7());
    }
    for (const [index, message] of messages.entries())
      sqlite
        .prepare(
          `INSERT INTO chat_messages (id, user_id, text, push_pending, created_at, updated_at, version)
           VALUES (?, ?, 'Hello', ?, ?, ?, ?)`,
        )
        .run(ids[index], author, message.flagged ? 1 : 0, at(index), at(index), message.version);
    sqlite.close();
    const db = openDatabase(file);
    try {
      return {
        cursor: (await pushChatCursor(db)).seq,
        created: db.$client.prepare("SELECT seq FROM change_log WHERE op = 'create' ORDER BY seq").pluck().all(),
        compactableUpTo: (await compactableUpTo(db)).seq,
        columns: db.$client.prepare("SELECT name FROM pragma_table_info('chat_messages')").pluck().all(),
      };
    } finally {
      db.$client.close();
    }
  }

  test('messages still waiting for their push are found after it, from just before the oldest; flags are gone', async () => {
    const migrated = await migrate14(
      [
        { version: 3, flagged: false },
        { version: 7, flagged: true },
        { version: 9, flagged: true },
      ],
      10,
    );
    expect(migrated).toMatchObject({ cursor: 6, created: [7, 9], compactableUpTo: 6 });
    expect(migrated.columns).not.toContain('push_pending');
  });

  test('with nothing waiting, the cursor is the newest change and the whole log may be compacted', async () => {
    expect(await migrate14([{ version: 3, flagged: false }], 10)).toMatchObject({
      cursor: 10,
      created: [],
      compactableUpTo: 10,
    });
  });
});

describe('migrating to counts of messages by author (0022)', () => {
  test('each author starts with their live messages counted; deleted ones are not', () => {
    const { file, sqlite } = yesterdaysDatabase(21);
    const [ann, ben] = [uuidv7(), uuidv7()];
    for (const [id, name] of [
      [ann, 'Ann'],
      [ben, 'Ben'],
    ] as const)
      sqlite
        .prepare('INSERT INTO users (id, name, email, role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(id, name, `${name.toLowerCase()}@old.test`, 'employee', at(0), at(0));
    const message = sqlite.prepare(
      'INSERT INTO chat_messages (id, user_id, text, deleted_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    for (const [minute, author, deletedAt] of [
      [1, ann, null],
      [2, ann, null],
      [3, ann, at(4)],
      [5, ben, null],
    ] as const)
      message.run(uuidv7(), author, 'Hello', deletedAt, at(minute), at(minute));
    sqlite.close();
    const db = openDatabase(file);
    try {
      const counts = db.$client
        .prepare('SELECT user_id AS userId, live_messages AS n FROM chat_author_counts ORDER BY live_messages DESC')
        .all();
      expect(counts).toEqual([
        { userId: ann, n: 2 },
        { userId: ben, n: 1 },
      ]);
    } finally {
      db.$client.close();
    }
  });
});
