import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { eq } from 'drizzle-orm';
import {
  errorCatalogue,
  limits,
  type AvatarResponse,
  type Change,
  type ChatMessage,
  type ErrorBody,
  type SuccessResponse,
  type User,
} from '@office/sync-protocol';
import { sessions, users } from '../../db/schema';
import { newestSeq } from '../../domain/change-log';
import { bearer, connectSocket, nextEvent, signIn } from '../../../test/support';
import { multipartForm, type FilePart } from '../../../test/multipart';
import { expectRefusal, useSeededServer, type Session } from '../../../test/api-client';

// One seeded server for the whole file; tests that change an account register their own.
const { server, people, db, call, registerEmployee } = useSeededServer();

const userRow = async (id: string) => (await db().select().from(users).where(eq(users.id, id)))[0];

const login = (email: string, password: string) => call(null, 'POST', '/api/auth/login', { email, password });
const me = (token: string) => call<{ user: User }>({ token, user: people.alice.user }, 'GET', '/api/auth/me');

/** A refusal that left the change log and the user's row as they were. */
async function expectUnchanged(userId: string, act: () => Promise<void>): Promise<void> {
  const version = await newestSeq(db());
  const row = await userRow(userId);
  await act();
  expect(await newestSeq(db())).toBe(version);
  expect(await userRow(userId)).toEqual(row);
}

describe('PUT /api/auth/updatedetails', () => {
  const update = (session: Session | null, payload: Record<string, unknown>) =>
    call<{ user: User; message: string }>(session, 'PUT', '/api/auth/updatedetails', payload);

  test('without a token it is 401', async () => {
    expectRefusal(
      await update(null, { name: 'X', email: 'x@example.com' }),
      401,
      'unauthenticated',
      errorCatalogue.unauthenticated.message,
    );
  });

  test.each([
    ['no name', { email: 'someone@example.com' }],
    ['no email', { name: 'Someone' }],
    ['a blank name', { name: '   ', email: 'someone@example.com' }],
    ['a blank email', { name: 'Someone', email: '  ' }],
    ['nothing', {}],
  ])('%s: "Name and email are required"', async (_what, payload) => {
    const { alice } = people;
    await expectUnchanged(alice.user.id, async () => {
      expectRefusal(await update(alice, payload), 400, 'invalid_input', 'Name and email are required');
    });
  });

  test('a malformed email is refused', async () => {
    const { alice } = people;
    for (const email of ['not-an-email', 'alice@', '@demo.local', 'a b@demo.local']) {
      await expectUnchanged(alice.user.id, async () => {
        expectRefusal(
          await update(alice, { name: 'Alice Johnson', email }),
          400,
          'invalid_input',
          'Please enter a valid email address',
        );
      });
    }
  });

  test("another user's email, in any case, is 409 email_taken", async () => {
    const { alice } = people;
    for (const email of ['bob@demo.local', '  BOB@Demo.Local ']) {
      await expectUnchanged(alice.user.id, async () => {
        expectRefusal(
          await update(alice, { name: 'Alice Johnson', email }),
          409,
          'email_taken',
          errorCatalogue.email_taken.message,
        );
      });
    }
  });

  test('saving unchanged details answers the user and writes nothing', async () => {
    const { alice } = people;
    await expectUnchanged(alice.user.id, async () => {
      const res = await update(alice, { name: 'Alice Johnson', email: 'alice@demo.local' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.message).toBe('Profile updated successfully!');
      expect(res.body.user).toMatchObject({ id: alice.user.id, name: 'Alice Johnson', email: 'alice@demo.local' });
    });
  });

  test('new details are trimmed, stored and sign in; the own email in another case is not a clash', async () => {
    const ed = await registerEmployee('Ed Edit');
    const res = await update(ed, { name: '  Edward Edit ', email: `  ${ed.email.toUpperCase()} ` });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.user).toMatchObject({ name: 'Edward Edit', email: ed.email });

    const moved = await update(ed, { name: 'Edward Edit', email: `moved.${ed.email}` });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(await userRow(ed.user.id)).toMatchObject({ name: 'Edward Edit', email: `moved.${ed.email}` });
    expect((await login(`moved.${ed.email}`, ed.password)).status).toBe(200);
    expect((await login(ed.email, ed.password)).status).toBe(401);
    // The token still works: details are not credentials.
    expect((await me(ed.token)).status).toBe(200);
  });

  test('two people taking one free email at once: one 200, one 409, and one account holds it', async () => {
    // Rounds of two, so that some pair overlaps where writers run side by side (PostgreSQL).
    for (let round = 0; round < 5; round++) {
      const [first, second] = await Promise.all([registerEmployee('Fay Race'), registerEmployee('Gus Race')]);
      const email = `taken.${round}.${randomBytes(4).toString('hex')}@example.com`;
      const results = await Promise.all(
        [first, second].map((person) => update(person, { name: person.user.name, email })),
      );

      expect(results.map((res) => res.status).sort()).toEqual([200, 409]);
      const refused = results.find((res) => res.status === 409);
      if (refused) expectRefusal(refused, 409, 'email_taken', errorCatalogue.email_taken.message);
      expect(await db().select({ id: users.id }).from(users).where(eq(users.email, email))).toHaveLength(1);
    }
  });
});

