import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import {
  conversationIdFor,
  nestingTooDeepMessage,
  nulCharacterMessage,
  type PushResponse,
  uuidv7,
  type AuthResponse,
  type ChatMessage,
  type SendMessageAck,
  type User,
} from '@office/sync-protocol';
import { dialect } from '../db/dialect';
import { chatAttachments, chatMessages, tasks, users } from '../db/schema';
import { avatarUrlPrefix } from '../domain/users/avatars';
import { multipartForm, pngBytes, postMultipart } from '../../test/multipart';
import { DEMO_PASSWORD } from '../db/seed';
import { bearer, inDays, uniqueText } from '../../test/support';
import { expectRefusal, mutation, useSeededServer } from '../../test/api-client';

// One seeded server for the whole file; every test registers or writes its own rows.
const { server, people, db, call, push, registerEmployee } = useSeededServer();

const userRow = async (id: string) => (await db().select().from(users).where(eq(users.id, id)))[0];

describe('names', () => {
  // Right-to-left override, zero-width space, zero-width joiner, left-to-right isolate, byte order mark.
  const disguised = 'Ad\u202Emin\u200B Mal\u200Dlory\u2066\uFEFF';

  test('registration drops bidirectional controls and zero-width characters from the name', async () => {
    const res = await call<AuthResponse>(null, 'POST', '/api/auth/register', {
      name: disguised,
      email: `disguised.${uuidv7()}@example.com`,
      password: 'secret99',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.user.name).toBe('Admin Mallory');
    expect((await userRow(res.body.user.id))?.name).toBe('Admin Mallory');
  });

  test('a profile update drops them too, and a name made only of them is no name', async () => {
    const ned = await registerEmployee('Ned Name');
    const updated = await call<{ user: User }>(ned, 'PUT', '/api/auth/updatedetails', {
      name: `\u202ENed\u200B Renamed`,
      email: ned.email,
    });
    expect(updated.status).toBe(200);
    expect(updated.body.user.name).toBe('Ned Renamed');

    const invisible = await call(ned, 'PUT', '/api/auth/updatedetails', {
      name: '\u200B\u202E\u2069',
      email: ned.email,
    });
    expectRefusal(invisible, 400, 'invalid_input', 'Name and email are required');
    expect((await userRow(ned.user.id))?.name).toBe('Ned Renamed');
  });

  test("an uploaded file's name loses the controls that would make it read as another", async () => {
    // Shown as "photo_gnp.exe" reversed: "photo_exe.png"; stored and shown as what it is.
    const form = multipartForm([{ name: 'report\u202Egnp.exe\u200B.png', type: 'image/png', content: pngBytes(64) }]);
    const res = await postMultipart<{ message: ChatMessage }>(`${server.url}/api/messages/upload`, people.alice, form);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [file] = res.body.message.attachments;
    expect(file?.originalName).toBe('reportgnp.exe.png');
    expect(await db().select().from(chatAttachments).where(eq(chatAttachments.messageId, res.body.message.id))).toEqual(
      [expect.objectContaining({ originalName: 'reportgnp.exe.png' })],
    );
  });
});

describe('NUL characters', () => {
  const nul = 'before\u0000after';

  test.each([
    ['a chat message', () => call(people.alice, 'POST', '/api/messages', { text: nul })],
    [
      'a task title',
      () =>
        call(people.manager, 'POST', '/api/tasks', {
          title: nul,
          assignedTo: people.alice.user.id,
          dueDate: inDays(2),
        }),
    ],
    [
      'a registration name',
      () => call(null, 'POST', '/api/auth/register', { name: nul, email: 'nul@example.com', password: 'secret99' }),
    ],
    ['a sign-in password', () => call(null, 'POST', '/api/auth/login', { email: 'alice@demo.local', password: nul })],
    ['a query parameter', () => call(people.alice, 'GET', `/api/tasks?page=${encodeURIComponent(nul)}`)],
  ])('in %s are refused with a clear 400 and nothing is stored', async (_what, send) => {
    const counts = async () => [
      (await db().select().from(chatMessages)).length,
      (await db().select().from(tasks)).length,
      (await db().select().from(users)).length,
    ];
    const before = await counts();
    expectRefusal(await send(), 400, 'invalid_input', nulCharacterMessage);
    expect(await counts()).toEqual(before);
  });

  test('inside a push only the mutation that carries one is rejected; the rest of the batch applies', async () => {
    const text = uniqueText('Clean');
    const answer = await push(people.alice, uuidv7(), [
      mutation(1, 'chat.send', { id: uuidv7(), text: nul }),
      mutation(2, 'chat.send', { id: uuidv7(), text }),
    ]);
    expect(answer.outcomes).toEqual([
      { id: 1, status: 'rejected', code: 'invalid_input', message: nulCharacterMessage },
      { id: 2, status: 'applied' },
    ]);
    expect(await db().select().from(chatMessages).where(eq(chatMessages.text, text))).toHaveLength(1);
  });

  test('over a socket the write is refused with an error event and its acknowledgement', async () => {
    const { alice, bob } = people;
    const socket = await server.connect(alice.token);
    const conversationId = conversationIdFor(alice.user.id, bob.user.id);
    const ack = (await socket.emitWithAck('send-message', { conversationId, text: nul })) as SendMessageAck;
    expect(ack).toEqual({ error: { code: 'invalid_input', message: nulCharacterMessage } });
  });
});

describe('deeply nested JSON', () => {
  // What the scan sent: 200 KB of brackets, a hundred thousand levels deep.
  const brackets = '['.repeat(100_000) + ']'.repeat(100_000);

  test('a sign-in nested a hundred thousand levels deep answers 400, not a server error', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: `{"email":"alice@demo.local","password":${brackets}}`,
    });
    expectRefusal({ status: res.statusCode, body: res.json() }, 400, 'invalid_input', nestingTooDeepMessage);
    // The address was not charged a failed sign-in for it: the right password still gets in at once.
    expect(
      (await call(null, 'POST', '/api/auth/login', { email: 'alice@demo.local', password: DEMO_PASSWORD })).status,
    ).toBe(200);
  });

  test('a pushed mutation with nested arguments is rejected on its own and the next one applies', async () => {
    const text = uniqueText('After the nested one');
    const clientId = uuidv7();
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/sync/push',
      headers: { ...bearer(people.alice.token), 'content-type': 'application/json' },
      payload: `{"clientId":"${clientId}","mutations":[${JSON.stringify(mutation(1, 'chat.send', {})).replace('{}', `{"id":"${uuidv7()}","text":${brackets}}`)},${JSON.stringify(mutation(2, 'chat.send', { id: uuidv7(), text }))}]}`,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<PushResponse>().outcomes).toEqual([
      { id: 1, status: 'rejected', code: 'invalid_input', message: nestingTooDeepMessage },
      { id: 2, status: 'applied' },
    ]);
    expect(await db().select().from(chatMessages).where(eq(chatMessages.text, text))).toHaveLength(1);
    // The refusal is kept: the device sending the batch again hears the same outcome and moves on.
    const again = await push(people.alice, clientId, [mutation(2, 'chat.send', { id: uuidv7(), text })]);
    expect(again.outcomes).toEqual([{ id: 2, status: 'duplicate', original: 'applied' }]);
  });
});

