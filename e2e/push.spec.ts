import { createECDH, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { BrowserContext, Locator, Page, Worker } from '@playwright/test';
import {
  demoUsers,
  expect,
  expectServiceWorkerInControl,
  goOffline,
  goOnline,
  marker,
  phoneViewport,
  registerPerson,
  saveScreen,
  setMarker,
  signIn,
  test,
  type ApiClient,
  type RegisteredPerson,
} from './fixtures';
import {
  createTask,
  sendDirectMessage,
  serverNotifications,
  startConversation,
  unique,
  type ServerTask,
} from './api-helpers';

// The device side of web push (issue 8): the service worker shows a system notification for each
// push and a click opens its place; the Profile "Notifications" switch asks the permission only when
// turned on, subscribes and unsubscribes; the installed app's icon carries the unread count.
//
// What this Chromium can and cannot do, and so what these tests do:
// - Pushes reach the service worker through the DevTools protocol (ServiceWorker.deliverPushMessage),
//   and shown notifications are read back with registration.getNotifications().
// - Nothing can click a system notification, so a test dispatches `notificationclick` in the worker.
//   Such an event carries no user activation: the worker's focus() is refused (the window is still
//   taken to the place) and clients.openWindow() is refused, so the no-window case records the call.
// - The browser's own push service is not available: in Playwright's contexts subscribe() is refused at
//   once ("Registration failed - permission denied"). One test asserts what the user sees then; another
//   stands in for the push service with a PushManager double whose endpoint is a server in this test, to
//   prove the app-server path end to end (the server stores it, pushes to it, forgets it).
// Each test registers its own employee, so counts and subscriptions are exact while other files run.

/** What a push carries (sync-protocol's pushPayloadSchema). */
interface PushPayload {
  title: string;
  body: string;
  url: string;
  tag: string;
  notificationId: string;
}

/** A shown system notification, as the service worker's registration lists it. */
interface ShownNotification {
  title: string;
  body: string;
  tag: string;
  data: unknown;
  icon: string;
  badge: string;
}

/** The parts of a service worker's global scope these tests touch (e2e is typed without WebWorker). */
interface WorkerScope {
  registration: { getNotifications(filter?: { tag?: string }): Promise<Notification[]> };
  clients: { openWindow(url: string): Promise<unknown> };
  NotificationEvent: new (type: string, init: { notification: Notification }) => Event;
  dispatchEvent(event: Event): boolean;
  openedWindows?: string[];
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const switchOf = (page: Page): Locator =>
  page.getByRole('region', { name: 'Notifications' }).getByRole('switch', { name: 'Push notifications' });
const section = (page: Page): Locator => page.getByRole('region', { name: 'Notifications' });

const texts = {
  blocked: 'Notifications are blocked in this browser. Allow them in the site settings to turn them on.',
  refused: 'This browser refused to set up push notifications, so they stay off. Private windows cannot receive them.',
  offline: 'Turning notifications on or off needs a connection. Please try again when you are online.',
  turnedOn: 'Notifications turned on for this device',
  turnedOff: 'Notifications turned off for this device',
};

/** Assigns a new task with a fresh title to `assignee` as the manager. */
const assignTask = (manager: ApiClient, assignee: RegisteredPerson): Promise<ServerTask> =>
  createTask(manager, { title: `Push check ${unique()}`, assignedTo: assignee.id });

/** The push the server sends for a task notification of `person` (api/src/push/push-service.ts). */
async function taskPushPayload(api: ApiClient, taskId: string): Promise<PushPayload> {
  const { notifications } = await serverNotifications(api);
  const notification = notifications.find((row) => row.relatedTask === taskId);
  if (!notification) throw new Error(`No notification about task ${taskId}`);
  return {
    title: notification.title,
    body: notification.message,
    url: `/tasks?task=${taskId}`,
    tag: `notification-${notification.id}`,
    notificationId: notification.id,
  };
}

/** Delivers a push message to the page's service worker through the DevTools protocol. */
async function deliverPush(page: Page, data: string): Promise<void> {
  // `ready` resolves while the first worker is still activating; a push sent to it then can be dropped.
  await page.evaluate(async () => {
    const worker = (await navigator.serviceWorker.ready).active;
    if (!worker || worker.state === 'activated') return;
    await new Promise<void>((done) =>
      worker.addEventListener('statechange', () => worker.state === 'activated' && done()),
    );
  });
  const origin = new URL(page.url()).origin;
  const cdp = await page.context().newCDPSession(page);
  const registrationId = new Promise<string>((resolve) => {
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const ours = registrations.find(
        (registration) => registration.scopeURL === `${origin}/` && !registration.isDeleted,
      );
      if (ours) resolve(ours.registrationId);
    });
  });
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId: await registrationId, data });
  await cdp.detach();
}

