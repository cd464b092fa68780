import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { asc, eq, isNull, or } from 'drizzle-orm';
import {
  chatLimits,
  conversationForViewerSchema,
  conversationIdFor,
  conversationSchema,
  directMessageSchema,
  directMessageWithReadsSchema,
  directTexts,
  errorCatalogue,
  uploadLimits,
  uuidv7,
  type Change,
  type Conversation,
  type ConversationForViewer,
  type DirectMessage,
  type DirectMessageWithReads,
  type ErrorBody,
  type UploadOutcomeResponse,
} from '@office/sync-protocol';
import { conversations, directAttachments, directMessages, notifications, users } from '../../db/schema';
import { newestSeq } from '../../domain/change-log';
import { bearer, changesWithAudienceAfter, cursorNow, sleep, uniqueText } from '../../../test/support';
import {
  fileBytes,
  multipartForm,
  pdfBytes,
  pngBytes,
  postMultipart,
  sampleFile,
  type FilePart,
} from '../../../test/multipart';
import { expectRefusal, mutation, useSeededServer, type Session } from '../../../test/api-client';

// One seeded server for the whole file (a fresh one costs about two seconds). The seeded conversations
// (alice↔bob, manager↔alice with one unread for alice, carol↔bob with one unread for bob) are checked first;
// later tests start their own conversations, often between freshly registered people, and read their
// expectations from the database, so they do not depend on each other's leftovers.
const { server, people, db, call, pull, push, registerEmployee } = useSeededServer();

const base = '/api/direct-messages/conversations';

const idOf = (a: Session, b: Session) => conversationIdFor(a.user.id, b.user.id);

async function startConversation(by: Session, other: Session): Promise<Conversation> {
  const res = await call<{ conversation: Conversation }>(by, 'POST', base, { recipientId: other.user.id });
  expect([200, 201], JSON.stringify(res.body)).toContain(res.status);
  return conversationSchema.parse(res.body.conversation);
}

async function sendText(by: Session, conversationId: string, text = uniqueText('Hello')): Promise<DirectMessage> {
  const res = await call<{ message: DirectMessage }>(by, 'POST', `${base}/${conversationId}/messages`, { text });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return directMessageSchema.parse(res.body.message);
}

async function listConversations(session: Session): Promise<ConversationForViewer[]> {
  const res = await call<{ success: boolean; conversations: unknown[] }>(session, 'GET', base);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.success).toBe(true);
  return res.body.conversations.map((c) => conversationForViewerSchema.parse(c));
}

async function conversationIn(session: Session, id: string): Promise<ConversationForViewer | undefined> {
  return (await listConversations(session)).find((c) => c.id === id);
}

const unreadOf = async (session: Session, id: string) => (await conversationIn(session, id))?.unreadCount;

