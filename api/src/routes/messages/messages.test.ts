import { describe, expect, test, vi } from 'vitest';
import { asc, eq, isNull } from 'drizzle-orm';
import {
  chatLimits,
  chatMessages as chatTexts,
  chatMessageSchema,
  errorCatalogue,
  uuidv7,
  type ChatMessage,
  type Notification,
} from '@office/sync-protocol';
import { chatMessages, notifications, users } from '../../db/schema';
import { newestSeq } from '../../domain/change-log';
import {
  changesWithAudienceAfter,
  recordEvents,
  sleep,
  uniqueText,
  versionAfter,
  waitUntil,
  type EventPayload,
} from '../../../test/support';
import { expectRefusal, mutation, useSeededServer, type Session } from '../../../test/api-client';

// One seeded server for the whole file (a fresh one costs about two seconds); every test posts its own messages
// and reads expectations from the database, so the tests do not depend on each other's leftovers.
const { server, people, db, call, pull, push } = useSeededServer();

async function post(by: Session, payload: Record<string, unknown>): Promise<ChatMessage> {
  const res = await call<{ message: ChatMessage }>(by, 'POST', '/api/messages', payload);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return chatMessageSchema.parse(res.body.message);
}

const send = (by: Session, text = uniqueText('Hello team')) => post(by, { id: uuidv7(), text });

async function listMessages(session: Session, query = ''): Promise<ChatMessage[]> {
  return (await listPage(session, query)).messages;
}