/** The system notifications the service worker is showing. */
const shownNotifications = (page: Page): Promise<ShownNotification[]> =>
  page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    const notifications = await registration.getNotifications();
    return notifications.map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      data: n.data as unknown,
      icon: n.icon,
      badge: n.badge,
    }));
  });

async function appWorker(context: BrowserContext): Promise<Worker> {
  const worker =
    context.serviceWorkers().find((candidate) => candidate.url().endsWith('/sw.js')) ??
    (await context.waitForEvent('serviceworker'));
  expect(worker.url()).toMatch(/\/sw\.js$/);
  return worker;
}

/** What a click on the system notification tagged `tag` does: a `notificationclick` in the worker. */
async function clickNotification(worker: Worker, tag: string): Promise<void> {
  await worker.evaluate(async (wanted) => {
    const scope = self as unknown as WorkerScope;
    const [notification] = await scope.registration.getNotifications({ tag: wanted });
    if (!notification) throw new Error(`No notification tagged ${wanted}`);
    scope.dispatchEvent(new scope.NotificationEvent('notificationclick', { notification }));
  }, tag);
}

/** Signs `person` in on a fresh page of `context` and waits for the service worker. */
async function signInWithWorker(context: BrowserContext, person: RegisteredPerson): Promise<Page> {
  const page = await context.newPage();
  await signIn(page, person.email, person.password);
  await expectServiceWorkerInControl(page);
  return page;
}