async function listMessages(session: Session, conversationId: string): Promise<DirectMessageWithReads[]> {
  const res = await call<{ success: boolean; messages: unknown[] }>(
    session,
    'GET',
    `${base}/${conversationId}/messages`,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.messages.map((m) => directMessageWithReadsSchema.parse(m));
}

const markRead = (session: Session, conversationId: string) =>
  call<{ success: boolean; readAt: string }>(session, 'PATCH', `${base}/${conversationId}/read`);

const conversationRow = async (id: string) =>
  (await db().select().from(conversations).where(eq(conversations.id, id)))[0];
const messageRow = async (id: string) => (await db().select().from(directMessages).where(eq(directMessages.id, id)))[0];
const messageRowsOf = (conversationId: string) =>
  db().select().from(directMessages).where(eq(directMessages.conversationId, conversationId));
const liveRowsOf = async (conversationId: string) =>
  (
    await db()
      .select()
      .from(directMessages)
      .where(eq(directMessages.conversationId, conversationId))
      .orderBy(asc(directMessages.createdAt), asc(directMessages.id))
  ).filter((row) => row.deletedAt === null);
const rowsWithText = (text: string) => db().select().from(directMessages).where(eq(directMessages.text, text));
const counts = async () => ({
  conversations: (await db().select({ id: conversations.id }).from(conversations)).length,
  messages: (await db().select({ id: directMessages.id }).from(directMessages)).length,
  attachments: (await db().select({ f: directAttachments.filename }).from(directAttachments)).length,
  notifications: (await db().select({ id: notifications.id }).from(notifications)).length,
});
/** The notifications about a direct message. */
const noticesAbout = async (messageId: string) =>
  (await db().select().from(notifications)).filter((n) => n.data.messageId === messageId);
/** Change-log rows after `seq` as [entity, entityId, op, audience], in commit order. */
const changesAfter = (seq: number) => changesWithAudienceAfter(db(), seq);
const pairAudience = (a: Session, b: Session) => [`user:${a.user.id}`, `user:${b.user.id}`].sort();

// ---- multipart --------------------------------------------------------------------------------------

const uploadsDir = () => join(server.config.dataDir, 'uploads');
const filesOnDisk = () => readdirSync(uploadsDir()).sort();

/** Real multipart over HTTP, the way the browser's FormData sends it: fields first, then repeated `files`. */
const upload = <T = { success: boolean; message: DirectMessage }>(
  session: Session | null,
  conversationId: string,
  parts: FilePart[],
  fields: Record<string, string> = {},
) => postMultipart<T>(`${server.url}${base}/${conversationId}/messages`, session, multipartForm(parts, fields));

const download = (session: Session | null, url: string) =>
  fetch(`${server.url}/api${url}`, { headers: session ? bearer(session.token) : {} });

const unsupported = (name: string) =>
  `"${name}" is not a supported file type. Send PDF, Word, text, JPG, PNG, GIF, MP4, MP3, ZIP or RAR files.`;

/** A multipart send that must be refused: its answer, and no file, row or notification left behind. */
async function expectUploadRefused(
  session: Session,
  conversationId: string,
  parts: FilePart[],
  fields: Record<string, string>,
  expected: { status: number; code: ErrorBody['code']; message?: string },
): Promise<void> {
  const before = { files: filesOnDisk(), counts: await counts(), version: await newestSeq(db()) };
  const res = await upload<ErrorBody>(session, conversationId, parts, fields);
  expect(res.status, JSON.stringify(res.body)).toBe(expected.status);
  expect(res.body.code).toBe(expected.code);
  if (expected.message !== undefined) expect(res.body.message).toBe(expected.message);
  expect(filesOnDisk()).toEqual(before.files);
  expect(await counts()).toEqual(before.counts);
  expect(await newestSeq(db())).toBe(before.version);
}

// ---- tests ------------------------------------------------------------------------------------------

describe('the seeded conversations', () => {
  test('each user lists only their own conversations, with participants, last message and their own unread count', async () => {
    const { alice, bob, carol, manager, admin } = people;
    const aliceBob = idOf(alice, bob);
    const managerAlice = idOf(manager, alice);
    const carolBob = idOf(carol, bob);
    const unreadBy = async (session: Session) =>
      Object.fromEntries((await listConversations(session)).map((c) => [c.id, c.unreadCount]));

    expect(await unreadBy(alice)).toEqual({ [aliceBob]: 0, [managerAlice]: 1 });
    expect(await unreadBy(bob)).toEqual({ [aliceBob]: 0, [carolBob]: 1 });
    expect(await unreadBy(carol)).toEqual({ [carolBob]: 0 });
    expect(await unreadBy(manager)).toEqual({ [managerAlice]: 0 });
    expect(await unreadBy(admin)).toEqual({});

    const list = await listConversations(alice);
    // The most recently active first: the manager wrote 45 minutes ago, the last word with bob was 218 minutes ago.
    expect(list.map((c) => c.id)).toEqual([managerAlice, aliceBob]);
    for (const conversation of list) {
      const row = await conversationRow(conversation.id);
      expect(conversation._id).toBe(conversation.id);
      expect(conversation.participants.map((p) => p.id)).toEqual([row?.userA, row?.userB]);
      for (const participant of conversation.participants) {
        const [user] = await db().select().from(users).where(eq(users.id, participant.id));
        expect(participant).toEqual({
          _id: user?.id,
          id: user?.id,
          name: user?.name,
          avatar: user?.avatar,
          role: user?.role,
          lastReadAt: participant.id === row?.userA ? row.userAReadAt : row?.userBReadAt,
        });
      }
      expect(conversation.lastMessage?.id).toBe(row?.lastMessageId);
      expect(conversation.lastMessageAt).toBe(row?.lastMessageAt);
      expect(conversation.lastMessageAt).toBe(conversation.lastMessage?.createdAt);
    }
    expect(list[0]?.lastMessage).toMatchObject({
      content: 'Also please bring the Q4 numbers.',
      text: 'Also please bring the Q4 numbers.',
      sender: { id: manager.user.id, name: manager.user.name },
    });
    expect(list[1]?.lastMessage).toMatchObject({ content: 'Perfect, thank you!', sender: { id: alice.user.id } });
  });

  test('the seeded messages come oldest first, each read by the other participant when their marker reaches it', async () => {
    const { alice, bob, manager } = people;
    const messages = await listMessages(bob, idOf(alice, bob));
    expect(messages.map((m) => [m.sender.name, m.content])).toEqual([
      ['Alice Johnson', 'Hi Bob, could you send me the hero image in 2x?'],
      ['Bob Smith', 'Sure, exporting it now.'],
      ['Bob Smith', 'Done, it is in the shared folder.'],
      ['Alice Johnson', 'Perfect, thank you!'],
    ]);
    // Both have read everything.
    for (const message of messages) {
      expect(message.readBy.map((r) => r.userId)).toEqual(
        [message.sender.id === alice.user.id ? bob : alice].map((s) => s.user.id),
      );
    }
    // The manager's second message is still unread by alice.
    const withManager = await listMessages(alice, idOf(manager, alice));
    expect(withManager.map((m) => [m.content, m.readBy.map((r) => r.userId)])).toEqual([
      ['Alice, can you join the budget review at 3?', [alice.user.id]],
      ['Also please bring the Q4 numbers.', []],
    ]);
  });
});

describe('authentication', () => {
  test('every direct-message route refuses a call without a token, and nothing changes', async () => {
    const { alice, bob } = people;
    const id = idOf(alice, bob);
    const target = (await liveRowsOf(id))[0];
    const before = { counts: await counts(), version: await newestSeq(db()), files: filesOnDisk() };
    for (const [method, url] of [
      ['GET', base],
      ['POST', base],
      ['GET', `${base}/${id}/messages`],
      ['POST', `${base}/${id}/messages`],
      ['DELETE', `${base}/${id}/messages/${target?.id}`],
      ['PATCH', `${base}/${id}/read`],
    ] as const) {
      expectRefusal(
        await call(null, method, url, method === 'POST' ? { recipientId: bob.user.id, text: 'sneaky' } : undefined),
        401,
        'unauthenticated',
        errorCatalogue.unauthenticated.message,
      );
    }
    const multipart = await upload<ErrorBody>(null, id, [{ name: 'a.png', type: 'image/png', content: pngBytes(100) }]);
    expect(multipart.status).toBe(401);
    expect(multipart.body.code).toBe('unauthenticated');

    expect(await rowsWithText('sneaky')).toEqual([]);
    expect((await messageRow(target?.id ?? ''))?.deletedAt).toBeNull();
    expect(await counts()).toEqual(before.counts);
    expect(filesOnDisk()).toEqual(before.files);
    expect(await newestSeq(db())).toBe(before.version);
  });
});

describe('POST /api/direct-messages/conversations', () => {
  test('a missing, empty or malformed recipient, an unknown one or oneself is refused, and nothing is created', async () => {
    const { alice } = people;
    const before = { counts: await counts(), version: await newestSeq(db()) };
    const cases: [Record<string, unknown>, number, ErrorBody['code'], string | null][] = [
      [{}, 400, 'invalid_input', directTexts.recipientRequired],
      [{ recipientId: '' }, 400, 'invalid_input', directTexts.recipientRequired],
      [{ recipientId: '   ' }, 400, 'invalid_input', directTexts.recipientRequired],
      [{ recipientId: null }, 400, 'invalid_input', directTexts.recipientRequired],
      [{ recipientId: 42 }, 400, 'invalid_input', directTexts.recipientRequired],
      [{ recipientId: 'bob' }, 400, 'invalid_input', null],
      [{ recipientId: uuidv7() }, 404, 'user_not_found', 'User not found.'],
      [{ recipientId: alice.user.id }, 400, 'invalid_input', 'You cannot start a conversation with yourself.'],
    ];
    for (const [payload, status, code, message] of cases) {
      const res = await call<ErrorBody>(alice, 'POST', base, payload);
      expect(res.status, JSON.stringify([payload, res.body])).toBe(status);
      expect(res.body.code).toBe(code);
      if (message !== null) expect(res.body.message).toBe(message);
    }
    expect(directTexts.recipientRequired).toBe('Recipient ID is required');
    expect(await conversationRow(conversationIdFor(alice.user.id, alice.user.id))).toBeUndefined();
    expect(await counts()).toEqual(before.counts);
    expect(await newestSeq(db())).toBe(before.version);
  });

  test('a new conversation answers 201 with its participants; starting it again from either side answers 200 with the same id', async () => {
    const [dora, eric] = await Promise.all([registerEmployee('Dora Direct'), registerEmployee('Eric Direct')]);
    const id = idOf(dora, eric);
    const [first, second] = [dora, eric].sort((a, b) => (a.user.id < b.user.id ? -1 : 1)) as [typeof dora, typeof eric];
    const before = await newestSeq(db());

    const created = await call<{ success: boolean; conversation: Conversation }>(dora, 'POST', base, {
      recipientId: eric.user.id,
    });

    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.success).toBe(true);
    const conversation = conversationSchema.parse(created.body.conversation);
    expect(conversation).toMatchObject({ _id: id, id, lastMessage: null, lastMessageAt: null });
    expect(conversation.participants).toEqual(
      [first, second].map((s) => ({
        _id: s.user.id,
        id: s.user.id,
        name: s.user.name,
        avatar: s.user.avatar,
        role: 'employee',
        lastReadAt: null,
      })),
    );
    expect(await conversationRow(id)).toMatchObject({
      userA: first.user.id,
      userB: second.user.id,
      userAReadAt: null,
      userBReadAt: null,
      lastMessageId: null,
      lastMessageAt: null,
      createdAt: conversation.createdAt,
    });
    expect(await changesAfter(before)).toEqual([['conversation', id, 'put', pairAudience(dora, eric)]]);
    const version = await newestSeq(db());

    for (const session of [dora, eric, dora]) {
      const again = await call<{ success: boolean; conversation: Conversation }>(session, 'POST', base, {
        recipientId: (session === dora ? eric : dora).user.id,
      });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body.conversation).toEqual(conversation);
    }
    expect(
      (
        await db()
          .select()
          .from(conversations)
          .where(or(eq(conversations.userA, dora.user.id), eq(conversations.userB, dora.user.id)))
      ).map((row) => row.id),
    ).toEqual([id]);
    expect(await newestSeq(db())).toBe(version);

    // Both list it, with nothing unread; nobody else does.
    for (const session of [dora, eric]) {
      expect(await listConversations(session)).toEqual([{ ...conversation, unreadCount: 0 }]);
    }
    for (const session of Object.values(people)) {
      expect((await listConversations(session)).map((c) => c.id)).not.toContain(id);
    }
  });

  test('a deactivated user cannot be messaged: 404', async () => {
    const { alice } = people;
    const gone = await registerEmployee('Gina Gone');
    await db().update(users).set({ deactivatedAt: new Date().toISOString() }).where(eq(users.id, gone.user.id));
    const before = await newestSeq(db());

    expectRefusal(
      await call(alice, 'POST', base, { recipientId: gone.user.id }),
      404,
      'user_not_found',
      'User not found.',
    );
    expect(await conversationRow(idOf(alice, gone))).toBeUndefined();
    expect(await newestSeq(db())).toBe(before);
  });
});