async function listPage(session: Session, query = ''): Promise<{ messages: ChatMessage[]; nextBefore: string | null }> {
  const res = await call<{ messages: ChatMessage[]; nextBefore: string | null }>(
    session,
    'GET',
    `/api/messages${query}`,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return {
    messages: res.body.messages.map((message) => chatMessageSchema.parse(message)),
    nextBefore: res.body.nextBefore,
  };
}

const author = (s: Session) => ({
  _id: s.user.id,
  id: s.user.id,
  name: s.user.name,
  avatar: s.user.avatar,
  role: s.user.role,
});

const messageRow = async (id: string) => (await db().select().from(chatMessages).where(eq(chatMessages.id, id)))[0];
const rowsWithText = (text: string) => db().select().from(chatMessages).where(eq(chatMessages.text, text));
const liveRows = () =>
  db().select().from(chatMessages).where(isNull(chatMessages.deletedAt)).orderBy(asc(chatMessages.createdAt));
/** The notice each demo person's list shows about a chat message, by recipient (derived: none is stored). */
async function noticesAbout(messageId: string): Promise<Notification[]> {
  const found: Notification[] = [];
  for (const session of Object.values(people)) {
    const res = await call<{ notifications: Notification[] }>(session, 'GET', '/api/notifications?limit=100');
    expect(res.status).toBe(200);
    const notice = res.body.notifications.find((n) => n.id === messageId);
    if (notice) found.push(notice);
  }
  return found.sort((a, b) => a.recipient.localeCompare(b.recipient));
}
/** Notifications stored about a chat message: none, whatever the size of the team. */
const storedAbout = async (messageId: string) =>
  (await db().select().from(notifications)).filter((n) => n.data.messageId === messageId);
/** Change-log rows after `seq` as [entity, entityId, op, audience], in commit order. */
const changesAfter = (seq: number) => changesWithAudienceAfter(db(), seq);
const activeOthers = async (session: Session) =>
  (await db().select().from(users).where(isNull(users.deactivatedAt)))
    .filter((u) => u.id !== session.user.id)
    .map((u) => u.id)
    .sort();

describe('GET /api/messages', () => {
  test('the message routes refuse a call without a token and change nothing', async () => {
    const target = await send(people.alice);
    const before = await newestSeq(db());
    for (const [method, url] of [
      ['GET', '/api/messages'],
      ['POST', '/api/messages'],
      ['PUT', `/api/messages/${target.id}`],
      ['DELETE', `/api/messages/${target.id}`],
    ] as const) {
      expectRefusal(
        await call(null, method, url, method === 'POST' || method === 'PUT' ? { text: 'sneaky' } : undefined),
        401,
        'unauthenticated',
        errorCatalogue.unauthenticated.message,
      );
    }
    expect(await rowsWithText('sneaky')).toEqual([]);
    expect(await messageRow(target.id)).toMatchObject({ text: target.text, deletedAt: null, edited: false });
    expect(await newestSeq(db())).toBe(before);
  });

  test('it answers the live messages oldest first with their authors, including the seeded ones', async () => {
    const { alice, carol } = people;
    const mine = await send(alice, uniqueText('Latest news'));
    const messages = await listMessages(carol);
    const rows = await liveRows();

    expect(messages.map((m) => m.id)).toEqual(rows.map((r) => r.id));
    const stamps = messages.map((m) => m.timestamp);
    expect(stamps).toEqual([...stamps].sort());
    expect(messages.at(-1)?.id).toBe(mine.id);
    for (const message of messages) {
      const row = rows.find((r) => r.id === message.id);
      expect(message).toMatchObject({
        _id: row?.id,
        id: row?.id,
        text: row?.text,
        type: row?.type,
        timestamp: row?.createdAt,
        edited: row?.edited,
        version: row?.version,
      });
      // The seed shares one image; every other message is text only.
      expect(message.attachments.map((a) => a.kind)).toEqual(row?.type === 'file' ? ['image'] : []);
      const [by] = await db()
        .select()
        .from(users)
        .where(eq(users.id, row?.userId ?? ''));
      expect(message.userId).toEqual({ _id: by?.id, id: by?.id, name: by?.name, avatar: by?.avatar, role: by?.role });
      expect(message.userName).toBe(by?.name);
    }
    expect(mine.userId).toEqual(author(alice));

    const texts = messages.map((m) => m.text);
    const seeded = [
      'Good morning everyone! Stand-up in 15 minutes.',
      'Offsite venue shortlist (two options) is in the planning doc.',
      'Anyone up for lunch at 12:30?',
    ];
    expect(texts).toEqual(expect.arrayContaining(seeded));
    expect(texts.indexOf(seeded[0] ?? '')).toBeLessThan(texts.indexOf(seeded[2] ?? ''));
    expect(texts).not.toContain('Offsite venue shortlist is in the planning doc.');
    expect(messages.filter((m) => m.edited).map((m) => [m.text, m.userName])).toContainEqual([
      'Offsite venue shortlist (two options) is in the planning doc.',
      'Carol Davis',
    ]);
    expect(messages.find((m) => m.text === 'Anyone up for lunch at 12:30?')).toMatchObject({
      edited: false,
      userName: 'Bob Smith',
      userId: { role: 'employee', name: 'Bob Smith' },
    });
  });

  test('it answers the newest 200, with a before cursor that pages back to the oldest without gaps', async () => {
    const { bob, carol } = people;
    const many = 230;
    for (let i = 0; i < many; i += 1) await send(bob, `Paging ${String(i).padStart(3, '0')}`);
    const all = (await liveRows()).map((row) => row.id);
    expect(all.length).toBeGreaterThan(many);

    const first = await listPage(carol);
    expect(first.messages).toHaveLength(200);
    expect(first.messages.map((m) => m.id)).toEqual(all.slice(-200));
    expect(first.nextBefore).toBe(all.at(-200));
    const ids: string[] = [...first.messages.map((m) => m.id)];
    let before = first.nextBefore;
    while (before) {
      const page = await listPage(carol, `?before=${before}&limit=50`);
      expect(page.messages.length).toBeLessThanOrEqual(50);
      ids.unshift(...page.messages.map((m) => m.id));
      before = page.nextBefore;
    }
    expect(ids).toEqual(all);

    for (const query of ['?limit=201', '?limit=0', '?before=nope']) {
      const res = await call(carol, 'GET', `/api/messages${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body).toMatchObject({ code: 'invalid_input' });
    }
    expect(await listPage(carol, `?before=${uuidv7()}`)).toEqual({ messages: [], nextBefore: null });
  });

  test('a deleted message is never listed', async () => {
    const { bob } = people;
    const gone = await send(bob, uniqueText('Oops, wrong room'));
    expect((await listMessages(bob)).map((m) => m.id)).toContain(gone.id);

    const res = await call(bob, 'DELETE', `/api/messages/${gone.id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);

    expect((await messageRow(gone.id))?.deletedAt).not.toBeNull();
    for (const session of Object.values(people)) {
      expect((await listMessages(session)).map((m) => m.id)).not.toContain(gone.id);
    }
  });
});

describe('POST /api/messages', () => {
  test('an employee posts a message: 201, the text trimmed, one row, one change for the team', async () => {
    const { alice } = people;
    const text = uniqueText('Deploy went fine');
    const id = uuidv7();
    const before = await newestSeq(db());

    const res = await call<{ message: ChatMessage }>(alice, 'POST', '/api/messages', { id, text: `  \n${text}\t ` });

    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const message = chatMessageSchema.parse(res.body.message);
    expect(message).toMatchObject({
      _id: id,
      id,
      text,
      type: 'text',
      edited: false,
      attachments: [],
      userId: author(alice),
      userName: alice.user.name,
      userAvatar: alice.user.avatar,
    });
    expect(await rowsWithText(text)).toEqual([
      expect.objectContaining({ id, userId: alice.user.id, text, edited: false, deletedAt: null, type: 'text' }),
    ]);
    expect((await messageRow(id))?.createdAt).toBe(message.timestamp);
    const changes = await changesAfter(before);
    // Stored as its creation: the push queue finds new messages by it (an edit stays a put).
    expect(changes[0]).toEqual(['chatMessage', id, 'create', ['team']]);
    expect((await messageRow(id))?.version).toBe(versionAfter(0, before + 1));
    expect(message.version).toBe(versionAfter(0, before + 1));
  });

  test('without a client id the server chooses one', async () => {
    const text = uniqueText('No id from me');
    const message = await post(people.bob, { text });
    expect(await rowsWithText(text)).toEqual([expect.objectContaining({ id: message.id, userId: people.bob.user.id })]);
  });

  test('messages written in the same millisecond without client ids are listed in the order they were written', async () => {
    const tag = uniqueText('In order');
    // Written within one millisecond (the clock stands still while they are sent, as it seems to on a fast
    // machine), their shared time leaves the order to the ids the server chose. The order they were written in is
    // their version (the change log's, in commit order).
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      await Promise.all(Array.from({ length: 60 }, (_, i) => post(people.bob, { text: `${tag} ${i}` })));
    } finally {
      vi.useRealTimers();
    }
    const listed = (await listMessages(people.alice)).filter((message) => message.text.startsWith(tag));
    const versions = listed.map((message) => message.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    const sharedTimes = listed.filter((message, i) => message.timestamp === listed[i - 1]?.timestamp).length;
    expect(sharedTimes, 'messages that shared their time').toBeGreaterThan(0);
  });

  test('the author is always the caller, whatever userId, userName and userAvatar the payload names', async () => {
    const { manager, bob } = people;
    const text = uniqueText('Pretending to be the manager');
    const message = await post(bob, {
      id: uuidv7(),
      text,
      userId: manager.user.id,
      userName: manager.user.name,
      userAvatar: 'https://evil.example/face.png',
      type: 'file',
    });

    expect(message).toMatchObject({
      userId: author(bob),
      userName: bob.user.name,
      userAvatar: bob.user.avatar,
      type: 'text',
    });
    expect(await rowsWithText(text)).toEqual([expect.objectContaining({ userId: bob.user.id, type: 'text' })]);
    const notices = await noticesAbout(message.id);
    expect(notices.map((n) => n.sender?.id)).toEqual(
      Array.from({ length: (await activeOthers(bob)).length }, () => bob.user.id),
    );
    expect(notices.map((n) => n.recipient)).not.toContain(bob.user.id);
  });

  test('a blank, missing or non-text message is refused with "A message needs text or files." and nothing is stored', async () => {
    const { alice } = people;
    for (const payload of [{ text: '' }, { text: '   \n\t ' }, {}, { text: null }, { text: 42 }]) {
      const id = uuidv7();
      const before = await newestSeq(db());
      expectRefusal(
        await call(alice, 'POST', '/api/messages', { id, ...payload }),
        400,
        'invalid_input',
        chatTexts.empty,
      );
      expect(await messageRow(id)).toBeUndefined();
      expect(await noticesAbout(id)).toEqual([]);
      expect(await newestSeq(db())).toBe(before);
    }
  });

  test('a text of exactly 1000 characters is accepted, 1001 characters are refused', async () => {
    const { carol } = people;
    const stem = uniqueText('long');
    const exact = stem.padEnd(chatLimits.textMax, 'x');
    expect(exact).toHaveLength(1000);
    const accepted = await post(carol, { id: uuidv7(), text: exact });
    expect(accepted.text).toBe(exact);
    expect((await messageRow(accepted.id))?.text).toHaveLength(1000);

    // Surrounding blanks do not count: the limit applies to the trimmed text.
    const padded = await post(carol, { id: uuidv7(), text: `   ${uniqueText('pad').padEnd(1000, 'p')}  ` });
    expect(padded.text).toHaveLength(1000);

    const id = uuidv7();
    const tooLong = `${stem}y`.padEnd(chatLimits.textMax + 1, 'y');
    expect(tooLong).toHaveLength(1001);
    const before = await newestSeq(db());
    const res = await call(carol, 'POST', '/api/messages', { id, text: tooLong });
    expectRefusal(res, 400, 'invalid_input', chatTexts.tooLong);
    expect(chatTexts.tooLong).toBe('A message can have at most 1000 characters.');
    expect(await messageRow(id)).toBeUndefined();
    expect(await newestSeq(db())).toBe(before);
  });

  test('a malformed client id is refused', async () => {
    const text = uniqueText('Bad id');
    const res = await call(people.alice, 'POST', '/api/messages', { id: 'not-a-uuid', text });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_input', details: [expect.objectContaining({ path: 'id' })] });
    expect(await rowsWithText(text)).toEqual([]);
  });

  test('a client id sent twice with the same text makes one message; with other text or by someone else it is refused as duplicate_id', async () => {
    const { alice, bob } = people;
    const id = uuidv7();
    const text = uniqueText('Retry me');
    const first = await post(alice, { id, text });
    const version = await newestSeq(db());
    const notices = await noticesAbout(id);
    expect(notices).toHaveLength((await activeOthers(alice)).length);

    const again = await post(alice, { id, text: ` ${text} ` });
    expect(again).toEqual(first);
    expect(await db().select().from(chatMessages).where(eq(chatMessages.id, id))).toHaveLength(1);
    expect(await noticesAbout(id)).toEqual(notices);
    expect(await newestSeq(db())).toBe(version);

    expectRefusal(
      await call(alice, 'POST', '/api/messages', { id, text: `${text} (changed)` }),
      409,
      'duplicate_id',
      errorCatalogue.duplicate_id.message,
    );
    expectRefusal(
      await call(bob, 'POST', '/api/messages', { id, text }),
      409,
      'duplicate_id',
      errorCatalogue.duplicate_id.message,
    );
    expect(await messageRow(id)).toMatchObject({ userId: alice.user.id, text, edited: false });
    expect(await rowsWithText(`${text} (changed)`)).toEqual([]);
    expect(await noticesAbout(id)).toEqual(notices);
    expect(await newestSeq(db())).toBe(version);
  });

  test('the id of a deleted message cannot be used again', async () => {
    const { alice } = people;
    const message = await send(alice);
    expect((await call(alice, 'DELETE', `/api/messages/${message.id}`)).status).toBe(200);
    const version = await newestSeq(db());

    expectRefusal(
      await call(alice, 'POST', '/api/messages', { id: message.id, text: message.text }),
      409,
      'duplicate_id',
      errorCatalogue.duplicate_id.message,
    );
    expect((await messageRow(message.id))?.deletedAt).not.toBeNull();
    expect(await newestSeq(db())).toBe(version);
  });
});

describe('chat notifications', () => {
  test('a message is a notice of each other active member, never its author, with the text cut to 50 characters and "..."', async () => {
    const { alice } = people;
    const text = `${uniqueText('Release')} `.padEnd(70, 'abcdefghij');
    expect(text).toHaveLength(70);
    const before = await newestSeq(db());

    const message = await post(alice, { id: uuidv7(), text });

    const others = await activeOthers(alice);
    expect(others).toHaveLength(4);
    const notices = await noticesAbout(message.id);
    expect(notices.map((n) => n.recipient)).toEqual(others);
    for (const notice of notices) {
      expect(notice).toMatchObject({
        sender: { id: alice.user.id, name: alice.user.name },
        type: 'chat_message',
        title: `New message from ${alice.user.name}`,
        message: `${text.slice(0, 50)}...`,
        relatedTask: null,
        read: false,
        data: { messageId: message.id },
        createdAt: message.timestamp,
      });
    }
    expect(notices[0]?.message).toHaveLength(53);
    // One row and one change for the whole team: the notices are derived from the message.
    expect(await storedAbout(message.id)).toEqual([]);
    expect(await changesAfter(before)).toEqual([['chatMessage', message.id, 'create', ['team']]]);
  });

  test('a text of at most 50 characters is notified whole', async () => {
    const text = uniqueText('Short').padEnd(50, '!');
    const message = await post(people.bob, { id: uuidv7(), text });
    const notices = await noticesAbout(message.id);
    expect(notices).toHaveLength(4);
    expect(notices.map((n) => n.message)).toEqual(Array.from({ length: 4 }, () => text));
  });
});

describe('PUT /api/messages/:id', () => {
  test('the author edits their message: edited, text trimmed, the row and the change log updated, the notices read the new text', async () => {
    const { alice } = people;
    const message = await send(alice);
    const noticesBefore = await noticesAbout(message.id);
    const before = await newestSeq(db());
    const text = uniqueText('Fixed a typo');

    const res = await call<{ message: ChatMessage }>(alice, 'PUT', `/api/messages/${message.id}`, {
      text: `  ${text}  `,
    });

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(chatMessageSchema.parse(res.body.message)).toMatchObject({
      id: message.id,
      text,
      edited: true,
      userId: author(alice),
      timestamp: message.timestamp,
      version: versionAfter(message.version, before + 1),
    });
    expect(await messageRow(message.id)).toMatchObject({
      text,
      edited: true,
      userId: alice.user.id,
      createdAt: message.timestamp,
      deletedAt: null,
      version: versionAfter(message.version, before + 1),
    });
    expect(await changesAfter(before)).toEqual([['chatMessage', message.id, 'put', ['team']]]);
    // Nobody is notified again: the same notices, unread as they were, now with the edited text.
    expect(await noticesAbout(message.id)).toEqual(
      noticesBefore.map((notice) => ({ ...notice, message: text, version: versionAfter(message.version, before + 1) })),
    );
    expect((await listMessages(people.bob)).find((m) => m.id === message.id)).toMatchObject({ text, edited: true });
  });

  test('an empty edit is refused with "An edited message cannot be empty." and the message stays as it was', async () => {
    const { alice } = people;
    const message = await send(alice);
    const before = await newestSeq(db());
    for (const payload of [{ text: '' }, { text: '   ' }, {}]) {
      expectRefusal(
        await call(alice, 'PUT', `/api/messages/${message.id}`, payload),
        400,
        'invalid_input',
        chatTexts.editEmpty,
      );
    }
    expectRefusal(
      await call(alice, 'PUT', `/api/messages/${message.id}`, { text: 'z'.repeat(1001) }),
      400,
      'invalid_input',
      chatTexts.tooLong,
    );
    expect(await messageRow(message.id)).toMatchObject({ text: message.text, edited: false });
    expect(await newestSeq(db())).toBe(before);
  });

  test("an employee cannot edit someone else's message", async () => {
    const { alice, bob, carol } = people;
    const message = await send(alice);
    const before = await newestSeq(db());
    for (const other of [bob, carol]) {
      expectRefusal(
        await call(other, 'PUT', `/api/messages/${message.id}`, { text: 'Hijacked' }),
        403,
        'forbidden',
        chatTexts.notYours,
      );
    }
    expect(await messageRow(message.id)).toMatchObject({ text: message.text, edited: false, userId: alice.user.id });
    expect(await newestSeq(db())).toBe(before);
  });

  test.each([
    ['a manager', 'manager'],
    ['an admin', 'admin'],
  ] as const)("%s edits anyone's message, which keeps its author", async (_label, who) => {
    const { bob } = people;
    const message = await send(bob);
    const text = uniqueText(`Moderated by ${who}`);

    const res = await call<{ message: ChatMessage }>(people[who], 'PUT', `/api/messages/${message.id}`, { text });

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.message).toMatchObject({ id: message.id, text, edited: true, userId: author(bob) });
    expect(await messageRow(message.id)).toMatchObject({ text, edited: true, userId: bob.user.id });
  });

  test('editing a deleted or unknown message answers 404 "Message not found."', async () => {
    const { alice, manager } = people;
    const message = await send(alice);
    expect((await call(alice, 'DELETE', `/api/messages/${message.id}`)).status).toBe(200);
    const before = await newestSeq(db());

    for (const [session, id] of [
      [alice, message.id],
      [manager, message.id],
      [alice, uuidv7()],
    ] as const) {
      expectRefusal(
        await call(session, 'PUT', `/api/messages/${id}`, { text: 'Back from the dead' }),
        404,
        'message_not_found',
        'Message not found.',
      );
    }
    expect(await messageRow(message.id)).toMatchObject({ text: message.text, edited: false });
    expect((await messageRow(message.id))?.deletedAt).not.toBeNull();
    expect(await rowsWithText('Back from the dead')).toEqual([]);
    expect(await newestSeq(db())).toBe(before);
  });
});

describe('DELETE /api/messages/:id', () => {
  test("the author deletes their message: it leaves GET and comes as a delete in another user's incremental pull", async () => {
    const { alice, bob } = people;
    const message = await send(alice);
    const bobClient = uuidv7();
    const bootstrap = await pull(bob, bobClient, '0');
    expect(bootstrap.changes).toContainEqual(
      expect.objectContaining({ entity: 'chatMessage', id: message.id, op: 'put' }),
    );
    const before = await newestSeq(db());

    const res = await call(alice, 'DELETE', `/api/messages/${message.id}`);

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Message deleted' });
    const row = await messageRow(message.id);
    expect(row).toMatchObject({ text: message.text, userId: alice.user.id });
    expect(row?.deletedAt).not.toBeNull();
    expect(await changesAfter(before)).toEqual([['chatMessage', message.id, 'delete', ['team']]]);
    expect((await listMessages(alice)).map((m) => m.id)).not.toContain(message.id);

    const bobs = await pull(bob, bobClient, bootstrap.cursor);
    expect(bobs).toMatchObject({ reset: false, more: false });
    expect(bobs.changes).toEqual([{ entity: 'chatMessage', op: 'delete', id: message.id }]);
    const fresh = await pull(bob, uuidv7(), '0');
    expect(fresh.changes.map((c) => c.id)).not.toContain(message.id);
  });

  test("an employee cannot delete someone else's message", async () => {
    const { alice, bob } = people;
    const message = await send(alice);
    const before = await newestSeq(db());

    expectRefusal(await call(bob, 'DELETE', `/api/messages/${message.id}`), 403, 'forbidden', chatTexts.notYours);

    expect((await messageRow(message.id))?.deletedAt).toBeNull();
    expect(await newestSeq(db())).toBe(before);
    expect((await listMessages(bob)).map((m) => m.id)).toContain(message.id);
  });

  test.each([
    ['a manager', 'manager'],
    ['an admin', 'admin'],
  ] as const)("%s deletes anyone's message", async (_label, who) => {
    const { carol } = people;
    const message = await send(carol);
    const before = await newestSeq(db());

    const res = await call(people[who], 'DELETE', `/api/messages/${message.id}`);

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await messageRow(message.id))?.deletedAt).not.toBeNull();
    expect(await changesAfter(before)).toEqual([['chatMessage', message.id, 'delete', ['team']]]);
  });

  test('deleting a message again, or an unknown one, answers 404 "Message not found."', async () => {
    const { alice, admin } = people;
    const message = await send(alice);
    expect((await call(alice, 'DELETE', `/api/messages/${message.id}`)).status).toBe(200);
    const deletedAt = (await messageRow(message.id))?.deletedAt;
    const before = await newestSeq(db());

    for (const [session, id] of [
      [alice, message.id],
      [admin, message.id],
      [alice, uuidv7()],
    ] as const) {
      expectRefusal(
        await call(session, 'DELETE', `/api/messages/${id}`),
        404,
        'message_not_found',
        'Message not found.',
      );
    }
    expect((await messageRow(message.id))?.deletedAt).toBe(deletedAt);
    expect(await newestSeq(db())).toBe(before);
  });
});