test.describe('system notifications from the service worker', () => {
  test.beforeEach(async ({ context, baseURL }) => {
    await context.grantPermissions(['notifications'], { origin: baseURL ?? '' });
  });

  test("a push shows one system notification with the server's title, text and place; other pushes are ignored", async ({
    context,
    apiAs,
  }) => {
    const person = await registerPerson('Pushed', { teamChatNotices: false });
    const manager = await apiAs(demoUsers.manager.email);
    const task = await assignTask(manager, person);
    const payload = await taskPushPayload(await apiAs(person.email), task.id);
    const page = await signInWithWorker(context, person);

    // Not the protocol's payload: dropped, nothing shown.
    await deliverPush(page, 'not json');
    await deliverPush(page, JSON.stringify({ title: 'Half a payload' }));
    await deliverPush(page, JSON.stringify(payload));

    await expect.poll(() => shownNotifications(page)).toHaveLength(1);
    const [shown] = await shownNotifications(page);
    const origin = new URL(page.url()).origin;
    expect(shown).toEqual({
      title: payload.title,
      body: payload.body,
      tag: payload.tag,
      data: { url: payload.url, notificationId: payload.notificationId },
      icon: `${origin}/icons/icon-192.png`,
      badge: `${origin}/icons/badge-96.png`,
    });
    expect(shown?.title).toBe('New Task Assigned');

    // The same tag replaces the notification instead of adding one (chat pushes collapse per sender).
    await deliverPush(page, JSON.stringify({ ...payload, body: 'Updated text' }));
    await expect.poll(async () => (await shownNotifications(page)).map((n) => n.body)).toEqual(['Updated text']);
  });

  test("a click on the notification takes the open window to the task's detail without reloading the app", async ({
    context,
    apiAs,
  }) => {
    const person = await registerPerson('Clicked', { teamChatNotices: false });
    const manager = await apiAs(demoUsers.manager.email);
    const task = await assignTask(manager, person);
    const personApi = await apiAs(person.email);
    const payload = await taskPushPayload(personApi, task.id);
    const page = await signInWithWorker(context, person);
    await setMarker(page);

    await deliverPush(page, JSON.stringify(payload));
    await expect.poll(() => shownNotifications(page)).toHaveLength(1);
    await clickNotification(await appWorker(context), payload.tag);

    await expect(page).toHaveURL((url) => url.pathname === '/tasks' && url.searchParams.get('task') === task.id);
    await expect(page.getByRole('dialog').getByText(task.title, { exact: true }).first()).toBeVisible();
    // The router moved, the app did not load again; the clicked notification is gone.
    expect(await marker(page)).toBe('no reload');
    await expect.poll(() => shownNotifications(page)).toEqual([]);
    // Clicking it read it, as a click in the bell does: the server agrees.
    await expect
      .poll(async () => {
        const { notifications } = await serverNotifications(personApi);
        return notifications.find((row) => row.id === payload.notificationId)?.read;
      })
      .toBe(true);
  });

  test('with no window of the app open, a click asks the browser to open one at the place', async ({ context }) => {
    const person = await registerPerson('Closed', { teamChatNotices: false });
    const page = await signInWithWorker(context, person);
    const payload: PushPayload = {
      title: 'New message from Maya Manager',
      body: 'See you at ten',
      url: '/chat',
      tag: `chat-${randomUUID().replaceAll('-', '')}`,
      notificationId: randomUUID(),
    };
    await deliverPush(page, JSON.stringify(payload));
    await expect.poll(() => shownNotifications(page)).toHaveLength(1);
    const worker = await appWorker(context);
    await page.close();

    // The browser refuses openWindow() to a click that is not the user's (see the top of this file), so
    // the call is recorded instead.
    await worker.evaluate(() => {
      const scope = self as unknown as WorkerScope;
      const opened: string[] = [];
      scope.openedWindows = opened;
      scope.clients.openWindow = (url: string) => {
        opened.push(url);
        return Promise.resolve(null);
      };
    });
    await clickNotification(worker, payload.tag);
    await expect.poll(() => worker.evaluate(() => (self as unknown as WorkerScope).openedWindows)).toEqual(['/chat']);
  });
});

