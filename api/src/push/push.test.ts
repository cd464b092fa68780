import { createDecipheriv, createECDH, createHmac, createPublicKey, randomBytes, verify, type ECDH } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import webpush from 'web-push';
import { errorCatalogue, pushPayloadSchema, taskSchema, uuidv7, type PushPayload } from '@office/sync-protocol';
import {
  changeLog,
  chatMessages,
  notificationPreferences,
  notifications,
  pushChatStates,
  pushDeliveries,
  pushSubscriptions,
  users,
} from '../db/schema';
import { laterPosition, readablePosition } from '../db/change-feed';
import { changeLogFloor, compactChangeLog } from '../domain/sync/pull';
import { inDays, positionOfChange, sleep, startTestServer, uniqueText, waitUntil } from '../../test/support';
import { expectRefusal, useSeededServer, type Session } from '../../test/api-client';
import { loadVapidKeys } from './vapid';

// One seeded server for the file and one push endpoint run by the test itself (on loopback, which
// PUSH_ALLOW_LOOPBACK allows here only); every test subscribes its own endpoint paths, and the subscriptions are
// cleared after each test. Sockets must be gone between tests: a user whose app is open and visible gets no push.
// Team chat pushes are coalesced over 800 ms here (30 s in the product) and retries start at 50 ms.
const CHAT_WINDOW_MS = 800;
const { server, people, db, call } = useSeededServer({
  awaitOffline: true,
  config: { pushAllowLoopback: true },
  push: { chatWindowMs: CHAT_WINDOW_MS, retryBaseMs: 50 },
});

// ---------------------------------------------------------------------------------------------------------------
// The push service: a plain HTTP server that records each request and answers 201, or what a test queued.

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const received: Received[] = [];
const queuedAnswers = new Map<string, number[]>();
let endpointServer: Server;
let origin: string;

/** An endpoint URL on the test's push service, unique to the caller. */
const endpointFor = (what: string) => `${origin}/push/${what}-${uuidv7()}`;
const pathOf = (endpoint: string) => new URL(endpoint).pathname;
const requestsTo = (endpoint: string) => received.filter((r) => r.path === pathOf(endpoint));

/** The next answers the endpoint gives, in order; 201 once they are used up. */
const answerWith = (endpoint: string, ...statuses: number[]) => queuedAnswers.set(pathOf(endpoint), statuses);

/** Waits for the endpoint to have received `n` requests; returns them. */
async function waitForRequests(endpoint: string, n = 1): Promise<Received[]> {
  await waitUntil(() => requestsTo(endpoint).length >= n, 5000).catch(() => {
    throw new Error(`${requestsTo(endpoint).length} of ${n} push requests reached ${pathOf(endpoint)}`);
  });
  return requestsTo(endpoint);
}

/** Waits until the server's push queue has nothing in flight and nothing due now. */
const deliveriesSettled = () => server.app.push.settled();

beforeAll(async () => {
  endpointServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      received.push({ method: req.method ?? '', path, headers: req.headers, body: Buffer.concat(chunks) });
      res.statusCode = queuedAnswers.get(path)?.shift() ?? 201;
      res.end();
    });
  });
  await new Promise<void>((resolve) => endpointServer.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(endpointServer.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await deliveriesSettled();
  await db().delete(pushSubscriptions);
  await db().delete(pushChatStates);
});

afterAll(async () => {
  await new Promise((resolve) => endpointServer.close(resolve));
});

// ---------------------------------------------------------------------------------------------------------------
// A browser's side of a subscription: its own P-256 key pair and auth secret, and RFC 8291 decryption.

interface Subscriber {
  endpoint: string;
  ecdh: ECDH;
  publicKey: Buffer;
  authSecret: Buffer;
  subscription: { endpoint: string; expirationTime: null; keys: { p256dh: string; auth: string } };
}

function newSubscriber(endpoint: string): Subscriber {
  const ecdh = createECDH('prime256v1');
  const publicKey = ecdh.generateKeys(); // uncompressed: 0x04 || x || y
  const authSecret = randomBytes(16);
  return {
    endpoint,
    ecdh,
    publicKey,
    authSecret,
    subscription: {
      endpoint,
      expirationTime: null,
      keys: { p256dh: publicKey.toString('base64url'), auth: authSecret.toString('base64url') },
    },
  };
}

const hkdfExtract = (salt: Buffer, ikm: Buffer) => createHmac('sha256', salt).update(ikm).digest();
/** HKDF-Expand for at most one block (32 bytes), all RFC 8291 needs. */
const hkdfExpand = (prk: Buffer, info: Buffer, length: number) =>
  createHmac('sha256', prk)
    .update(Buffer.concat([info, Buffer.from([1])]))
    .digest()
    .subarray(0, length);

/** Decrypts an aes128gcm push message body (RFC 8188 framing, RFC 8291 keys) as the subscriber's browser would. */
function decrypt(body: Buffer, subscriber: Subscriber): { payload: unknown; rs: number; senderKey: Buffer } {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body.readUInt8(20);
  const senderKey = body.subarray(21, 21 + idlen); // the application server's ephemeral public key
  const record = body.subarray(21 + idlen);
  expect(idlen).toBe(65);
  expect(senderKey[0]).toBe(0x04);
  expect(record.length).toBeLessThanOrEqual(rs); // one record

  const ecdhSecret = subscriber.ecdh.computeSecret(senderKey);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), subscriber.publicKey, senderKey]);
  const ikm = hkdfExpand(hkdfExtract(subscriber.authSecret, ecdhSecret), keyInfo, 32);
  const prk = hkdfExtract(salt, ikm);
  const cek = hkdfExpand(prk, Buffer.from('Content-Encoding: aes128gcm\0'), 16);
  const nonce = hkdfExpand(prk, Buffer.from('Content-Encoding: nonce\0'), 12);

  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end -= 1;
  expect(padded[end], 'the last record ends with the 0x02 delimiter').toBe(2);
  return { payload: JSON.parse(padded.subarray(0, end).toString('utf8')), rs, senderKey };
}