describe('PUT /api/auth/updatepassword', () => {
  const change = (session: Session | null, payload: Record<string, unknown>) =>
    call<SuccessResponse>(session, 'PUT', '/api/auth/updatepassword', payload);

  test('without a token it is 401', async () => {
    expectRefusal(
      await change(null, { currentPassword: 'demo1234', newPassword: 'another1' }),
      401,
      'unauthenticated',
      errorCatalogue.unauthenticated.message,
    );
  });

  test.each([
    ['no fields', {}],
    ['no current password', { newPassword: 'another1' }],
    ['no new password', { currentPassword: 'demo1234' }],
    ['empty strings', { currentPassword: '', newPassword: '' }],
    ['an empty new password', { currentPassword: 'demo1234', newPassword: '' }],
  ])('%s: "All password fields are required"', async (_what, payload) => {
    const { bob } = people;
    await expectUnchanged(bob.user.id, async () => {
      expectRefusal(await change(bob, payload), 400, 'invalid_input', 'All password fields are required');
    });
  });

  test('a new password of 5 characters is refused with the 6-character rule', async () => {
    const { bob } = people;
    await expectUnchanged(bob.user.id, async () => {
      expectRefusal(
        await change(bob, { currentPassword: 'demo1234', newPassword: '12345' }),
        400,
        'invalid_input',
        'New password must be at least 6 characters long',
      );
    });
  });

  test('a wrong current password is refused and the old password still signs in', async () => {
    const { bob } = people;
    await expectUnchanged(bob.user.id, async () => {
      expectRefusal(
        await change(bob, { currentPassword: 'wrong-one', newPassword: 'another1' }),
        400,
        'invalid_input',
        'Current password is incorrect',
      );
    });
    expect((await me(bob.token)).status).toBe(200);
    expect((await login('bob@demo.local', 'demo1234')).status).toBe(200);
  });

  test('an account without a password (Google sign-up) is told it has none to change', async () => {
    const gina = await registerEmployee('Gina Google');
    await db().update(users).set({ passwordHash: null }).where(eq(users.id, gina.user.id));
    expectRefusal(
      await change(gina, { currentPassword: 'secret99', newPassword: 'another1' }),
      400,
      'invalid_input',
      'This account signs in with Google and has no password to change.',
    );
  });

  test('success: the session that asked keeps its token and socket; every other session of the user ends', async () => {
    const pat = await registerEmployee('Pat Password');
    const other = await signIn(server.app, pat.email, pat.password);
    const otherSocket = await server.connect(other.token);
    const ownSocket = await server.connect(pat.token);
    const dropped = new Promise<string>((resolve) => otherSocket.once('disconnect', resolve));

    const res = await change(pat, { currentPassword: pat.password, newPassword: 'brand-new-1' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // The spec's answer: success and message, no new token (the spec's client never reads one).
    expect(res.body).toEqual({ success: true, message: 'Password updated successfully!' });

    // The other session ends at once: its token is refused and its socket dropped.
    expectRefusal(await me(other.token), 401, 'unauthenticated', errorCatalogue.unauthenticated.message);
    expect(await dropped).toBe('io server disconnect');
    await expect(connectSocket(server.url, other.token)).rejects.toMatchObject({ data: { code: 'unauthenticated' } });
    // This session carries on with the token it already has, and its socket stays connected.
    expect((await me(pat.token)).body.user.id).toBe(pat.user.id);
    expect(ownSocket.connected).toBe(true);
    expect(await db().select().from(sessions).where(eq(sessions.userId, pat.user.id))).toHaveLength(1);

    expectRefusal(await login(pat.email, pat.password), 401, 'invalid_credentials', 'Invalid email or password');
    expect((await login(pat.email, 'brand-new-1')).status).toBe(200);
    expect((await userRow(pat.user.id))?.passwordHash).toMatch(/^\$argon2id\$/);
  });
});

describe('POST /api/auth/upload-avatar and GET /api/auth/avatars/{filename}', () => {
  const avatarsDir = () => join(server.config.dataDir, 'avatars');
  const filesOnDisk = () => readdirSync(avatarsDir()).sort();

  /** A 1x1 PNG and a 1x1 GIF, byte for byte. */
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
    'base64',
  );
  const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
  /** `size` bytes that start like a PNG. */
  const bigPng = (size: number) => {
    const out = randomBytes(size);
    png.copy(out, 0, 0, 16);
    return out;
  };

  /** The multipart body a browser's FormData makes, sent through inject. */
  async function upload<T = AvatarResponse>(
    session: Session | null,
    parts: FilePart[],
    fields: Record<string, string> = {},
  ) {
    const encoded = new Response(multipartForm(parts, fields, 'avatar'));
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/auth/upload-avatar',
      headers: {
        'content-type': encoded.headers.get('content-type') ?? '',
        ...(session ? bearer(session.token) : {}),
      },
      payload: Buffer.from(await encoded.arrayBuffer()),
    });
    return { status: res.statusCode, body: res.json<T>() };
  }

  const fetchAvatar = (url: string) => server.app.inject({ method: 'GET', url });

  /** A refused upload: status, code and message, and nothing on disk or in the user's row changed. */
  async function expectUploadRefused(
    session: Session,
    send: () => Promise<{ status: number; body: unknown }>,
    status: number,
    code: ErrorBody['code'],
    message: string,
  ): Promise<void> {
    const files = filesOnDisk();
    await expectUnchanged(session.user.id, async () => {
      expectRefusal(await send(), status, code, message);
    });
    expect(filesOnDisk()).toEqual(files);
  }

  test('without a token it is 401 and nothing is stored', async () => {
    const files = filesOnDisk();
    expectRefusal(
      await upload(null, [{ name: 'me.png', type: 'image/png', content: png }]),
      401,
      'unauthenticated',
      errorCatalogue.unauthenticated.message,
    );
    expect(filesOnDisk()).toEqual(files);
  });

  test('no file, a file in another field, or a body that is not multipart: "Please select a valid image file"', async () => {
    const { carol } = people;
    await expectUploadRefused(
      carol,
      () => upload(carol, [], { note: 'no file here' }),
      400,
      'invalid_input',
      'Please select a valid image file',
    );
    await expectUploadRefused(
      carol,
      () => upload(carol, [{ field: 'photo', name: 'me.png', type: 'image/png', content: png }]),
      400,
      'invalid_input',
      'Please select a valid image file',
    );
    await expectUploadRefused(
      carol,
      () => call(carol, 'POST', '/api/auth/upload-avatar', { avatar: 'me.png' }),
      415,
      'unsupported_media_type',
      'Please select a valid image file',
    );
  });

  test.each([
    ['a text file declared as text/plain', 'notes.txt', 'text/plain', Buffer.from('just some text\n')],
    ['text named photo.png and declared image/png', 'photo.png', 'image/png', Buffer.from('<html>not an image</html>')],
    ['a PNG declared as image/jpeg', 'photo.jpg', 'image/jpeg', png],
    ['a GIF declared as image/png', 'photo.png', 'image/png', gif],
    ['an SVG (image/svg+xml can carry script)', 'logo.svg', 'image/svg+xml', Buffer.from('<svg xmlns="x"/>')],
    ['an empty image/png', 'empty.png', 'image/png', Buffer.alloc(0)],
  ])('%s is refused with 415 and leaves no file', async (_what, name, type, content) => {
    const { carol } = people;
    await expectUploadRefused(
      carol,
      () => upload(carol, [{ name, type, content }]),
      415,
      'unsupported_media_type',
      'Please select a valid image file',
    );
  });

  test('a file over 5 242 880 bytes is 413 "Image file must be less than 5MB" and leaves no file', async () => {
    const { carol } = people;
    await expectUploadRefused(
      carol,
      () => upload(carol, [{ name: 'huge.png', type: 'image/png', content: bigPng(limits.avatarMaxBytes + 1) }]),
      413,
      'payload_too_large',
      'Image file must be less than 5MB',
    );
  });

  test('a PNG of exactly 5 242 880 bytes is accepted', async () => {
    const sam = await registerEmployee('Sam Size');
    const content = bigPng(limits.avatarMaxBytes);
    const res = await upload(sam, [{ name: 'exact.png', type: 'image/png', content }]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const stored = res.body.user.avatar?.split('/').at(-1) ?? '';
    expect(readFileSync(join(avatarsDir(), stored)).equals(content)).toBe(true);
  });

  test('a chat message sent after a new name or a new photo carries them, though the last one carried the old', async () => {
    const nia = await registerEmployee('Nia Name');
    const send = async () => {
      const res = await call<{ message: ChatMessage }>(nia, 'POST', '/api/messages', { text: 'Hello team' });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.message;
    };
    expect((await send()).userName).toBe('Nia Name');

    const renamed = await call(nia, 'PUT', '/api/auth/updatedetails', { name: 'Nia Renamed', email: nia.user.email });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect((await send()).userName).toBe('Nia Renamed');

    const photo = await upload(nia, [{ name: 'face.png', type: 'image/png', content: bigPng(2048) }]);
    expect(photo.status, JSON.stringify(photo.body)).toBe(200);
    expect(photo.body.user.avatar).toBeTruthy();
    expect((await send()).userAvatar).toBe(photo.body.user.avatar);
  });

  test('a real PNG is stored and served publicly as image/png; replacing it with a GIF removes the old file', async () => {
    const ivy = await registerEmployee('Ivy Image');
    const before = filesOnDisk();

    const first = await upload(ivy, [{ name: 'Me at the beach.PNG', type: 'image/png', content: png }]);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ success: true, message: 'Profile photo updated successfully!' });
    const match = /^(\/api\/auth\/avatars\/([0-9a-f-]{36}\.png))\?t=\d+$/.exec(first.body.avatarUrl);
    expect(match, first.body.avatarUrl).not.toBeNull();
    const [, pngUrl = '', pngName = ''] = match ?? [];
    expect(first.body.user).toMatchObject({ id: ivy.user.id, avatar: pngUrl });
    expect((await userRow(ivy.user.id))?.avatar).toBe(pngUrl);
    expect((await me(ivy.token)).body.user.avatar).toBe(pngUrl);
    expect(filesOnDisk()).toEqual([...before, pngName].sort());
    expect(readFileSync(join(avatarsDir(), pngName)).equals(png)).toBe(true);

    // Served without a token, as an <img> asks for it, with the type the bytes are and no sniffing.
    const served = await fetchAvatar(pngUrl);
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(served.rawPayload.equals(png)).toBe(true);

    const second = await upload(ivy, [{ name: 'anim.gif', type: 'image/gif', content: gif }]);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    const gifUrl = second.body.user.avatar ?? '';
    expect(gifUrl).toMatch(/^\/api\/auth\/avatars\/[0-9a-f-]{36}\.gif$/);
    expect(second.body.avatarUrl).toMatch(new RegExp(`^${gifUrl.replace(/[.?]/g, '\\$&')}\\?t=\\d+$`));
    // The old photo is gone from the disk and from the web.
    expect(existsSync(join(avatarsDir(), pngName))).toBe(false);
    expect(filesOnDisk()).toEqual([...before, gifUrl.split('/').at(-1)].sort());
    const oldServed = await fetchAvatar(pngUrl);
    expect(oldServed.statusCode).toBe(404);
    expect(oldServed.json<ErrorBody>()).toMatchObject({ code: 'not_found' });
    expect(String(oldServed.headers['cache-control'] ?? '')).not.toContain('immutable');
    const gifServed = await fetchAvatar(gifUrl);
    expect(gifServed.statusCode).toBe(200);
    expect(gifServed.headers['content-type']).toBe('image/gif');
    expect(gifServed.rawPayload.equals(gif)).toBe(true);
  });

  test('names that are not stored avatars are 404', async () => {
    for (const name of ['00000000-0000-4000-8000-000000000000.png', '..%2F..%2Fapp.db', 'x.png', 'secret.txt']) {
      const res = await fetchAvatar(`/api/auth/avatars/${name}`);
      expect(res.statusCode, name).toBe(404);
    }
  });

  test("another user's socket hears avatar-updated and the user's sync change", async () => {
    const vic = await registerEmployee('Vic Visible');
    const observer = await server.connect(people.alice.token);
    const changes: Change[] = [];
    observer.on('sync.change', ({ change }) => changes.push(change));
    const announced = nextEvent(observer, 'avatar-updated');

    const res = await upload(vic, [{ name: 'vic.png', type: 'image/png', content: png }]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const avatar = res.body.user.avatar;

    expect(await announced).toEqual({ userId: vic.user.id, avatar });
    const deadline = Date.now() + 3000;
    while (!changes.some((c) => c.entity === 'user' && c.id === vic.user.id) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const put = changes.find((c) => c.entity === 'user' && c.id === vic.user.id);
    expect(put).toMatchObject({ entity: 'user', op: 'put', id: vic.user.id, data: { id: vic.user.id, avatar } });
  });
});