describe('unread counts', () => {
  test('each side counts only the other side’s messages newer than their own read marker; PATCH read clears it', async () => {
    const [fay, gus] = await Promise.all([registerEmployee('Fay Unread'), registerEmployee('Gus Unread')]);
    const { id } = await startConversation(fay, gus);
    const gusIsA = (await conversationRow(id))?.userA === gus.user.id;

    const sent: DirectMessage[] = [];
    for (let i = 0; i < 3; i++) sent.push(await sendText(fay, id));
    expect(await unreadOf(gus, id)).toBe(3);
    expect(await unreadOf(fay, id)).toBe(0);
    expect((await listMessages(gus, id)).map((m) => m.readBy)).toEqual([[], [], []]);

    const read = await markRead(gus, id);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body).toEqual({ success: true, readAt: expect.any(String) as unknown });
    const row = await conversationRow(id);
    expect(gusIsA ? row?.userAReadAt : row?.userBReadAt).toBe(read.body.readAt);
    // Fay's marker is where her own last message put it: whoever writes has read what came before.
    expect(gusIsA ? row?.userBReadAt : row?.userAReadAt).toBe(sent.at(-1)?.createdAt);
    expect(await unreadOf(gus, id)).toBe(0);
    expect(await unreadOf(fay, id)).toBe(0);
    // Read records are derived from the marker.
    const afterRead = await listMessages(fay, id);
    expect(afterRead.map((m) => m.id)).toEqual(sent.map((m) => m.id));
    for (const message of afterRead)
      expect(message.readBy).toEqual([{ userId: gus.user.id, readAt: read.body.readAt }]);
    expect((await conversationIn(fay, id))?.participants.find((p) => p.id === gus.user.id)?.lastReadAt).toBe(
      read.body.readAt,
    );

    // The other way round.
    await sleep(2);
    const reply = await sendText(gus, id);
    expect(await unreadOf(fay, id)).toBe(1);
    expect(await unreadOf(gus, id)).toBe(0);
    expect((await listMessages(gus, id)).at(-1)).toMatchObject({ id: reply.id, readBy: [] });
    const fayConversation = await conversationIn(fay, id);
    expect(fayConversation?.lastMessage?.id).toBe(reply.id);
    expect(fayConversation?.lastMessageAt).toBe(reply.createdAt);

    const fayRead = await markRead(fay, id);
    expect(fayRead.status).toBe(200);
    expect(await unreadOf(fay, id)).toBe(0);
    expect((await listMessages(gus, id)).at(-1)?.readBy).toEqual([
      { userId: fay.user.id, readAt: fayRead.body.readAt },
    ]);

    // Reading again never moves a marker back.
    const again = await markRead(gus, id);
    expect(again.status).toBe(200);
    expect(again.body.readAt >= read.body.readAt).toBe(true);
  });
});