test.describe('the Notifications switch of Profile Settings', () => {
  /** Counts the page's calls of Notification.requestPermission (installed before the app loads). */
  const countPermissionRequests = async (context: BrowserContext): Promise<void> => {
    await context.addInitScript(() => {
      const scope = window as Window & { permissionRequests?: number };
      scope.permissionRequests = 0;
      const original = Notification.requestPermission.bind(Notification);
      Notification.requestPermission = () => {
        scope.permissionRequests = (scope.permissionRequests ?? 0) + 1;
        return original();
      };
    });
  };
  const permissionRequests = (page: Page): Promise<number | undefined> =>
    page.evaluate(() => (window as Window & { permissionRequests?: number }).permissionRequests);

  test('the browser refuses the permission: the switch asks only when turned on, then says notifications are blocked', async ({
    context,
  }) => {
    await countPermissionRequests(context);
    const person = await registerPerson('Refuser', { teamChatNotices: false });
    const page = await signInWithWorker(context, person);
    await page.goto('/profile-settings');
    await expect(switchOf(page)).toHaveAttribute('aria-checked', 'false');
    await expect(switchOf(page)).toBeEnabled();
    await expect(section(page).getByText(texts.blocked)).toHaveCount(0);
    expect(await permissionRequests(page), 'opening the screen asks nothing').toBe(0);

    // Headless Chromium answers a permission request it cannot show with "denied".
    await switchOf(page).click();
    await expect(section(page).getByRole('status')).toHaveText(texts.blocked);
    expect(await permissionRequests(page)).toBe(1);
    await expect(switchOf(page)).toHaveAttribute('aria-checked', 'false');
    await expect(switchOf(page)).toBeDisabled();
    await expect(switchOf(page)).toHaveAccessibleDescription(new RegExp(escapeRegExp(texts.blocked)));
    await page.setViewportSize(phoneViewport);
    await saveScreen(page, 'push-switch-blocked-phone');

    // The browser remembers the refusal; the screen says so at once next time, without asking again.
    await page.reload();
    await expect(section(page).getByRole('status')).toHaveText(texts.blocked);
    await expect(switchOf(page)).toBeDisabled();
    expect(await permissionRequests(page)).toBe(0);
  });

  test("this browser's push service refuses: turning the switch on says so, stays off and stores nothing", async ({
    context,
    baseURL,
  }) => {
    await context.grantPermissions(['notifications'], { origin: baseURL ?? '' });
    await countPermissionRequests(context);
    const person = await registerPerson('Nopush', { teamChatNotices: false });
    const page = await signInWithWorker(context, person);
    const subscribeCalls: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/api/push/')) {
        subscribeCalls.push(`${request.method()} ${new URL(request.url()).pathname}`);
      }
    });
    await page.goto('/profile-settings');
    await expect(switchOf(page)).toHaveAttribute('aria-checked', 'false');

    await switchOf(page).click();
    await expect(section(page).getByRole('alert')).toHaveText(texts.refused);
    await expect(switchOf(page)).toHaveAttribute('aria-checked', 'false');
    await expect(switchOf(page)).toBeEnabled();
    // Already allowed: no prompt. The key was fetched; no subscription reached the server.
    expect(await permissionRequests(page)).toBe(0);
    expect(subscribeCalls).toEqual(['GET /api/push/public-key']);
    await page.setViewportSize(phoneViewport);
    await saveScreen(page, 'push-switch-refused-phone');
    expect(await page.evaluate(async () => (await navigator.serviceWorker.ready).pushManager.getSubscription())).toBe(
      null,
    );
  });

  test('offline, the switch waits for a connection and says so', async ({ context }) => {
    const person = await registerPerson('Offline', { teamChatNotices: false });
    const page = await signInWithWorker(context, person);
    await page.goto('/profile-settings');
    await expect(switchOf(page)).toBeEnabled();

    await goOffline(context);
    await expect(section(page).getByRole('status')).toHaveText(texts.offline);
    await expect(switchOf(page)).toBeDisabled();
    await saveScreen(page, 'push-switch-offline-desktop');

    await goOnline(context);
    await expect(section(page).getByRole('status')).toHaveCount(0);
    await expect(switchOf(page)).toBeEnabled();
  });

  test.describe('with a stand-in for the push service', () => {
    /** A push service in this test: it records each message the server sends it. */
    let pushService: Server;
    let received: { path: string; headers: IncomingHttpHeaders; bytes: number }[];
    let endpointBase: string;

    test.beforeEach(async () => {
      received = [];
      pushService = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          received.push({
            path: request.url ?? '',
            headers: request.headers,
            bytes: Buffer.concat(chunks).length,
          });
          response.writeHead(201).end();
        });
      });
      await new Promise<void>((resolve) => pushService.listen(0, '127.0.0.1', resolve));
      const address = pushService.address();
      if (address === null || typeof address === 'string') throw new Error('The push service has no port');
      endpointBase = `http://127.0.0.1:${address.port}`;
    });

    test.afterEach(async () => {
      await new Promise<void>((resolve) => pushService.close(() => resolve()));
    });

    test('turning the switch on subscribes and the server pushes to it; off and Logout unsubscribe', async ({
      context,
      baseURL,
      apiAs,
    }) => {
      // Other tests post to the team chat meanwhile: this person takes no team chat notices, so the one push
      // counted below is the task's.
      const person = await registerPerson('Subscriber', { teamChatNotices: false });
      const keys = {
        p256dh: (() => {
          const ecdh = createECDH('prime256v1');
          ecdh.generateKeys();
          return ecdh.getPublicKey().toString('base64url');
        })(),
        auth: randomBytes(16).toString('base64url'),
      };
      const endpoint = `${endpointBase}/push/${randomUUID()}`;
      await context.grantPermissions(['notifications'], { origin: baseURL ?? '' });
      // The double replaces only the browser's push service; the app's code and the server run for real.
      // Its subscription lives in localStorage, so it outlives a page like a real one.
      await context.addInitScript(
        ({ endpoint: url, keys: subscriptionKeys }) => {
          const storageKey = 'e2e-push-subscription';
          const make = (serverKey: number[]) => ({
            endpoint: url,
            expirationTime: null,
            options: { userVisibleOnly: true, applicationServerKey: Uint8Array.from(serverKey).buffer },
            getKey: () => null,
            toJSON: () => ({ endpoint: url, expirationTime: null, keys: subscriptionKeys }),
            unsubscribe: () => {
              localStorage.removeItem(storageKey);
              return Promise.resolve(true);
            },
          });
          PushManager.prototype.subscribe = function (options?: PushSubscriptionOptionsInit) {
            const key = options?.applicationServerKey;
            const bytes = Array.from(key instanceof ArrayBuffer ? new Uint8Array(key) : (key as Uint8Array));
            if (options?.userVisibleOnly !== true)
              return Promise.reject(new DOMException('userVisibleOnly', 'NotAllowedError'));
            localStorage.setItem(storageKey, JSON.stringify(bytes));
            return Promise.resolve(make(bytes) as unknown as PushSubscription);
          };
          PushManager.prototype.getSubscription = function () {
            const stored = localStorage.getItem(storageKey);
            return Promise.resolve(
              stored ? (make(JSON.parse(stored) as number[]) as unknown as PushSubscription) : null,
            );
          };
        },
        { endpoint, keys },
      );
      const storedServerKey = (page: Page): Promise<string | null> =>
        page.evaluate(() => localStorage.getItem('e2e-push-subscription'));

      const page = await signInWithWorker(context, person);
      await page.goto('/profile-settings');
      await expect(switchOf(page)).toHaveAttribute('aria-checked', 'false');

      const posted = page.waitForResponse(
        (response) => response.url().endsWith('/api/push/subscribe') && response.request().method() === 'POST',
      );
      await switchOf(page).click();
      const postAnswer = await posted;
      expect(postAnswer.status()).toBe(201);
      expect(postAnswer.request().postDataJSON()).toEqual({ endpoint, expirationTime: null, keys });
      await expect(page.getByRole('status').filter({ hasText: texts.turnedOn })).toBeVisible();
      await expect(switchOf(page)).toHaveAttribute('aria-checked', 'true');

      // The browser was handed the server's VAPID key as bytes.
      const { publicKey } = (await (await page.request.get('/api/push/public-key')).json()) as { publicKey: string };
      const keyBytes = JSON.parse((await storedServerKey(page)) ?? '[]') as number[];
      expect(Buffer.from(keyBytes).toString('base64url')).toBe(publicKey);

      await saveScreen(page, 'push-switch-on-desktop');
      await page.setViewportSize(phoneViewport);
      await saveScreen(page, 'push-switch-on-phone');
      await page.setViewportSize({ width: 1280, height: 800 });

      // With the app closed (the tab left it; the tab's session stays), a new notification for the person
      // goes to the stored subscription.
      await page.goto('about:blank');
      const manager = await apiAs(demoUsers.manager.email);
      await expect
        .poll(async () => {
          const answer = await manager.get<{ users: { id: string; status?: string }[] }>('/api/auth/all-users');
          return answer.body.users.find((user) => user.id === person.id)?.status;
        })
        .not.toBe('online');
      await assignTask(manager, person);
      await expect.poll(() => received.length).toBe(1);
      const [message] = received;
      expect(message?.path).toBe(new URL(endpoint).pathname);
      expect(message?.headers['content-encoding']).toBe('aes128gcm');
      expect(message?.headers.authorization).toContain(`k=${publicKey}`);
      expect(message?.bytes).toBeGreaterThan(0);

      // Back in the app, the switch shows the subscription; turning it off makes the server forget it.
      await page.goto('/profile-settings');
      await expect(switchOf(page)).toHaveAttribute('aria-checked', 'true');
      const deleted = page.waitForResponse(
        (response) => response.url().endsWith('/api/push/subscribe') && response.request().method() === 'DELETE',
      );
      await switchOf(page).click();
      expect(await (await deleted).json()).toEqual({ success: true, removed: 1 });
      await expect(page.getByRole('status').filter({ hasText: texts.turnedOff })).toBeVisible();
      await expect(switchOf(page)).toHaveAttribute('aria-checked', 'false');
      expect(await storedServerKey(page)).toBeNull();

      // On again, then Logout: the server forgets this browser while the session is still valid.
      await switchOf(page).click();
      await expect(switchOf(page)).toHaveAttribute('aria-checked', 'true');
      const deletedAtLogout = page.waitForResponse(
        (response) => response.url().endsWith('/api/push/subscribe') && response.request().method() === 'DELETE',
      );
      await page.getByRole('button', { name: 'Logout' }).click();
      expect(await (await deletedAtLogout).json()).toEqual({ success: true, removed: 1 });
      await page.waitForURL('**/login');
      expect(await storedServerKey(page)).toBeNull();
    });
  });
});