/** The decrypted payload of a push request, checked against the wire schema. */
const payloadOf = (request: Received, subscriber: Subscriber): PushPayload =>
  pushPayloadSchema.parse(decrypt(request.body, subscriber).payload);

/** Checks `Authorization: vapid t=<JWT>, k=<key>` (RFC 8292): the key, the ES256 signature and the claims. */
function expectVapid(request: Received, serverKey: string): { aud: string; exp: number; sub: string } {
  const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(request.headers.authorization ?? '');
  expect(match, request.headers.authorization).not.toBeNull();
  const [, jwt = '', key = ''] = match ?? [];
  expect(key).toBe(serverKey);

  const [header = '', claims = '', signature = ''] = jwt.split('.');
  expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toMatchObject({ alg: 'ES256', typ: 'JWT' });
  const point = Buffer.from(key, 'base64url');
  expect(point).toHaveLength(65);
  const publicKey = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33).toString('base64url'),
    },
    format: 'jwk',
  });
  const signed = Buffer.from(`${header}.${claims}`);
  expect(
    verify('sha256', signed, { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url')),
    'the JWT is signed with the VAPID private key',
  ).toBe(true);
  return JSON.parse(Buffer.from(claims, 'base64url').toString()) as { aud: string; exp: number; sub: string };
}

// ---------------------------------------------------------------------------------------------------------------

const subscriptionRows = () => db().select().from(pushSubscriptions);
const subscriptionRow = async (endpoint: string) =>
  (await db().select().from(pushSubscriptions).where(eq(pushSubscriptions.endpoint, endpoint)))[0];

async function subscribe(session: Session, subscriber: Subscriber): Promise<void> {
  const res = await call(session, 'POST', '/api/push/subscribe', subscriber.subscription);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body).toEqual({ success: true });
}

async function publicKey(): Promise<string> {
  const res = await call<{ publicKey: string }>(null, 'GET', '/api/push/public-key');
  expect(res.status).toBe(200);
  return res.body.publicKey;
}

/** The manager assigns a new task to the employee; the task and its title. */
async function assignTask(to: Session): Promise<{ id: string; title: string }> {
  const title = uniqueText('Push task');
  const res = await call(people.manager, 'POST', '/api/tasks', { title, assignedTo: to.user.id, dueDate: inDays(3) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: taskSchema.parse((res.body as { task: unknown }).task).id, title };
}

/** The id of the notification a task made for a user. */
const notificationAbout = async (taskId: string, userId: string) =>
  (
    await db()
      .select({ id: notifications.id })
      .from(notifications)
      .where(and(eq(notifications.relatedTaskId, taskId), eq(notifications.recipientId, userId)))
  )[0]?.id;

describe('GET /api/push/public-key', () => {
  test('is the VAPID public key, an uncompressed P-256 point, readable without signing in', async () => {
    const key = await publicKey();
    expect(key).toBe(server.app.push.keys.publicKey);
    const point = Buffer.from(key, 'base64url');
    expect(point).toHaveLength(65);
    expect(point[0]).toBe(0x04);
    expect(key).toMatch(/^[\w-]+$/);
  });

  test('stays the same across restarts on one DATA_DIR, kept in vapid.json; the environment’s keys win', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'office-push-'));
    const otherDir = mkdtempSync(join(tmpdir(), 'office-push-'));
    try {
      const keyOf = async (dir: string) => {
        const started = await startTestServer({ dataDir: dir, seed: false });
        try {
          const res = await started.app.inject({ method: 'GET', url: '/api/push/public-key' });
          expect(res.statusCode).toBe(200);
          return res.json<{ publicKey: string }>().publicKey;
        } finally {
          await started.close();
        }
      };
      const first = await keyOf(dataDir);
      const file = join(dataDir, 'vapid.json');
      expect(existsSync(file)).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ publicKey: first });
      expect(await keyOf(dataDir)).toBe(first);
      expect(await keyOf(otherDir)).not.toBe(first);

      const env = webpush.generateVAPIDKeys();
      expect(
        loadVapidKeys(dataDir, {
          VAPID_PUBLIC_KEY: env.publicKey,
          VAPID_PRIVATE_KEY: env.privateKey,
          VAPID_SUBJECT: 'mailto:ops@example.com',
        }),
      ).toEqual({ ...env, subject: 'mailto:ops@example.com' });
      expect(loadVapidKeys(dataDir, {}).publicKey).toBe(first);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(otherDir, { recursive: true, force: true });
    }
  });
});