describe('messages as JSON', () => {
  test('a participant sends a text: 201, trimmed, stored, the conversation’s last message, one change each for both', async () => {
    const { alice, bob } = people;
    const id = idOf(alice, bob);
    const text = uniqueText('Lunch tomorrow?');
    const messageId = uuidv7();
    const before = await newestSeq(db());

    const res = await call<{ success: boolean; message: DirectMessage }>(alice, 'POST', `${base}/${id}/messages`, {
      id: messageId,
      text: `  \n${text}\t `,
    });

    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.success).toBe(true);
    const message = directMessageSchema.parse(res.body.message);
    expect(message).toEqual({
      _id: messageId,
      id: messageId,
      conversationId: id,
      participantIds: [(await conversationRow(id))?.userA, (await conversationRow(id))?.userB],
      sender: { _id: alice.user.id, id: alice.user.id, name: alice.user.name, avatar: alice.user.avatar },
      content: text,
      text,
      createdAt: expect.any(String) as unknown,
      attachments: [],
      reactions: [],
      version: expect.any(Number) as unknown,
    });
    expect(await messageRow(messageId)).toEqual({
      id: messageId,
      conversationId: id,
      senderId: alice.user.id,
      text,
      deletedAt: null,
      createdAt: message.createdAt,
      version: message.version,
    });
    expect(await conversationRow(id)).toMatchObject({ lastMessageId: messageId, lastMessageAt: message.createdAt });
    const notice = await noticesAbout(messageId);
    expect(notice).toHaveLength(1);
    expect(await changesAfter(before)).toEqual([
      ['directMessage', messageId, 'put', pairAudience(alice, bob)],
      ['conversation', id, 'put', pairAudience(alice, bob)],
      ['notification', notice[0]?.id, 'put', [`user:${bob.user.id}`]],
    ]);

    for (const session of [alice, bob]) {
      const conversation = await conversationIn(session, id);
      // The last message travels without its reactions: those go with the message itself.
      const { reactions: _reactions, ...withoutReactions } = message;
      expect(conversation?.lastMessage).toEqual(withoutReactions);
      expect(conversation?.lastMessageAt).toBe(message.createdAt);
      expect((await listMessages(session, id)).at(-1)).toMatchObject({ id: messageId, content: text });
    }
  });

  test('without a client id the server chooses one', async () => {
    const { alice, bob } = people;
    const text = uniqueText('No id from me');
    const message = await sendText(bob, idOf(alice, bob), text);
    expect(await rowsWithText(text)).toEqual([expect.objectContaining({ id: message.id, senderId: bob.user.id })]);
  });

  test('an empty text is refused, 1000 characters are accepted and 1001 refused', async () => {
    const { alice, bob } = people;
    const id = idOf(alice, bob);
    const before = { counts: await counts(), version: await newestSeq(db()) };
    for (const payload of [{ text: '' }, { text: '  \n\t ' }, {}, { text: null }, { text: 7 }]) {
      expectRefusal(
        await call(alice, 'POST', `${base}/${id}/messages`, payload),
        400,
        'invalid_input',
        directTexts.empty,
      );
    }
    const tooLong = uniqueText('long').padEnd(chatLimits.textMax + 1, 'y');
    expect(tooLong).toHaveLength(1001);
    expectRefusal(
      await call(alice, 'POST', `${base}/${id}/messages`, { text: tooLong }),
      400,
      'invalid_input',
      'A message can have at most 1000 characters.',
    );
    expect(await counts()).toEqual(before.counts);
    expect(await newestSeq(db())).toBe(before.version);

    const exact = uniqueText('exact').padEnd(chatLimits.textMax, 'x');
    expect((await sendText(alice, id, exact)).content).toBe(exact);
    // Surrounding blanks do not count.
    const padded = await sendText(alice, id, `   ${uniqueText('pad').padEnd(1000, 'p')}  `);
    expect(padded.text).toHaveLength(1000);
  });

  test('GET answers the live messages oldest first, as stored', async () => {
    const [hal, ivy] = await Promise.all([registerEmployee('Hal Order'), registerEmployee('Ivy Order')]);
    const { id } = await startConversation(hal, ivy);
    expect(await listMessages(hal, id)).toEqual([]);
    const sent: DirectMessage[] = [];
    for (const [by, text] of [
      [hal, 'one'],
      [ivy, 'two'],
      [hal, 'three'],
      [ivy, 'four'],
    ] as const) {
      sent.push(await sendText(by, id, text));
      await sleep(2);
    }
    for (const session of [hal, ivy]) {
      const messages = await listMessages(session, id);
      expect(messages.map((m) => m.content)).toEqual(['one', 'two', 'three', 'four']);
      expect(messages.map(({ readBy: _readBy, ...m }) => m)).toEqual(sent);
      expect(messages.map((m) => m.id)).toEqual((await liveRowsOf(id)).map((r) => r.id));
    }
  });

  test('an unknown conversation answers 404 on every route', async () => {
    const { alice } = people;
    const unknown = uuidv7();
    const before = await newestSeq(db());
    for (const [method, url, payload] of [
      ['GET', `${base}/${unknown}/messages`, undefined],
      ['POST', `${base}/${unknown}/messages`, { text: 'Hello?' }],
      ['DELETE', `${base}/${unknown}/messages/${uuidv7()}`, undefined],
      ['PATCH', `${base}/${unknown}/read`, undefined],
    ] as const) {
      expectRefusal(await call(alice, method, url, payload), 404, 'not_found', 'Conversation not found.');
    }
    expect(await newestSeq(db())).toBe(before);
  });

  test('a client id sent twice with the same text makes one message; other content under it is refused as duplicate_id', async () => {
    const { alice, bob, carol } = people;
    const id = idOf(alice, bob);
    const messageId = uuidv7();
    const text = uniqueText('Retry me');
    const first = await call(alice, 'POST', `${base}/${id}/messages`, { id: messageId, text });
    expect(first.status).toBe(201);
    const version = await newestSeq(db());

    const again = await call(alice, 'POST', `${base}/${id}/messages`, { id: messageId, text });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expectRefusal(
      await call(alice, 'POST', `${base}/${id}/messages`, { id: messageId, text: `${text} (changed)` }),
      409,
      'duplicate_id',
      errorCatalogue.duplicate_id.message,
    );
    expectRefusal(
      await call(bob, 'POST', `${base}/${id}/messages`, { id: messageId, text }),
      409,
      'duplicate_id',
      errorCatalogue.duplicate_id.message,
    );
    expectRefusal(
      await call(carol, 'POST', `${base}/${idOf(carol, bob)}/messages`, { id: messageId, text }),
      409,
      'duplicate_id',
      errorCatalogue.duplicate_id.message,
    );
    expect(await db().select().from(directMessages).where(eq(directMessages.id, messageId))).toHaveLength(1);
    expect(await noticesAbout(messageId)).toHaveLength(1);
    expect(await newestSeq(db())).toBe(version);
  });
});