describe('chat through /api/sync/push', () => {
  test('chat.send runs the same command as POST: trimmed, the caller as author, notifications, and a replayed push has one effect', async () => {
    const { bob } = people;
    const clientId = uuidv7();
    const id = uuidv7();
    const text = uniqueText('Sent while offline');

    const first = await push(bob, clientId, [
      mutation(1, 'chat.send', { id, text: ` ${text} `, userId: people.manager.user.id }),
    ]);

    expect(first.outcomes).toEqual([{ id: 1, status: 'applied' }]);
    expect(first.lastMutationId).toBe(1);
    expect(await rowsWithText(text)).toEqual([expect.objectContaining({ id, userId: bob.user.id, edited: false })]);
    const notices = await noticesAbout(id);
    expect(notices.map((n) => [n.recipient, n.type, n.sender?.id, n.message])).toEqual(
      (await activeOthers(bob)).map((recipient) => [recipient, 'chat_message', bob.user.id, text]),
    );
    const version = await newestSeq(db());

    const replay = await push(bob, clientId, [mutation(1, 'chat.send', { id, text })]);
    expect(replay.outcomes).toEqual([{ id: 1, status: 'duplicate', original: 'applied' }]);
    // The same message under a new mutation id (a client that lost its bookkeeping) is idempotent by the message id.
    const resent = await push(bob, clientId, [mutation(2, 'chat.send', { id, text })]);
    expect(resent.outcomes).toEqual([{ id: 2, status: 'applied' }]);
    expect(await db().select().from(chatMessages).where(eq(chatMessages.id, id))).toHaveLength(1);
    expect(await noticesAbout(id)).toEqual(notices);
    expect(await newestSeq(db())).toBe(version);
  });

  test('chat.send through push is refused by the same rules as POST, and the queue moves on', async () => {
    const { alice, bob } = people;
    const clientId = uuidv7();
    const taken = await send(bob);
    const blankId = uuidv7();
    const longId = uuidv7();
    const okId = uuidv7();
    const okText = uniqueText('After the refusals');
    const before = await newestSeq(db());

    const res = await push(alice, clientId, [
      mutation(1, 'chat.send', { id: blankId, text: '   ' }),
      mutation(2, 'chat.send', { id: longId, text: 'q'.repeat(1001) }),
      mutation(3, 'chat.send', { id: taken.id, text: 'Mine now' }),
      mutation(4, 'chat.edit', { id: taken.id, text: 'Hijacked' }),
      mutation(5, 'chat.delete', { id: taken.id }),
      mutation(6, 'chat.send', { id: okId, text: okText }),
    ]);

    expect(res.outcomes).toEqual([
      { id: 1, status: 'rejected', code: 'invalid_input', message: chatTexts.empty },
      { id: 2, status: 'rejected', code: 'invalid_input', message: chatTexts.tooLong },
      { id: 3, status: 'rejected', code: 'duplicate_id', message: errorCatalogue.duplicate_id.message },
      { id: 4, status: 'rejected', code: 'forbidden', message: chatTexts.notYours },
      { id: 5, status: 'rejected', code: 'forbidden', message: chatTexts.notYours },
      { id: 6, status: 'applied' },
    ]);
    expect(res.lastMutationId).toBe(6);
    expect(await messageRow(blankId)).toBeUndefined();
    expect(await messageRow(longId)).toBeUndefined();
    expect(await messageRow(taken.id)).toMatchObject({
      userId: bob.user.id,
      text: taken.text,
      edited: false,
      deletedAt: null,
    });
    expect(await rowsWithText(okText)).toEqual([expect.objectContaining({ id: okId, userId: alice.user.id })]);
    // Only the applied send left a change: the message, one for the whole team.
    expect(await changesAfter(before)).toEqual([['chatMessage', okId, 'create', ['team']]]);
  });

  test('a delete then an edit of the same message in one batch: the delete wins and the edit is rejected as message_not_found', async () => {
    const { alice, manager } = people;
    const clientId = uuidv7();
    const id = uuidv7();
    const text = uniqueText('Short-lived');
    const before = await newestSeq(db());

    const res = await push(alice, clientId, [
      mutation(1, 'chat.send', { id, text }),
      mutation(2, 'chat.delete', { id }),
      mutation(3, 'chat.edit', { id, text: 'Edited after the delete' }),
      mutation(4, 'chat.delete', { id }),
    ]);

    expect(res.outcomes).toEqual([
      { id: 1, status: 'applied' },
      { id: 2, status: 'applied' },
      { id: 3, status: 'rejected', code: 'message_not_found', message: 'Message not found.' },
      { id: 4, status: 'rejected', code: 'message_not_found', message: 'Message not found.' },
    ]);
    expect(await messageRow(id)).toMatchObject({ text, edited: false });
    expect((await messageRow(id))?.deletedAt).not.toBeNull();
    expect(await rowsWithText('Edited after the delete')).toEqual([]);
    const messageChanges = (await changesAfter(before)).filter(([entity]) => entity === 'chatMessage');
    expect(messageChanges).toEqual([
      ['chatMessage', id, 'create', ['team']],
      ['chatMessage', id, 'delete', ['team']],
    ]);

    // A manager's later edit from another device is refused the same way.
    const late = await push(manager, uuidv7(), [mutation(1, 'chat.edit', { id, text: 'Too late' })]);
    expect(late.outcomes).toEqual([
      { id: 1, status: 'rejected', code: 'message_not_found', message: 'Message not found.' },
    ]);
    expect((await messageRow(id))?.text).toBe(text);
  });
});