describe('files under DATA_DIR', () => {
  const modeOf = (path: string) => statSync(path).mode & 0o777;

  test('the data folder, the database, the JWT secret, uploads and avatars are readable by the owner only', async () => {
    const dataDir = server.config.dataDir;
    const ivy = await registerEmployee('Ivy Image');
    const avatar = await postMultipart<{ avatarUrl: string }>(
      `${server.url}/api/auth/upload-avatar`,
      ivy,
      multipartForm([{ name: 'me.png', type: 'image/png', content: pngBytes(64) }], {}, 'avatar'),
    );
    expect(avatar.status).toBe(200);
    const upload = await postMultipart<{ message: ChatMessage }>(
      `${server.url}/api/messages/upload`,
      people.alice,
      multipartForm([{ name: 'private.png', type: 'image/png', content: pngBytes(64) }]),
    );
    expect(upload.status).toBe(201);

    expect(modeOf(dataDir)).toBe(0o700);
    const present = readdirSync(dataDir);
    // On PostgreSQL the database is not a file of the data folder.
    const database = dialect === 'sqlite' ? ['workspace.db'] : [];
    expect(present).toEqual(expect.arrayContaining([...database, 'jwt-secret', 'uploads', 'avatars']));
    for (const file of ['workspace.db', 'workspace.db-wal', 'workspace.db-shm', 'jwt-secret'].filter((name) =>
      present.includes(name),
    ))
      expect(modeOf(join(dataDir, file)), file).toBe(0o600);
    for (const folder of ['uploads', 'avatars']) {
      expect(modeOf(join(dataDir, folder)), folder).toBe(0o700);
      for (const file of readdirSync(join(dataDir, folder)))
        expect(modeOf(join(dataDir, folder, file)), file).toBe(0o600);
    }
    const avatarName = ((await userRow(ivy.user.id))?.avatar ?? '').slice(avatarUrlPrefix.length);
    expect(modeOf(join(dataDir, 'avatars', avatarName))).toBe(0o600);
    const stored = upload.body.message.attachments[0]?.filename ?? '';
    expect(modeOf(join(dataDir, 'uploads', stored))).toBe(0o600);
  });
});