describe('messages with files', () => {
  test('repeated files plus text become one message; the files are stored under random names with the same bytes', async () => {
    const { alice, bob } = people;
    const id = idOf(alice, bob);
    const image = pngBytes(3789);
    const document = pdfBytes(1500);
    const before = filesOnDisk();

    const res = await upload(
      alice,
      id,
      [
        { name: 'Holiday photo.png', type: 'image/png', content: image },
        { name: 'Quarterly report.PDF', type: 'application/pdf', content: document },
      ],
      { text: '  Here are the files  ' },
    );

    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.success).toBe(true);
    const message = directMessageSchema.parse(res.body.message);
    expect(message).toMatchObject({
      conversationId: id,
      content: 'Here are the files',
      text: 'Here are the files',
      sender: { id: alice.user.id, name: alice.user.name },
    });
    const [small, large] = [...message.attachments].sort((a, b) => a.size - b.size);
    expect(large).toEqual({
      filename: expect.stringMatching(/^[0-9a-f-]{36}\.png$/) as unknown,
      originalName: 'Holiday photo.png',
      mimetype: 'image/png',
      mimeType: 'image/png',
      url: `/direct-messages/attachments/${large?.filename}`,
      size: 3789,
      kind: 'image',
      formattedSize: '3.7 KB',
    });
    expect(small).toMatchObject({
      filename: expect.stringMatching(/^[0-9a-f-]{36}\.pdf$/) as unknown,
      originalName: 'Quarterly report.PDF',
      mimetype: 'application/pdf',
      url: `/direct-messages/attachments/${small?.filename}`,
      size: 1500,
      kind: 'pdf',
    });
    expect(filesOnDisk()).toEqual([...before, small?.filename, large?.filename].sort());
    expect(new Uint8Array(readFileSync(join(uploadsDir(), large?.filename ?? '')))).toEqual(image);
    expect(new Uint8Array(readFileSync(join(uploadsDir(), small?.filename ?? '')))).toEqual(document);

    expect(await messageRow(message.id)).toMatchObject({
      senderId: alice.user.id,
      text: 'Here are the files',
      deletedAt: null,
    });
    expect(
      (await db().select().from(directAttachments).where(eq(directAttachments.messageId, message.id))).sort(
        (a, b) => a.size - b.size,
      ),
    ).toEqual([
      {
        filename: small?.filename,
        messageId: message.id,
        originalName: 'Quarterly report.PDF',
        mimetype: 'application/pdf',
        size: 1500,
        kind: 'pdf',
      },
      {
        filename: large?.filename,
        messageId: message.id,
        originalName: 'Holiday photo.png',
        mimetype: 'image/png',
        size: 3789,
        kind: 'image',
      },
    ]);
    expect((await conversationRow(id))?.lastMessageId).toBe(message.id);
    const listed = (await listMessages(bob, id)).find((m) => m.id === message.id);
    expect(listed?.attachments).toEqual(message.attachments);
  });

  const accepted: [name: string, type: string, kind: string][] = [
    ['spec.pdf', 'application/pdf', 'pdf'],
    ['letter.doc', 'application/msword', 'document'],
    ['letter.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'document'],
    ['readme.txt', 'text/plain', 'document'],
    ['photo.jpg', 'image/jpeg', 'image'],
    ['photo.JPEG', 'image/jpeg', 'image'],
    ['shot.png', 'image/png', 'image'],
    ['anim.gif', 'image/gif', 'image'],
    ['clip.mp4', 'video/mp4', 'video'],
    ['voice.mp3', 'audio/mpeg', 'audio'],
    ['bundle.zip', 'application/zip', 'archive'],
    ['bundle.rar', 'application/vnd.rar', 'archive'],
  ];

  test.each(accepted)('%s (%s) is accepted as %s', async (name, type, kind) => {
    const { alice, bob } = people;
    const content = sampleFile(name);
    const res = await upload(bob, idOf(alice, bob), [{ name, type, content }]);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.message.attachments).toEqual([
      expect.objectContaining({ originalName: name, kind, size: content.byteLength }) as unknown,
    ]);
    expect(filesOnDisk()).toContain(res.body.message.attachments[0]?.filename);
  });

  const refused: [name: string, type: string][] = [
    ['pic.webp', 'image/webp'],
    ['voice.wav', 'audio/wav'],
    ['clip.webm', 'video/webm'],
    ['photo.bmp', 'image/bmp'],
    ['logo.svg', 'image/svg+xml'],
    ['setup.exe', 'application/octet-stream'],
    ['page.html', 'text/html'],
  ];

  test.each(refused)('%s (%s) is refused with 415 and nothing is left behind', async (name, type) => {
    const { alice, bob } = people;
    await expectUploadRefused(
      alice,
      idOf(alice, bob),
      [{ name, type, content: fileBytes(64) }],
      { text: 'with a file' },
      { status: 415, code: 'unsupported_media_type', message: unsupported(name) },
    );
  });

  test('a page named photo.png is refused with 415 and nothing is left behind', async () => {
    const { alice, bob } = people;
    await expectUploadRefused(
      alice,
      idOf(alice, bob),
      [{ name: 'photo.png', type: 'image/png', content: new TextEncoder().encode('<html><script>1</script>') }],
      { text: 'with a file' },
      {
        status: 415,
        code: 'unsupported_media_type',
        message: '"photo.png" is not a real PNG file: its contents do not match its name.',
      },
    );
  });

  test('a .webp image and a .wav recording the team chat accepts are refused for a direct message', async () => {
    const { alice, bob } = people;
    for (const part of [
      { name: 'pic.webp', type: 'image/webp', content: sampleFile('pic.webp') },
      { name: 'voice.wav', type: 'audio/wav', content: sampleFile('voice.wav') },
    ]) {
      const form = new FormData();
      form.append('files', new Blob([part.content], { type: part.type }), part.name);
      const chat = await fetch(`${server.url}/api/messages/upload`, {
        method: 'POST',
        body: form,
        headers: bearer(alice.token),
      });
      expect(chat.status).toBe(201);
      await expectUploadRefused(alice, idOf(alice, bob), [part], {}, { status: 415, code: 'unsupported_media_type' });
    }
  });

  test('a refused file after good ones leaves neither files nor a message behind', async () => {
    const { alice, bob } = people;
    await expectUploadRefused(
      alice,
      idOf(alice, bob),
      [
        { name: 'fine.png', type: 'image/png', content: pngBytes(2048) },
        { name: 'fine.pdf', type: 'application/pdf', content: pdfBytes(2048) },
        { name: 'song.wav', type: 'audio/wav', content: fileBytes(64) },
      ],
      { text: 'two good, one bad' },
      { status: 415, code: 'unsupported_media_type', message: unsupported('song.wav') },
    );
  });

  test('a file over 25 MB is refused with 413, and the good file before it is removed too', async () => {
    const { alice, bob } = people;
    await expectUploadRefused(
      alice,
      idOf(alice, bob),
      [
        { name: 'small.png', type: 'image/png', content: pngBytes(500) },
        { name: 'huge.zip', type: 'application/zip', content: new Blob([new Uint8Array(uploadLimits.fileBytes + 1)]) },
      ],
      {},
      { status: 413, code: 'payload_too_large', message: '"huge.zip" is larger than 25 MB.' },
    );
  });

  test('a multipart message needs a file, and its text at most 1000 characters', async () => {
    const { alice, bob } = people;
    const id = idOf(alice, bob);
    await expectUploadRefused(
      alice,
      id,
      [],
      { text: 'only text' },
      { status: 400, code: 'invalid_input', message: 'Please select at least one file to upload.' },
    );
    await expectUploadRefused(
      alice,
      id,
      [{ name: 'a.png', type: 'image/png', content: pngBytes(100) }],
      { text: 'x'.repeat(1001) },
      { status: 400, code: 'invalid_input', message: 'A message can have at most 1000 characters.' },
    );
  });

  test('an attachment downloads under its original name for both participants; others get 403, no token 401', async () => {
    const { alice, bob, carol, manager } = people;
    const content = pdfBytes(5000);
    const res = await upload(bob, idOf(alice, bob), [
      { name: 'Plan v2.pdf', type: 'application/octet-stream', content },
    ]);
    expect(res.status).toBe(201);
    const [file] = res.body.message.attachments;
    const url = file?.url ?? '';
    expect(url).toBe(`/direct-messages/attachments/${file?.filename}`);

    for (const session of [alice, bob]) {
      const got = await download(session, url);
      expect(got.status).toBe(200);
      expect(got.headers.get('content-type')).toBe('application/pdf');
      expect(got.headers.get('content-length')).toBe('5000');
      expect(got.headers.get('x-content-type-options')).toBe('nosniff');
      expect(got.headers.get('content-disposition')).toBe(
        `attachment; filename="Plan v2.pdf"; filename*=UTF-8''Plan%20v2.pdf`,
      );
      expect(new Uint8Array(await got.arrayBuffer())).toEqual(content);
    }
    for (const session of [carol, manager]) {
      const refusedDownload = await download(session, url);
      expect(refusedDownload.status).toBe(403);
      const body = (await refusedDownload.json()) as ErrorBody;
      expect(body.code).toBe('forbidden');
      expect(JSON.stringify(body)).not.toContain('%PDF');
    }
    const anonymous = await download(null, url);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as ErrorBody).code).toBe('unauthenticated');

    const unknown = await download(alice, `/direct-messages/attachments/${randomUUID()}.pdf`);
    expect(unknown.status).toBe(404);
    const tricky = await download(alice, `/direct-messages/attachments/..%2F..%2Fworkspace.db`);
    expect(tricky.status).toBe(404);

    // Once its message is deleted, the file is no longer served.
    const del = await call(bob, 'DELETE', `${base}/${idOf(alice, bob)}/messages/${res.body.message.id}`);
    expect(del.status).toBe(200);
    expect((await download(alice, url)).status).toBe(404);
  });

  test('a queued multipart send (clientId, mutationId, at) applies exactly once; the replay’s files are removed', async () => {
    const { alice, bob } = people;
    const id = idOf(alice, bob);
    const clientId = uuidv7();
    const messageId = uuidv7();
    const fields = { clientId, mutationId: '1', at: new Date().toISOString(), id: messageId, text: 'Queued offline' };
    const parts = [{ name: 'offline.png', type: 'image/png', content: pngBytes(321) }];
    const before = { files: filesOnDisk(), counts: await counts() };

    const first = await upload<UploadOutcomeResponse>(alice, id, parts, fields);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toEqual({ outcome: { id: 1, status: 'applied' } });
    const rows = await db().select().from(directMessages).where(eq(directMessages.id, messageId));
    expect(rows).toEqual([
      expect.objectContaining({ senderId: alice.user.id, text: 'Queued offline', conversationId: id }),
    ]);
    const stored = await db().select().from(directAttachments).where(eq(directAttachments.messageId, messageId));
    expect(stored.map((f) => [f.originalName, f.size])).toEqual([['offline.png', 321]]);
    expect(filesOnDisk()).toEqual([...before.files, stored[0]?.filename].sort());
    expect(await noticesAbout(messageId)).toHaveLength(1);
    const afterFirst = { files: filesOnDisk(), counts: await counts(), version: await newestSeq(db()) };
    expect(afterFirst.counts).toEqual({
      ...before.counts,
      messages: before.counts.messages + 1,
      attachments: before.counts.attachments + 1,
      notifications: before.counts.notifications + 1,
    });

    const replay = await upload<UploadOutcomeResponse>(alice, id, parts, fields);
    expect(replay.status, JSON.stringify(replay.body)).toBe(200);
    expect(replay.body).toEqual({ outcome: { id: 1, status: 'duplicate', original: 'applied' } });
    expect(await db().select().from(directMessages).where(eq(directMessages.id, messageId))).toHaveLength(1);
    expect(filesOnDisk()).toEqual(afterFirst.files);
    expect(await counts()).toEqual(afterFirst.counts);
    expect(await newestSeq(db())).toBe(afterFirst.version);

    // A queued send that breaks a rule is recorded as rejected; the queue moves on and no file stays.
    const refusedBody = await upload<UploadOutcomeResponse>(
      alice,
      id,
      [{ name: 'voice.wav', type: 'audio/wav', content: fileBytes(64) }],
      { clientId, mutationId: '2', at: new Date().toISOString(), id: uuidv7() },
    );
    expect(refusedBody.status).toBe(200);
    expect(refusedBody.body).toEqual({
      outcome: { id: 2, status: 'rejected', code: 'unsupported_media_type', message: unsupported('voice.wav') },
    });
    expect(filesOnDisk()).toEqual(afterFirst.files);
    expect(await counts()).toEqual(afterFirst.counts);
  });

  test('a queued send with bad sync fields or another user’s client id is refused, and its files are removed', async () => {
    const { alice, bob } = people;
    const id = idOf(alice, bob);
    const bobsClient = uuidv7();
    expect((await push(bob, bobsClient, [mutation(1, 'dm.markRead', { conversationId: id })])).outcomes).toEqual([
      { id: 1, status: 'applied' },
    ]);
    const parts = [{ name: 'queued.png', type: 'image/png', content: pngBytes(200) }];
    const at = new Date().toISOString();

    await expectUploadRefused(
      alice,
      id,
      parts,
      { clientId: bobsClient, mutationId: '1', at, id: uuidv7() },
      { status: 403, code: 'client_not_yours', message: 'This sync client belongs to another user.' },
    );
    for (const fields of [
      { clientId: 'not-a-client', mutationId: '1', at },
      { clientId: uuidv7(), mutationId: 'first', at },
      { clientId: uuidv7(), mutationId: '1', at: 'yesterday' },
    ]) {
      await expectUploadRefused(alice, id, parts, fields, { status: 400, code: 'invalid_input' });
    }
  });
});