test('the app icon badge follows the unread count, live, and clears at zero', async ({ context, apiAs }) => {
  // Records what the app asks of the Badging API (this Chromium has it), then lets the call through.
  await context.addInitScript(() => {
    const scope = window as Window & { badgeCalls?: string[] };
    const badging = navigator as Navigator & {
      setAppBadge?: (contents?: number) => Promise<void>;
      clearAppBadge?: () => Promise<void>;
    };
    scope.badgeCalls = [];
    const set = badging.setAppBadge?.bind(navigator);
    const clear = badging.clearAppBadge?.bind(navigator);
    if (set) {
      badging.setAppBadge = (contents?: number) => {
        scope.badgeCalls?.push(`set ${contents}`);
        return set(contents).catch(() => undefined);
      };
    }
    if (clear) {
      badging.clearAppBadge = () => {
        scope.badgeCalls?.push('clear');
        return clear().catch(() => undefined);
      };
    }
  });
  const person = await registerPerson('Badged', { teamChatNotices: false });
  const page = await context.newPage();
  await signIn(page, person.email, person.password);
  expect(await page.evaluate(() => 'setAppBadge' in navigator), 'this Chromium has the Badging API').toBe(true);
  const lastBadgeCall = () =>
    page.evaluate(() => (window as Window & { badgeCalls?: string[] }).badgeCalls?.at(-1) ?? null);
  await expect.poll(lastBadgeCall).toBe('clear');

  const manager = await apiAs(demoUsers.manager.email);
  await assignTask(manager, person);
  await expect.poll(lastBadgeCall).toBe('set 1');
  await sendDirectMessage(manager, await startConversation(manager, person), 'Team lunch at noon');
  await expect.poll(lastBadgeCall).toBe('set 2');

  // Read elsewhere (another device of the person): the badge follows once this device syncs.
  const me = await apiAs(person.email);
  expect((await me.patch('/api/notifications/read-all')).status).toBe(200);
  await expect.poll(lastBadgeCall).toBe('clear');
});