describe('realtime', () => {
  type SyncChange = EventPayload<'sync.change'>;

  test("when alice posts, bob's socket receives the message once, and no notice change for anyone", async () => {
    const { alice, bob } = people;
    const bobSocket = await server.connect(bob.token);
    const bobs = recordEvents(bobSocket, 'sync.change');

    const message = await send(alice, uniqueText('Pizza is here'));
    const isMessage = (e: SyncChange) => e.change.entity === 'chatMessage' && e.change.id === message.id;
    await waitUntil(() => bobs.some(isMessage));

    const messageEvent = bobs.find(isMessage);
    expect(messageEvent?.change).toMatchObject({
      entity: 'chatMessage',
      op: 'put',
      id: message.id,
      data: { text: message.text, userId: author(alice), edited: false },
    });
    expect(messageEvent?.change).toMatchObject({ data: { version: (await messageRow(message.id))?.version } });
    // The message is Bob's notice (his device derives it); nothing per member travels.
    await sleep(100);
    expect(bobs.filter((e) => e.change.entity === 'notification')).toEqual([]);
    expect((await noticesAbout(message.id)).map((n) => n.recipient)).toContain(bob.user.id);

    // An edit and a delete reach him too, the delete without the message's content.
    expect((await call(alice, 'PUT', `/api/messages/${message.id}`, { text: 'Pizza is gone' })).status).toBe(200);
    expect((await call(alice, 'DELETE', `/api/messages/${message.id}`)).status).toBe(200);
    await waitUntil(() => bobs.filter(isMessage).length === 3);
    expect(bobs.filter(isMessage).map((e) => e.change)).toEqual([
      expect.objectContaining({ op: 'put' }),
      expect.objectContaining({
        op: 'put',
        data: expect.objectContaining({ text: 'Pizza is gone', edited: true }) as unknown,
      }),
      { entity: 'chatMessage', op: 'delete', id: message.id },
    ]);
  });
});