describe('DELETE /api/direct-messages/conversations/:id/messages/:messageId', () => {
  test('the sender deletes the last message: it leaves both lists, and the conversation’s lastMessage becomes null', async () => {
    const [jan, kim] = await Promise.all([registerEmployee('Jan Delete'), registerEmployee('Kim Delete')]);
    const { id } = await startConversation(jan, kim);
    const earlier = await sendText(jan, id, 'earlier');
    const last = await sendText(jan, id, 'last');
    const before = await newestSeq(db());

    const res = await call(jan, 'DELETE', `${base}/${id}/messages/${last.id}`);

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Message deleted' });
    expect((await messageRow(last.id))?.deletedAt).toEqual(expect.any(String));
    expect((await conversationRow(id))?.lastMessageId).toBeNull();
    expect(await changesAfter(before)).toEqual([
      ['directMessage', last.id, 'delete', pairAudience(jan, kim)],
      ['conversation', id, 'put', pairAudience(jan, kim)],
    ]);
    for (const session of [jan, kim]) {
      expect((await conversationIn(session, id))?.lastMessage).toBeNull();
      expect((await listMessages(session, id)).map((m) => m.id)).toEqual([earlier.id]);
    }
    // The unread count no longer counts it either.
    expect(await unreadOf(kim, id)).toBe(1);
  });

  test('deleting an earlier message leaves the last message as it is', async () => {
    const { alice, bob } = people;
    const id = idOf(alice, bob);
    const earlier = await sendText(alice, id);
    const last = await sendText(bob, id);

    expect((await call(alice, 'DELETE', `${base}/${id}/messages/${earlier.id}`)).status).toBe(200);

    expect((await conversationRow(id))?.lastMessageId).toBe(last.id);
    expect((await conversationIn(alice, id))?.lastMessage?.id).toBe(last.id);
    expect((await listMessages(bob, id)).map((m) => m.id)).not.toContain(earlier.id);
  });

  test('only the sender deletes; an unknown, deleted or other conversation’s message is 404 "Message not found."', async () => {
    const { alice, bob, carol } = people;
    const id = idOf(alice, bob);
    const mine = await sendText(alice, id);
    const elsewhere = await sendText(carol, idOf(carol, bob));
    const gone = await sendText(alice, id);
    expect((await call(alice, 'DELETE', `${base}/${id}/messages/${gone.id}`)).status).toBe(200);
    const before = await newestSeq(db());

    expectRefusal(
      await call(bob, 'DELETE', `${base}/${id}/messages/${mine.id}`),
      403,
      'forbidden',
      'You can only delete your own messages.',
    );
    for (const target of [uuidv7(), gone.id, elsewhere.id]) {
      expectRefusal(
        await call(alice, 'DELETE', `${base}/${id}/messages/${target}`),
        404,
        'message_not_found',
        'Message not found.',
      );
    }
    expect((await messageRow(mine.id))?.deletedAt).toBeNull();
    expect((await messageRow(elsewhere.id))?.deletedAt).toBeNull();
    expect(await newestSeq(db())).toBe(before);
  });
});

describe('a non-participant', () => {
  test('is refused with 403 on every route of a conversation, and nothing changes', async () => {
    const { alice, bob, carol } = people;
    const id = idOf(alice, bob);
    const message = await sendText(alice, id);
    const withFile = await upload(bob, id, [
      { name: 'private.txt', type: 'text/plain', content: fileBytes(40, 'secret') },
    ]);
    expect(withFile.status).toBe(201);
    const fileUrl = withFile.body.message.attachments[0]?.url ?? '';
    const row = await conversationRow(id);
    const before = { counts: await counts(), version: await newestSeq(db()), files: filesOnDisk() };
    const notParticipant = 'You are not a participant in this conversation.';

    expectRefusal(await call(carol, 'GET', `${base}/${id}/messages`), 403, 'forbidden', notParticipant);
    expectRefusal(
      await call(carol, 'POST', `${base}/${id}/messages`, { text: 'Let me in' }),
      403,
      'forbidden',
      notParticipant,
    );
    await expectUploadRefused(
      carol,
      id,
      [{ name: 'intruder.png', type: 'image/png', content: pngBytes(300) }],
      { text: 'Let me in' },
      { status: 403, code: 'forbidden', message: notParticipant },
    );
    expectRefusal(
      await call(carol, 'DELETE', `${base}/${id}/messages/${message.id}`),
      403,
      'forbidden',
      notParticipant,
    );
    expectRefusal(await call(carol, 'PATCH', `${base}/${id}/read`), 403, 'forbidden', notParticipant);
    const got = await download(carol, fileUrl);
    expect(got.status).toBe(403);
    expect(((await got.json()) as ErrorBody).code).toBe('forbidden');

    expect(await rowsWithText('Let me in')).toEqual([]);
    expect((await messageRow(message.id))?.deletedAt).toBeNull();
    expect(await conversationRow(id)).toEqual(row);
    expect(await counts()).toEqual(before.counts);
    expect(filesOnDisk()).toEqual(before.files);
    expect(await newestSeq(db())).toBe(before.version);
    expect((await listConversations(carol)).map((c) => c.id)).not.toContain(id);
  });
});

