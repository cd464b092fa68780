import { createDecipheriv, createECDH, createHmac, createPublicKey, randomBytes, verify, type ECDH } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { and, eq } from 'drizzle-orm';
import webpush from 'web-push';
import { errorCatalogue, pushPayloadSchema, taskSchema, uuidv7, type PushPayload } from '@office/sync-protocol';
import { notifications, pushSubscriptions, users } from '../db/schema';
import { inDays, startTestServer, uniqueText, waitUntil } from '../test-support';
import { expectRefusal, useSeededServer, type Session } from '../test-api-client';
import { loadVapidKeys } from './push-service';

// One seeded server for the file and one push endpoint run by the test itself; every test subscribes its own
// endpoint paths, and the subscriptions are cleared after each test. Sockets must be gone between tests: a user
// whose app is open and visible gets no push.
const { server, people, db, call } = useSeededServer({ awaitOffline: true });

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

// Every delivery the server starts, so a test can wait until they have all ended (sent, refused or failed).
const deliveries: Promise<void>[] = [];
async function deliveriesSettled(): Promise<void> {
  while (deliveries.length) await Promise.all(deliveries.splice(0));
}

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

  const push = server.app.push;
  const deliver = push.deliver.bind(push);
  vi.spyOn(push, 'deliver').mockImplementation((ids) => {
    const delivery = deliver(ids);
    deliveries.push(delivery);
    return delivery;
  });
});

afterEach(async () => {
  await deliveriesSettled();
  db().delete(pushSubscriptions).run();
});