describe('POST and DELETE /api/push/subscribe', () => {
  test('a malformed subscription is refused with 400, a call without a token with 401; nothing is stored', async () => {
    const { alice } = people;
    const good = newSubscriber(endpointFor('valid')).subscription;
    const bodies: Record<string, unknown>[] = [
      { ...good, endpoint: 'not a url' },
      { ...good, endpoint: 'ftp://127.0.0.1/push' },
      { ...good, endpoint: 'javascript:alert(1)' },
      { ...good, endpoint: `${origin}/${'x'.repeat(2048)}` },
      { endpoint: good.endpoint },
      { ...good, keys: { p256dh: good.keys.p256dh } },
      { ...good, keys: { p256dh: '', auth: good.keys.auth } },
      { ...good, keys: { p256dh: good.keys.p256dh, auth: '' } },
      {},
    ];
    for (const body of bodies) {
      const res = await call(alice, 'POST', '/api/push/subscribe', body);
      expect(res.status, JSON.stringify(body).slice(0, 120)).toBe(400);
      expect(res.body).toMatchObject({ code: 'invalid_input' });
    }
    expectRefusal(
      await call(null, 'POST', '/api/push/subscribe', good),
      401,
      'unauthenticated',
      errorCatalogue.unauthenticated.message,
    );
    expect(await subscriptionRows()).toEqual([]);
  });

  test('keys web push cannot encrypt to (not a P-256 point, a short auth secret) are refused with 400', async () => {
    const { alice } = people;
    const good = newSubscriber(endpointFor('keys')).subscription;
    const offCurve = Buffer.from(good.keys.p256dh, 'base64url');
    offCurve[40] = (offCurve[40] ?? 0) ^ 1;
    const p256dhs = [
      'abc',
      Buffer.alloc(65).toString('base64url'),
      offCurve.toString('base64url'),
      createECDH('prime256v1').generateKeys('base64url', 'compressed'),
      `${good.keys.p256dh.slice(0, 40)}!${good.keys.p256dh.slice(41)}`,
    ];
    for (const p256dh of p256dhs) {
      const res = await call(alice, 'POST', '/api/push/subscribe', { ...good, keys: { ...good.keys, p256dh } });
      expect(res.status, p256dh).toBe(400);
      expect(res.body).toMatchObject({ code: 'invalid_input' });
    }
    const shortAuth = randomBytes(8).toString('base64url');
    const res = await call(alice, 'POST', '/api/push/subscribe', { ...good, keys: { ...good.keys, auth: shortAuth } });
    expect(res.status).toBe(400);
    expect(await subscriptionRows()).toEqual([]);

    // A browser's keys, padded or not, are fine.
    await subscribe(alice, newSubscriber(endpointFor('browser')));
    const padded = newSubscriber(endpointFor('padded'));
    const pad = (s: string) => s.padEnd(Math.ceil(s.length / 4) * 4, '=');
    const paddedKeys = { p256dh: pad(padded.subscription.keys.p256dh), auth: pad(padded.subscription.keys.auth) };
    const ok = await call(alice, 'POST', '/api/push/subscribe', { ...padded.subscription, keys: paddedKeys });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(await subscriptionRows()).toHaveLength(2);
  });

  test('the same endpoint twice is one subscription with the newest keys; subscribed by another user it moves to them', async () => {
    const { alice, bob } = people;
    const endpoint = endpointFor('again');
    await subscribe(alice, newSubscriber(endpoint));
    const renewed = newSubscriber(endpoint);
    await subscribe(alice, renewed);
    expect(await subscriptionRows()).toEqual([
      expect.objectContaining({
        endpoint,
        userId: alice.user.id,
        p256dh: renewed.subscription.keys.p256dh,
        auth: renewed.subscription.keys.auth,
      }),
    ]);

    // The browser now belongs to Bob's session: its pushes are his.
    await subscribe(bob, renewed);
    expect(await subscriptionRows()).toEqual([expect.objectContaining({ endpoint, userId: bob.user.id })]);
  });

  test("DELETE removes the caller's subscription and never another user's", async () => {
    const { alice, bob } = people;
    const alices = newSubscriber(endpointFor('alice'));
    const bobs = newSubscriber(endpointFor('bob'));
    await subscribe(alice, alices);
    await subscribe(bob, bobs);

    const unsubscribe = (session: Session | null, endpoint: unknown) =>
      call(session, 'DELETE', '/api/push/subscribe', { endpoint });
    const refused = await unsubscribe(bob, alices.endpoint);
    expect(refused.status).toBe(200);
    expect(refused.body).toEqual({ success: true, removed: 0 });
    expect(await subscriptionRow(alices.endpoint)).toMatchObject({ userId: alice.user.id });

    expectRefusal(
      await unsubscribe(null, alices.endpoint),
      401,
      'unauthenticated',
      errorCatalogue.unauthenticated.message,
    );
    expect((await unsubscribe(alice, '')).status).toBe(400);
    expect((await unsubscribe(alice, 42)).status).toBe(400);

    const removed = await unsubscribe(alice, alices.endpoint);
    expect(removed.body).toEqual({ success: true, removed: 1 });
    expect(await subscriptionRow(alices.endpoint)).toBeUndefined();
    expect(await subscriptionRow(bobs.endpoint)).toMatchObject({ userId: bob.user.id });
    expect((await unsubscribe(alice, alices.endpoint)).body).toEqual({ success: true, removed: 0 });
  });
});