describe('notifications', () => {
  test('the recipient alone is notified, with the text cut to 50 characters and "..."', async () => {
    const { alice, bob } = people;
    const id = idOf(alice, bob);
    const text = `${uniqueText('Release notes')} `.padEnd(70, 'abcdefghij');
    expect(text).toHaveLength(70);
    const before = await newestSeq(db());

    const message = await sendText(alice, id, text);

    const rows = await noticesAbout(message.id);
    expect(rows).toEqual([
      {
        id: expect.any(String) as unknown,
        recipientId: bob.user.id,
        senderId: alice.user.id,
        type: 'direct_message',
        title: 'New Direct Message from Alice Johnson',
        message: `${text.slice(0, 50)}...`,
        relatedTaskId: null,
        data: {
          messageId: message.id,
          conversationId: id,
          messageText: text,
          senderName: 'Alice Johnson',
          timestamp: message.createdAt,
        },
        // The notice names its message: one per message (POST /api/notifications answers this one).
        messageId: message.id,
        readAt: null,
        // Flagged for the background push queue until it has run.
        pushPending: expect.any(Boolean) as unknown,
        createdAt: message.createdAt,
        version: expect.any(Number) as unknown,
      },
    ]);
    expect(rows[0]?.message).toHaveLength(53);

    // Only bob's devices hear of it: the notification's change is his alone.
    expect((await changesAfter(before)).filter(([entity]) => entity === 'notification')).toEqual([
      ['notification', rows[0]?.id, 'put', [`user:${bob.user.id}`]],
    ]);
  });

  test('a text of at most 50 characters is notified whole, the other way round too', async () => {
    const { alice, bob } = people;
    const text = uniqueText('Short').padEnd(50, '!');
    const message = await sendText(bob, idOf(alice, bob), text);
    expect((await noticesAbout(message.id)).map((n) => [n.recipientId, n.title, n.message])).toEqual([
      [alice.user.id, 'New Direct Message from Bob Smith', text],
    ]);
  });

  test('a message with files only is notified as "Shared files"', async () => {
    const { alice, bob } = people;
    const res = await upload(alice, idOf(alice, bob), [
      { name: 'notes.txt', type: 'text/plain', content: fileBytes(20) },
    ]);
    expect(res.status).toBe(201);
    expect(res.body.message.content).toBe('');
    expect(
      (await noticesAbout(res.body.message.id)).map((n) => [n.recipientId, n.type, n.message, n.data.messageText]),
    ).toEqual([[bob.user.id, 'direct_message', 'Shared files', '']]);
  });
});