afterAll(async () => {
  vi.restoreAllMocks();
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

const subscriptionRows = () => db().select().from(pushSubscriptions).all();
const subscriptionRow = (endpoint: string) =>
  db().select().from(pushSubscriptions).where(eq(pushSubscriptions.endpoint, endpoint)).get();

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
const notificationAbout = (taskId: string, userId: string) =>
  db()
    .select({ id: notifications.id })
    .from(notifications)
    .where(and(eq(notifications.relatedTaskId, taskId), eq(notifications.recipientId, userId)))
    .get()?.id;

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
    expect(subscriptionRows()).toEqual([]);
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
    expect(subscriptionRows()).toEqual([]);

    // A browser's keys, padded or not, are fine.
    await subscribe(alice, newSubscriber(endpointFor('browser')));
    const padded = newSubscriber(endpointFor('padded'));
    const pad = (s: string) => s.padEnd(Math.ceil(s.length / 4) * 4, '=');
    const paddedKeys = { p256dh: pad(padded.subscription.keys.p256dh), auth: pad(padded.subscription.keys.auth) };
    const ok = await call(alice, 'POST', '/api/push/subscribe', { ...padded.subscription, keys: paddedKeys });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(subscriptionRows()).toHaveLength(2);
  });

  test('the same endpoint twice is one subscription with the newest keys; subscribed by another user it moves to them', async () => {
    const { alice, bob } = people;
    const endpoint = endpointFor('again');
    await subscribe(alice, newSubscriber(endpoint));
    const renewed = newSubscriber(endpoint);
    await subscribe(alice, renewed);
    expect(subscriptionRows()).toEqual([
      expect.objectContaining({
        endpoint,
        userId: alice.user.id,
        p256dh: renewed.subscription.keys.p256dh,
        auth: renewed.subscription.keys.auth,
      }),
    ]);

    // The browser now belongs to Bob's session: its pushes are his.
    await subscribe(bob, renewed);
    expect(subscriptionRows()).toEqual([expect.objectContaining({ endpoint, userId: bob.user.id })]);
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
    expect(subscriptionRow(alices.endpoint)).toMatchObject({ userId: alice.user.id });

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
    expect(subscriptionRow(alices.endpoint)).toBeUndefined();
    expect(subscriptionRow(bobs.endpoint)).toMatchObject({ userId: bob.user.id });
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
    const notificationId = notificationAbout(task.id, alice.user.id);
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
    expect(subscriptionRow(gone.endpoint)).toBeUndefined();
    expect(subscriptionRow(missing.endpoint)).toBeUndefined();
    expect(subscriptionRow(kept.endpoint)).toMatchObject({ userId: alice.user.id });

    await assignTask(alice);
    await waitForRequests(kept.endpoint, 2);
    await deliveriesSettled();
    expect(requestsTo(gone.endpoint)).toHaveLength(1);
    expect(requestsTo(missing.endpoint)).toHaveLength(1);
  });

  test('a failing push service (500, connection refused) never fails the action, keeps the subscription and spares the others', async () => {
    const { alice } = people;
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const refusedEndpoint = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/push/refused`;
    await new Promise((resolve) => closed.close(resolve));
    const refused = newSubscriber(refusedEndpoint);
    const failing = newSubscriber(endpointFor('failing'));
    const working = newSubscriber(endpointFor('working'));
    for (const subscriber of [refused, failing, working]) await subscribe(alice, subscriber);
    answerWith(failing.endpoint, 500);

    const task = await assignTask(alice); // 201, whatever the push services do
    const [delivered] = await waitForRequests(working.endpoint);
    if (!delivered) throw new Error('no push request');
    expect(payloadOf(delivered, working).url).toBe(`/tasks?task=${task.id}`);
    await waitForRequests(failing.endpoint);
    await deliveriesSettled();
    expect(subscriptionRows().map((row) => row.endpoint)).toEqual(
      expect.arrayContaining([refused.endpoint, failing.endpoint, working.endpoint]),
    );
  });

  test('no push while the recipient has the app open and visible; one once they are away', async () => {
    const { alice } = people;
    const subscriber = newSubscriber(endpointFor('visible'));
    await subscribe(alice, subscriber);
    const statusOf = (id: string) => db().select({ status: users.status }).from(users).where(eq(users.id, id)).get();

    const socket = await server.connect(alice.token);
    await waitUntil(() => statusOf(alice.user.id)?.status === 'online');
    await assignTask(alice);
    await deliveriesSettled();
    expect(requestsTo(subscriber.endpoint)).toEqual([]);

    socket.emit('update-presence', { status: 'away' });
    await waitUntil(() => statusOf(alice.user.id)?.status === 'away');
    const task = await assignTask(alice);
    const [request] = await waitForRequests(subscriber.endpoint);
    if (!request) throw new Error('no push request');
    expect(payloadOf(request, subscriber).url).toBe(`/tasks?task=${task.id}`);
  });

  test('chat message pushes from one sender share a tag and carry a Topic, so they collapse', async () => {
    const { alice, bob, carol } = people;
    const subscriber = newSubscriber(endpointFor('chat'));
    await subscribe(alice, subscriber);
    const texts = [uniqueText('First chat'), uniqueText('Second chat')];
    for (const text of texts) {
      const res = await call(bob, 'POST', '/api/messages', { text });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const fromCarol = await call(carol, 'POST', '/api/messages', { text: uniqueText('From Carol') });
    expect(fromCarol.status).toBe(201);

    const requests = await waitForRequests(subscriber.endpoint, 3);
    const pushes = requests.map((request) => ({
      topic: request.headers.topic,
      payload: payloadOf(request, subscriber),
    }));
    const bobsTag = `chat-${bob.user.id.replaceAll('-', '')}`;
    const bobs = pushes.filter((p) => p.payload.tag === bobsTag);
    expect(bobs.map((p) => p.payload.body).sort()).toEqual([...texts].sort());
    for (const { topic, payload } of bobs) {
      expect(payload).toMatchObject({ title: `New message from ${bob.user.name}`, url: '/chat' });
      expect(topic).toBe(bobsTag.slice(0, 32));
      expect(topic).toMatch(/^[\w-]{1,32}$/);
    }
    expect(new Set(bobs.map((p) => p.payload.notificationId)).size).toBe(2);

    // Another sender collapses under another tag and topic.
    const carols = pushes.find((p) => p.payload.tag !== bobsTag);
    expect(carols?.payload.tag).toBe(`chat-${carol.user.id.replaceAll('-', '')}`);
    expect(carols?.topic).toMatch(/^[\w-]{1,32}$/);
    expect(carols?.topic).not.toBe(bobs[0]?.topic);
  });

  test('a direct-message notification leads to its conversation, a custom one to the dashboard', async () => {
    const { alice, bob } = people;
    const subscriber = newSubscriber(endpointFor('urls'));
    await subscribe(alice, subscriber);
    const conversationId = uuidv7();
    const direct = await call(bob, 'POST', '/api/notifications', {
      recipient: alice.user.id,
      type: 'direct_message',
      title: `New Direct Message from ${bob.user.name}`,
      message: 'Hello...',
      data: { conversationId },
    });
    expect(direct.status).toBe(201);
    const [first] = await waitForRequests(subscriber.endpoint);
    if (!first) throw new Error('no push request');
    expect(payloadOf(first, subscriber)).toMatchObject({
      title: `New Direct Message from ${bob.user.name}`,
      body: 'Hello...',
      url: `/direct-messages?conversation=${conversationId}`,
    });

    await call(bob, 'POST', '/api/notifications', { recipient: alice.user.id, title: 'Custom', message: 'Hi' });
    const [, second] = await waitForRequests(subscriber.endpoint, 2);
    if (!second) throw new Error('no push request');
    expect(payloadOf(second, subscriber)).toMatchObject({ title: 'Custom', body: 'Hi', url: '/dashboard' });
  });
});