describe('web push delivery', () => {
  test('a task assignment reaches the assignee’s push endpoint, VAPID-signed and aes128gcm-encrypted', async () => {
    const { alice, bob, manager } = people;
    const alices = newSubscriber(endpointFor('alice'));
    const bobs = newSubscriber(endpointFor('bob'));
    await subscribe(alice, alices);
    await subscribe(bob, bobs);
    const serverKey = await publicKey();

    const task = await assignTask(alice);
    const [request] = await waitForRequests(alices.endpoint);
    if (!request) throw new Error('no push request');

    expect(request.method).toBe('POST');
    const claims = expectVapid(request, serverKey);
    expect(claims.aud).toBe(origin);
    const now = Date.now() / 1000;
    expect(claims.exp).toBeGreaterThan(now);
    expect(claims.exp).toBeLessThanOrEqual(now + 24 * 60 * 60);
    expect(claims.sub).toMatch(/^mailto:\S+@\S+$/);
    expect(request.headers).toMatchObject({
      'content-encoding': 'aes128gcm',
      'content-type': 'application/octet-stream',
      ttl: String(24 * 60 * 60),
      urgency: 'normal',
    });
    expect(request.headers.topic).toBeUndefined();
    expect(Number(request.headers['content-length'])).toBe(request.body.length);

    const { payload, rs, senderKey } = decrypt(request.body, alices);
    expect(rs).toBe(4096);
    expect(senderKey.toString('base64url')).not.toBe(serverKey);
    const notificationId = await notificationAbout(task.id, alice.user.id);
    expect(notificationId).toBeDefined();
    expect(pushPayloadSchema.parse(payload)).toEqual({
      title: 'New Task Assigned',
      body: `${manager.user.name} assigned you "${task.title}"`,
      url: `/tasks?task=${task.id}`,
      tag: `notification-${notificationId}`,
      notificationId,
    });

    // Only the assignee's browsers hear of it, once.
    await deliveriesSettled();
    expect(requestsTo(alices.endpoint)).toHaveLength(1);
    expect(requestsTo(bobs.endpoint)).toEqual([]);
  });

  test('every subscription of the recipient gets its own encryption of the message', async () => {
    const { alice } = people;
    const phone = newSubscriber(endpointFor('phone'));
    const laptop = newSubscriber(endpointFor('laptop'));
    await subscribe(alice, phone);
    await subscribe(alice, laptop);

    const task = await assignTask(alice);
    const [onPhone] = await waitForRequests(phone.endpoint);
    const [onLaptop] = await waitForRequests(laptop.endpoint);
    if (!onPhone || !onLaptop) throw new Error('no push request');
    expect(payloadOf(onPhone, phone)).toEqual(payloadOf(onLaptop, laptop));
    expect(payloadOf(onPhone, phone).url).toBe(`/tasks?task=${task.id}`);
    // Encrypted for one browser, the message cannot be read with another's keys.
    expect(() => decrypt(onPhone.body, laptop)).toThrow();
  });

  test('a subscription the push service answers 410 or 404 is removed and gets nothing more', async () => {
    const { alice } = people;
    const gone = newSubscriber(endpointFor('gone'));
    const missing = newSubscriber(endpointFor('missing'));
    const kept = newSubscriber(endpointFor('kept'));
    for (const subscriber of [gone, missing, kept]) await subscribe(alice, subscriber);
    answerWith(gone.endpoint, 410);
    answerWith(missing.endpoint, 404);

    await assignTask(alice);
    await waitForRequests(gone.endpoint);
    await waitForRequests(missing.endpoint);
    await deliveriesSettled();
    expect(await subscriptionRow(gone.endpoint)).toBeUndefined();
    expect(await subscriptionRow(missing.endpoint)).toBeUndefined();
    expect(await subscriptionRow(kept.endpoint)).toMatchObject({ userId: alice.user.id });

    await assignTask(alice);
    await waitForRequests(kept.endpoint, 2);
    await deliveriesSettled();
    expect(requestsTo(gone.endpoint)).toHaveLength(1);
    expect(requestsTo(missing.endpoint)).toHaveLength(1);
  });

  test('a failing push service (500, connection refused) never fails the action; the push is tried again with backoff', async () => {
    const { alice } = people;
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const refusedEndpoint = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/push/refused`;
    await new Promise((resolve) => closed.close(resolve));
    const refused = newSubscriber(refusedEndpoint);
    const failing = newSubscriber(endpointFor('failing'));
    const working = newSubscriber(endpointFor('working'));
    for (const subscriber of [refused, failing, working]) await subscribe(alice, subscriber);
    answerWith(failing.endpoint, 500, 503);

    const task = await assignTask(alice); // 201, whatever the push services do
    const [delivered] = await waitForRequests(working.endpoint);
    if (!delivered) throw new Error('no push request');
    expect(payloadOf(delivered, working).url).toBe(`/tasks?task=${task.id}`);
    // 500, 503, then 201: the same push, encrypted anew each time, until the service takes it.
    const tries = await waitForRequests(failing.endpoint, 3);
    expect(tries.map((request) => payloadOf(request, failing))).toEqual(
      Array.from({ length: 3 }, () => payloadOf(delivered, working)),
    );
    expect((await subscriptionRows()).map((row) => row.endpoint)).toEqual(
      expect.arrayContaining([refused.endpoint, failing.endpoint, working.endpoint]),
    );
    // The unreachable one waits for its next try, with its attempts counted.
    const waiting = await db().select().from(pushDeliveries).where(eq(pushDeliveries.endpoint, refused.endpoint));
    expect(waiting).toEqual([expect.objectContaining({ attempts: expect.any(Number) as unknown })]);
    expect(waiting[0]?.attempts).toBeGreaterThanOrEqual(1);
    await db().delete(pushDeliveries);
  });

  test('no push while the recipient has the app open and visible; one once they are away', async () => {
    const { alice } = people;
    const subscriber = newSubscriber(endpointFor('visible'));
    await subscribe(alice, subscriber);
    const statusOf = async (id: string) =>
      (await db().select({ status: users.status }).from(users).where(eq(users.id, id)))[0];

    const socket = await server.connect(alice.token);
    await waitUntil(async () => (await statusOf(alice.user.id))?.status === 'online');
    await assignTask(alice);
    await deliveriesSettled();
    expect(requestsTo(subscriber.endpoint)).toEqual([]);

    socket.emit('update-presence', { status: 'away' });
    await waitUntil(async () => (await statusOf(alice.user.id))?.status === 'away');
    const task = await assignTask(alice);
    const [request] = await waitForRequests(subscriber.endpoint);
    if (!request) throw new Error('no push request');
    expect(payloadOf(request, subscriber).url).toBe(`/tasks?task=${task.id}`);
  });

  test('a direct message is pushed at once, one by one, and leads to its conversation', async () => {
    const { alice, bob } = people;
    const subscriber = newSubscriber(endpointFor('direct'));
    await subscribe(alice, subscriber);
    const started = await call<{ conversation: { id: string } }>(bob, 'POST', '/api/direct-messages/conversations', {
      recipientId: alice.user.id,
    });
    const conversationId = started.body.conversation.id;
    for (const text of ['Are you there?', 'Ping']) {
      const sent = await call(bob, 'POST', `/api/direct-messages/conversations/${conversationId}/messages`, { text });
      expect(sent.status).toBe(201);
    }
    const requests = await waitForRequests(subscriber.endpoint, 2);
    // Sent side by side, they may arrive in either order: in the order of their notices (UUIDv7 ids) they are these.
    const payloads = requests
      .map((request) => payloadOf(request, subscriber))
      .sort((a, b) => (a.notificationId ?? '').localeCompare(b.notificationId ?? ''));
    expect(payloads).toEqual([
      expect.objectContaining({
        title: `New Direct Message from ${bob.user.name}`,
        body: 'Are you there?',
        url: `/direct-messages?conversation=${conversationId}`,
      }),
      expect.objectContaining({ body: 'Ping', url: `/direct-messages?conversation=${conversationId}` }),
    ]);
    expect(requests.map((request) => request.headers.topic)).toEqual([undefined, undefined]);
  });
});

describe('team chat push: coalesced per person, skipped for whoever is in the app', () => {
  const post = async (by: Session, text: string) => {
    const res = await call<{ message: { id: string } }>(by, 'POST', '/api/messages', { text });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.message.id;
  };

  test('the first message is pushed at once; those within the window come as one "N new messages in Team Chat"', async () => {
    const { alice, bob, carol } = people;
    const away = newSubscriber(endpointFor('chat-away'));
    const inApp = newSubscriber(endpointFor('chat-in-app'));
    const author = newSubscriber(endpointFor('chat-author'));
    await subscribe(alice, away);
    await subscribe(carol, inApp);
    await subscribe(bob, author);
    const carolSocket = await server.connect(carol.token);
    await waitUntil(
      async () => (await db().select().from(users).where(eq(users.id, carol.user.id)))[0]?.status === 'online',
    );

    const first = await post(bob, uniqueText('Lunch plans'));
    const [now] = await waitForRequests(away.endpoint);
    if (!now) throw new Error('no push request');
    expect(payloadOf(now, away)).toEqual({
      title: `New message from ${bob.user.name}`,
      body: await messageText(first),
      url: '/chat',
      tag: 'team-chat',
      notificationId: first,
    });
    expect(now.headers.topic).toBe('team-chat');

    const sentAt = Date.now();
    await post(bob, uniqueText('Pizza or sushi?'));
    await post(bob, uniqueText('Sushi it is'));
    const newest = await post(bob, uniqueText('Booked for 12:30'));
    // Held: nothing more until the window ends.
    await sleep(CHAT_WINDOW_MS / 4);
    expect(requestsTo(away.endpoint)).toHaveLength(1);
    const [, summary] = await waitForRequests(away.endpoint, 2);
    if (!summary) throw new Error('no summary push');
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(CHAT_WINDOW_MS / 2);
    expect(payloadOf(summary, away)).toEqual({
      title: 'Team Chat',
      body: '3 new messages in Team Chat',
      url: '/chat',
      tag: 'team-chat',
      notificationId: newest,
    });

    // The author and the person in the app got nothing; nobody's list was written per member.
    await deliveriesSettled();
    expect(requestsTo(inApp.endpoint)).toEqual([]);
    expect(requestsTo(author.endpoint)).toEqual([]);
    expect(await db().select().from(notifications).where(eq(notifications.type, 'chat_message'))).toEqual([]);
    carolSocket.close();
  });

  test('an edit, a reaction or a delete of a message pushes nothing more; a new message after them still does', async () => {
    const { alice, bob } = people;
    const subscriber = newSubscriber(endpointFor('chat-changes'));
    await subscribe(alice, subscriber);
    const first = await post(bob, uniqueText('Standup moved'));
    await waitForRequests(subscriber.endpoint, 1);
    const held = async () =>
      (await db().select().from(pushChatStates).where(eq(pushChatStates.userId, alice.user.id)))[0];
    const changes: [string, string, Record<string, unknown>?][] = [
      ['PUT', `/api/messages/${first}`, { text: uniqueText('Standup moved to 10') }],
      ['PUT', `/api/messages/${first}/reactions/${encodeURIComponent('👍')}`, { on: true }],
      ['DELETE', `/api/messages/${first}`],
    ];
    for (const [method, path, body] of changes) {
      expect((await call(bob, method as 'PUT' | 'DELETE', path, body)).status, `${method} ${path}`).toBe(200);
      await deliveriesSettled();
      // Had it counted as a new message, it would be held for Alice's window now.
      expect(await held(), `${method} ${path}`).toMatchObject({ heldCount: 0, heldMessageId: null });
    }
    expect(requestsTo(subscriber.endpoint)).toHaveLength(1);

    const second = await post(bob, uniqueText('Standup is back at 9'));
    await deliveriesSettled();
    // Within the window it is held; on a machine slow enough that the window has ended, it is pushed at once.
    const state = await held();
    if (state?.heldCount === 0) expect(requestsTo(subscriber.endpoint)).toHaveLength(2);
    else expect(state).toMatchObject({ heldCount: 1, heldMessageId: second });
  });

  test('a direct message is not held by the team chat window', async () => {
    const { alice, bob } = people;
    const subscriber = newSubscriber(endpointFor('chat-and-direct'));
    await subscribe(alice, subscriber);
    await post(bob, uniqueText('Team news'));
    await waitForRequests(subscriber.endpoint, 1);
    await post(bob, uniqueText('More team news'));
    const started = await call<{ conversation: { id: string } }>(bob, 'POST', '/api/direct-messages/conversations', {
      recipientId: alice.user.id,
    });
    await call(bob, 'POST', `/api/direct-messages/conversations/${started.body.conversation.id}/messages`, {
      text: 'Just for you',
    });
    // Was the team chat window still open when the direct message was written? On a loaded machine it may not be.
    const heldBeforeDirect = requestsTo(subscriber.endpoint).length > 1;
    const [, ...later] = (await waitForRequests(subscriber.endpoint, 3)).map((request) =>
      payloadOf(request, subscriber),
    );
    const direct: unknown = expect.objectContaining({ body: 'Just for you' });
    // One held message is pushed as itself when the window ends.
    const held: unknown = expect.objectContaining({ title: `New message from ${bob.user.name}`, tag: 'team-chat' });
    // While the window holds the team message, the direct one goes at once: ahead of it.
    expect(later).toEqual(heldBeforeDirect ? [held, direct] : [direct, held]);
  });

  test('a mention is its own push at once, leading to the message, and no team chat push besides', async () => {
    const { alice, bob } = people;
    const subscriber = newSubscriber(endpointFor('chat-mention'));
    await subscribe(alice, subscriber);
    await post(bob, uniqueText('Team news'));
    await waitForRequests(subscriber.endpoint, 1);
    const text = uniqueText('Before the release, a few words of context: @Alice Johnson can you check the logs');
    const mentioning = await post(bob, text);
    const [, mention] = await waitForRequests(subscriber.endpoint, 2);
    if (!mention) throw new Error('missing pushes');
    const stored = await db().select().from(notifications).where(eq(notifications.type, 'mention'));
    const notice = stored.find((row) => row.data.messageId === mentioning);
    expect(payloadOf(mention, subscriber)).toEqual({
      title: `${bob.user.name} mentioned you in Team Chat`,
      body: notice?.message,
      url: `/chat?message=${mentioning}`,
      tag: `notification-${notice?.id}`,
      notificationId: notice?.id,
    });
    // The preview is the text around the mention.
    expect(notice?.message).toMatch(/^\.\.\..*@Alice Johnson can you check/);
    // Within the window, the mentioning message was not held for a team chat push: nothing more comes.
    await deliveriesSettled();
    expect((await db().select().from(pushChatStates).where(eq(pushChatStates.userId, alice.user.id)))[0]).toMatchObject(
      { heldCount: 0, heldMessageId: null },
    );
    await sleep(CHAT_WINDOW_MS * 1.5);
    await deliveriesSettled();
    expect(requestsTo(subscriber.endpoint)).toHaveLength(2);
  });
});

describe('notification preferences in push', () => {
  const setPreferences = async (session: Session, preferences: Record<string, unknown>) => {
    const res = await call(session, 'PUT', '/api/notifications/preferences', preferences);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  /** "HH:MM" in UTC, `minutes` from now. */
  const utcClock = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString().slice(11, 16);

  afterEach(async () => {
    await db().delete(notificationPreferences);
  });

  test('team chat set to mentions only: no team chat push, the mention still comes at once', async () => {
    const { alice, bob } = people;
    const subscriber = newSubscriber(endpointFor('prefs-mentions'));
    await subscribe(alice, subscriber);
    await setPreferences(alice, { teamChat: 'mentions' });

    await call(bob, 'POST', '/api/messages', { text: uniqueText('Team news nobody is told of') });
    const text = uniqueText('@Alice Johnson a word');
    await call(bob, 'POST', '/api/messages', { text });
    const [mention] = await waitForRequests(subscriber.endpoint, 1);
    if (!mention) throw new Error('no push request');
    await sleep(CHAT_WINDOW_MS * 1.5);
    await deliveriesSettled();

    expect(requestsTo(subscriber.endpoint)).toHaveLength(1);
    expect(payloadOf(mention, subscriber).title).toBe(`${bob.user.name} mentioned you in Team Chat`);
  });

  test('quiet hours hold back every push, the bell keeps the notice; after them pushes come again', async () => {
    const { alice } = people;
    const subscriber = newSubscriber(endpointFor('prefs-quiet'));
    await subscribe(alice, subscriber);
    await setPreferences(alice, { timeZone: 'UTC', quietHours: { from: utcClock(-60), to: utcClock(60) } });

    const quiet = await assignTask(alice);
    await deliveriesSettled();
    expect(requestsTo(subscriber.endpoint)).toEqual([]);
    const stored = await db().select().from(notifications).where(eq(notifications.relatedTaskId, quiet.id));
    expect(stored.map((row) => row.recipientId)).toContain(alice.user.id);

    await setPreferences(alice, { quietHours: { from: utcClock(60), to: utcClock(120) } });
    const heard = await assignTask(alice);
    const [request] = await waitForRequests(subscriber.endpoint);
    if (!request) throw new Error('no push request');
    expect(payloadOf(request, subscriber).url).toBe(`/tasks?task=${heard.id}`);
  });
});

describe('the push queue is stored', () => {
  test('what waits when the server stops (a flagged notice, held team chat) is sent after the restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'office-push-restart-'));
    const options = {
      dataDir,
      config: { pushAllowLoopback: true },
      push: { chatWindowMs: CHAT_WINDOW_MS, retryBaseMs: 50 },
    } as const;
    try {
      const first = await startTestServer(options);
      const sessionOf = async (app: typeof first.app, email: string): Promise<Session> => {
        const res = await app.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email, password: 'demo1234' },
        });
        return res.json<Session>();
      };
      const [alice, bob, manager] = await Promise.all(
        ['alice@demo.local', 'bob@demo.local', 'manager@demo.local'].map((email) => sessionOf(first.app, email)),
      );
      if (!alice || !bob || !manager) throw new Error('no sessions');
      const subscriber = newSubscriber(endpointFor('restart'));
      const inject = (app: typeof first.app, session: Session, url: string, payload: Record<string, unknown>) =>
        app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${session.token}` }, payload });
      expect((await inject(first.app, alice, '/api/push/subscribe', subscriber.subscription)).statusCode).toBe(201);

      // A first chat message is pushed; the second is held for the window, then the server stops.
      expect((await inject(first.app, bob, '/api/messages', { text: 'Before the restart' })).statusCode).toBe(201);
      await waitForRequests(subscriber.endpoint, 1);
      const held = await inject(first.app, bob, '/api/messages', { text: 'Held over the restart' });
      await waitUntil(async () => ((await first.app.db.select().from(pushChatStates))[0]?.heldCount ?? 0) === 1);
      // The queue stops first, so the task's notice stays flagged when the server goes.
      await first.app.push.stop();
      const task = await inject(first.app, manager, '/api/tasks', {
        title: 'Assigned while stopping',
        assignedTo: alice.user.id,
        dueDate: inDays(2),
      });
      expect(task.statusCode).toBe(201);
      await first.close();
      expect(requestsTo(subscriber.endpoint)).toHaveLength(1);

      const second = await startTestServer({ ...options, seed: false });
      try {
        const requests = await waitForRequests(subscriber.endpoint, 3);
        const payloads = requests.slice(1).map((request) => payloadOf(request, subscriber));
        expect(payloads).toEqual(
          expect.arrayContaining([
            expect.objectContaining({
              title: 'New Task Assigned',
              body: expect.stringContaining('Assigned while stopping') as unknown,
            }),
            expect.objectContaining({
              title: `New message from ${bob.user.name}`,
              body: 'Held over the restart',
              notificationId: held.json<{ message: { id: string } }>().message.id,
            }),
          ]),
        );
        await second.app.push.settled();
        expect(await second.app.db.select().from(pushDeliveries)).toEqual([]);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('team chat push and change-log compaction', () => {
  test('compaction keeps a message the stopped queue has not pushed; it is pushed after the restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'office-push-compacted-'));
    const options = { dataDir, config: { pushAllowLoopback: true }, push: { chatWindowMs: CHAT_WINDOW_MS } } as const;
    try {
      const first = await startTestServer(options);
      const login = async (email: string): Promise<Session> =>
        (
          await first.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: 'demo1234' } })
        ).json<Session>();
      const [alice, bob] = [await login('alice@demo.local'), await login('bob@demo.local')];
      const subscriber = newSubscriber(endpointFor('compacted'));
      const post = (session: Session, url: string, payload: Record<string, unknown>) =>
        first.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${session.token}` }, payload });
      expect((await post(alice, '/api/push/subscribe', subscriber.subscription)).statusCode).toBe(201);
      await first.app.push.settled();
      await first.app.push.stop();
      const waiting = await post(bob, '/api/messages', { text: 'Sent while the queue was stopped' });
      expect(waiting.statusCode).toBe(201);
      const message = waiting.json<{ message: { id: string; version: number } }>().message;
      await compactChangeLog(first.app.db, await readablePosition(first.app.db));
      // Everything before the message's own change went; the change stays for the queue to find.
      expect((await first.app.db.select().from(changeLog)).map((row) => [row.entityId, row.op])).toEqual([
        [message.id, 'create'],
      ]);
      await first.close();

      const second = await startTestServer({ ...options, seed: false });
      try {
        const [request] = await waitForRequests(subscriber.endpoint, 1);
        if (!request) throw new Error('no push request');
        expect(payloadOf(request, subscriber)).toMatchObject({
          title: `New message from ${bob.user.name}`,
          body: 'Sent while the queue was stopped',
          notificationId: message.id,
        });
        await second.app.push.settled();
        // Pushed, it no longer holds compaction back: the log goes whole, and the floor is its last change (the
        // newest sequence number on SQLite; on PostgreSQL a place below the horizon, which is no change's).
        const logged = await second.app.db.select({ seq: changeLog.seq }).from(changeLog);
        const newest = (await Promise.all(logged.map((row) => positionOfChange(second.app.db, row.seq)))).reduce(
          laterPosition,
        );
        await compactChangeLog(second.app.db, await readablePosition(second.app.db));
        expect(await second.app.db.select().from(changeLog)).toEqual([]);
        expect(await changeLogFloor(second.app.db)).toEqual(newest);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('only public push services (server-side request forgery)', () => {
  // A server as the product runs it: PUSH_ALLOW_LOOPBACK off.
  let strict: Awaited<ReturnType<typeof startTestServer>>;
  let alice: Session;
  beforeAll(async () => {
    strict = await startTestServer();
    const res = await strict.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'alice@demo.local', password: 'demo1234' },
    });
    alice = res.json<Session>();
  });
  afterAll(async () => {
    await strict.close();
  });

  test('loopback, private, link-local, unique-local, metadata and plain-http endpoints are refused at subscribe time', async () => {
    const endpoints = [
      'http://127.0.0.1:4299/push/x',
      'https://127.0.0.1/push/x',
      'https://127.8.9.10/push/x',
      'https://localhost/push/x',
      'https://app.localhost/push/x',
      'https://2130706433/push/x',
      'https://0x7f.0.0.1/push/x',
      'https://0.0.0.0/push/x',
      'https://169.254.169.254/latest/meta-data',
      'https://100.100.100.200/push/x',
      'https://10.1.2.3/push/x',
      'https://172.16.5.4/push/x',
      'https://192.168.1.10/push/x',
      'https://224.0.0.1/push/x',
      'https://[::1]/push/x',
      'https://[::]/push/x',
      'https://[::ffff:127.0.0.1]/push/x',
      'https://[::ffff:a9fe:a9fe]/push/x',
      'https://[::ffff:10.0.0.1]/push/x',
      'https://[64:ff9b::7f00:1]/push/x',
      'https://[2002:a00:1::]/push/x',
      'https://[fe80::1]/push/x',
      'https://[fd00:ec2::254]/push/x',
      'https://[fc00::1]/push/x',
      'https://[ff02::1]/push/x',
      'http://push.example.com/push/x',
      'https://user:secret@push.example.com/push/x',
    ];
    for (const endpoint of endpoints) {
      const res = await strict.app.inject({
        method: 'POST',
        url: '/api/push/subscribe',
        headers: { authorization: `Bearer ${alice.token}` },
        payload: newSubscriber(endpoint).subscription,
      });
      expect(res.statusCode, endpoint).toBe(400);
      expect(res.json(), endpoint).toMatchObject({ code: 'invalid_input' });
    }
    expect(await strict.app.db.select().from(pushSubscriptions)).toEqual([]);
  });

  test('an endpoint stored before (or behind) the check is checked again at send time and never contacted', async () => {
    const sneaky = newSubscriber(endpointFor('sneaky'));
    await strict.app.db.insert(pushSubscriptions).values({
      endpoint: sneaky.endpoint,
      userId: alice.user.id,
      p256dh: sneaky.subscription.keys.p256dh,
      auth: sneaky.subscription.keys.auth,
    });
    const manager = (
      await strict.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: 'manager@demo.local', password: 'demo1234' },
      })
    ).json<Session>();
    const res = await strict.app.inject({
      method: 'POST',
      url: '/api/tasks',
      headers: { authorization: `Bearer ${manager.token}` },
      payload: { title: uniqueText('Never pushed'), assignedTo: alice.user.id, dueDate: inDays(2) },
    });
    expect(res.statusCode).toBe(201);
    await waitUntil(
      async () =>
        (await strict.app.db.select().from(notifications).where(eq(notifications.pushPending, true))).length === 0,
    );
    await strict.app.push.settled();
    expect(requestsTo(sneaky.endpoint)).toEqual([]);
    expect(await strict.app.db.select().from(pushDeliveries)).toEqual([]);
  });
});

describe('redirects', () => {
  test('a push service answering a redirect is not followed: the push is dropped, the target never hears of it', async () => {
    const { alice } = people;
    const target = createServer((req, res) => {
      targetHits.push(req.url ?? '');
      res.statusCode = 201;
      res.end();
    });
    const targetHits: string[] = [];
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const redirector = createServer((req, res) => {
      redirected.push(req.url ?? '');
      res.statusCode = 303;
      res.setHeader('location', `http://127.0.0.1:${(target.address() as AddressInfo).port}/stolen`);
      res.end();
    });
    const redirected: string[] = [];
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    try {
      const subscriber = newSubscriber(`http://127.0.0.1:${(redirector.address() as AddressInfo).port}/push/redirect`);
      await subscribe(alice, subscriber);
      await assignTask(alice);
      await waitUntil(() => redirected.length === 1);
      await deliveriesSettled();
      expect(targetHits).toEqual([]);
      expect(await db().select().from(pushDeliveries)).toEqual([]);
      // A redirect is not a reason to drop the subscription.
      expect(await subscriptionRow(subscriber.endpoint)).toBeDefined();
    } finally {
      await new Promise((resolve) => redirector.close(resolve));
      await new Promise((resolve) => target.close(resolve));
    }
  });
});

/** What a chat message's push says: its text (the tests' texts are short). */
async function messageText(id: string): Promise<string> {
  const [row] = await db().select().from(chatMessages).where(eq(chatMessages.id, id));
  if (!row) throw new Error(`no message ${id}`);
  return row.text;
}