describe('direct messages through /api/sync/push and pull', () => {
  const outcomeOk = (id: number) => ({ id, status: 'applied' });

  test('dm.start, dm.send, dm.markRead and dm.delete apply like their routes; a replayed push has no second effect', async () => {
    const [lea, max] = await Promise.all([registerEmployee('Lea Offline'), registerEmployee('Max Offline')]);
    const id = idOf(lea, max);
    const clientId = uuidv7();
    const [first, second] = [uuidv7(), uuidv7()];
    const batch = [
      mutation(1, 'dm.start', { recipientId: max.user.id }),
      mutation(2, 'dm.send', { id: first, conversationId: id, text: '  written on the train  ' }),
      mutation(3, 'dm.send', { id: second, conversationId: id, text: 'and deleted' }),
      mutation(4, 'dm.delete', { conversationId: id, id: second }),
    ];

    const res = await push(lea, clientId, batch);

    expect(res.outcomes).toEqual([1, 2, 3, 4].map(outcomeOk));
    expect(await conversationRow(id)).toMatchObject({ lastMessageId: null });
    // Both were made in the same millisecond, so neither time nor id orders them: they are compared by id.
    const stored = new Map((await messageRowsOf(id)).map((r) => [r.id, [r.senderId, r.text, r.deletedAt === null]]));
    expect(stored).toEqual(
      new Map([
        [first, [lea.user.id, 'written on the train', true]],
        [second, [lea.user.id, 'and deleted', false]],
      ]),
    );
    expect((await noticesAbout(first)).map((n) => n.recipientId)).toEqual([max.user.id]);
    expect(await unreadOf(max, id)).toBe(1);
    const snapshot = { counts: await counts(), version: await newestSeq(db()) };

    const replay = await push(lea, clientId, batch);
    expect(replay.outcomes).toEqual([1, 2, 3, 4].map((n) => ({ id: n, status: 'duplicate', original: 'applied' })));
    expect(await counts()).toEqual(snapshot.counts);
    expect(await newestSeq(db())).toBe(snapshot.version);

    const read = await push(max, uuidv7(), [mutation(1, 'dm.markRead', { conversationId: id })]);
    expect(read.outcomes).toEqual([outcomeOk(1)]);
    expect(await unreadOf(max, id)).toBe(0);
    const row = await conversationRow(id);
    expect(row?.userA === max.user.id ? row.userAReadAt : row?.userBReadAt).toEqual(expect.any(String));
  });

  test('the same rules refuse a mutation through push, and the queue moves on', async () => {
    const { alice, bob, manager } = people;
    const aliceBob = idOf(alice, bob);
    const managerAlice = idOf(manager, alice);
    const alicesMessage = await sendText(alice, aliceBob);
    const okId = uuidv7();
    const okText = uniqueText('After the refusals');
    const before = await newestSeq(db());
    const managerAliceRow = await conversationRow(managerAlice);

    const res = await push(bob, uuidv7(), [
      mutation(1, 'dm.delete', { conversationId: aliceBob, id: alicesMessage.id }),
      mutation(2, 'dm.send', { id: uuidv7(), conversationId: managerAlice, text: 'Sneaking in' }),
      mutation(3, 'dm.send', { id: uuidv7(), conversationId: aliceBob, text: '   ' }),
      mutation(4, 'dm.start', { recipientId: bob.user.id }),
      mutation(5, 'dm.start', {}),
      mutation(6, 'dm.markRead', { conversationId: managerAlice }),
      mutation(7, 'dm.delete', { conversationId: aliceBob, id: uuidv7() }),
      mutation(8, 'dm.sendFiles', {
        id: uuidv7(),
        conversationId: aliceBob,
        files: [{ name: 'a.png', type: 'image/png', size: 10 }],
      }),
      mutation(9, 'dm.send', { id: okId, conversationId: aliceBob, text: okText }),
    ]);

    expect(res.outcomes).toEqual([
      { id: 1, status: 'rejected', code: 'forbidden', message: 'You can only delete your own messages.' },
      { id: 2, status: 'rejected', code: 'forbidden', message: 'You are not a participant in this conversation.' },
      { id: 3, status: 'rejected', code: 'invalid_input', message: directTexts.empty },
      { id: 4, status: 'rejected', code: 'invalid_input', message: directTexts.self },
      { id: 5, status: 'rejected', code: 'invalid_input', message: directTexts.recipientRequired },
      { id: 6, status: 'rejected', code: 'forbidden', message: 'You are not a participant in this conversation.' },
      { id: 7, status: 'rejected', code: 'message_not_found', message: 'Message not found.' },
      {
        id: 8,
        status: 'rejected',
        code: 'invalid_input',
        message: 'Files are sent through POST /api/direct-messages/conversations/{id}/messages, not /api/sync/push.',
      },
      outcomeOk(9),
    ]);
    expect((await messageRow(alicesMessage.id))?.deletedAt).toBeNull();
    expect(await rowsWithText('Sneaking in')).toEqual([]);
    expect(await conversationRow(managerAlice)).toEqual(managerAliceRow);
    expect(await rowsWithText(okText)).toEqual([expect.objectContaining({ id: okId, senderId: bob.user.id })]);
    // Only the applied send left changes.
    expect((await changesAfter(before)).map(([entity]) => entity)).toEqual([
      'directMessage',
      'conversation',
      'notification',
    ]);
  });

  test('a conversation started offline from both sides is one conversation with one id', async () => {
    const { admin, manager } = people;
    const id = idOf(admin, manager);
    expect(await conversationRow(id)).toBeUndefined();
    const [adminClient, managerClient] = [uuidv7(), uuidv7()];
    const [fromAdmin, fromManager] = [uuidv7(), uuidv7()];
    // Both devices signed in (their first pull registers them), then went offline.
    await pull(admin, adminClient, '0');
    await pull(manager, managerClient, '0');

    // Both devices computed the id themselves and queued a start and a first message, before either synced, at
    // the same moment (stamped once: two clocks read apart may cross a millisecond, and a later send reads the other).
    const at = new Date().toISOString();
    const adminQueue = [
      { ...mutation(1, 'dm.start', { recipientId: manager.user.id }), at },
      { ...mutation(2, 'dm.send', { id: fromAdmin, conversationId: id, text: 'Hi from admin' }), at },
    ];
    const managerQueue = [
      { ...mutation(1, 'dm.start', { recipientId: admin.user.id }), at },
      { ...mutation(2, 'dm.send', { id: fromManager, conversationId: id, text: 'Hi from manager' }), at },
    ];
    const adminPush = await push(admin, adminClient, adminQueue);
    const managerPush = await push(manager, managerClient, managerQueue);

    expect(adminPush.outcomes).toEqual([outcomeOk(1), outcomeOk(2)]);
    expect(managerPush.outcomes).toEqual([outcomeOk(1), outcomeOk(2)]);
    const rows = (await db().select().from(conversations)).filter(
      (row) => [row.userA, row.userB].sort().join() === [admin.user.id, manager.user.id].sort().join(),
    );
    expect(rows.map((row) => row.id)).toEqual([id]);
    // Both were written at the same claimed moment: their order is not the point.
    expect((await liveRowsOf(id)).map((r) => r.text).sort()).toEqual(['Hi from admin', 'Hi from manager']);
    // Neither had seen the other's message when writing their own, so each still has one unread.
    expect(await unreadOf(admin, id)).toBe(1);
    expect(await unreadOf(manager, id)).toBe(1);
  });

  test('pull carries conversations and direct messages to their participants only', async () => {
    const { alice, bob, carol } = people;
    const aliceBob = idOf(alice, bob);
    const isDirect = (c: Change) => c.entity === 'conversation' || c.entity === 'directMessage';
    const involves = (c: Change, userId: string) =>
      c.op === 'put' &&
      ((c.entity === 'conversation' && c.data.participants.some((p) => p.id === userId)) ||
        (c.entity === 'directMessage' && c.data.participantIds.includes(userId)));

    const [aliceClient, bobClient, carolClient] = [uuidv7(), uuidv7(), uuidv7()];
    const boot = {
      alice: await pull(alice, aliceClient, '0'),
      bob: await pull(bob, bobClient, '0'),
      carol: await pull(carol, carolClient, '0'),
    };
    for (const [name, session] of [
      ['alice', alice],
      ['bob', bob],
      ['carol', carol],
    ] as const) {
      const answer = boot[name];
      expect(answer.more).toBe(false);
      const direct = answer.changes.filter(isDirect);
      expect(direct.length).toBeGreaterThan(0);
      for (const change of direct) expect(involves(change, session.user.id), JSON.stringify(change)).toBe(true);
      // Every live message of the user's conversations, every conversation of theirs.
      const conversationIds = (
        await db()
          .select({ id: conversations.id })
          .from(conversations)
          .where(or(eq(conversations.userA, session.user.id), eq(conversations.userB, session.user.id)))
      )
        .map((r) => r.id)
        .sort();
      expect(
        direct
          .filter((c) => c.entity === 'conversation')
          .map((c) => c.id)
          .sort(),
      ).toEqual(conversationIds);
      const messageIds = (
        await db()
          .select({ id: directMessages.id, conversationId: directMessages.conversationId })
          .from(directMessages)
          .where(isNull(directMessages.deletedAt))
      )
        .filter((r) => conversationIds.includes(r.conversationId))
        .map((r) => r.id)
        .sort();
      expect(
        direct
          .filter((c) => c.entity === 'directMessage')
          .map((c) => c.id)
          .sort(),
      ).toEqual(messageIds);
    }
    expect(boot.carol.changes.map((c) => c.id)).not.toContain(aliceBob);

    // Alice writes to bob and deletes another message through push; carol's next pull shows none of it.
    const gone = await sendText(alice, aliceBob);
    const cursorBeforePush = await cursorNow(db());
    const messageId = uuidv7();
    const res = await push(alice, aliceClient, [
      mutation(1, 'dm.send', { id: messageId, conversationId: aliceBob, text: uniqueText('Just for bob') }),
      mutation(2, 'dm.delete', { conversationId: aliceBob, id: gone.id }),
    ]);
    expect(res.outcomes).toEqual([outcomeOk(1), outcomeOk(2)]);

    const carolNext = await pull(carol, carolClient, boot.carol.cursor);
    const carolSees = carolNext.changes.map((c) => c.id);
    for (const hidden of [aliceBob, messageId, gone.id]) expect(carolSees).not.toContain(hidden);
    expect(carolNext.changes.filter(isDirect)).toEqual([]);

    const bobNext = await pull(bob, bobClient, cursorBeforePush);
    expect(bobNext.changes.filter(isDirect).map((c) => [c.entity, c.op, c.id])).toEqual(
      expect.arrayContaining([
        ['directMessage', 'put', messageId],
        ['conversation', 'put', aliceBob],
        ['directMessage', 'delete', gone.id],
      ]),
    );
    expect(bobNext.changes).toContainEqual(
      expect.objectContaining({
        entity: 'notification',
        op: 'put',
        data: expect.objectContaining({ type: 'direct_message' }) as unknown,
      }),
    );
  });
});
