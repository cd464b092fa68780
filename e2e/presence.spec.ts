import {
  demoUsers,
  expect,
  goOffline,
  goOnline,
  openDevice,
  phoneViewport,
  registerPerson,
  saveScreen,
  signIn,
  test,
  type ApiClient,
} from './fixtures';
import type { Locator, Page } from '@playwright/test';
import { startConversation } from './api-helpers';

/** The number a dashboard stat card shows, read from its accessible name ("Online Now: 3"). */
async function cardValue(page: Page, label: string): Promise<number> {
  const name = await page.getByRole('link', { name: new RegExp(`^${label}: \\d+$`) }).getAttribute('aria-label');
  return Number(name?.split(': ')[1]);
}

/**
 * Who the server counts online right now (GET /api/messages/active-users): online or away, as every
 * screen counts them (away is the app open and connected, but hidden or idle).
 */
async function onlineOnServer(api: ApiClient): Promise<Set<string>> {
  const answer = await api.get<{ data: { id: string; status: string }[] }>('/api/messages/active-users');
  return new Set(answer.body.data.filter((user) => user.status !== 'offline').map((user) => user.id));
}

/**
 * The employees the server counts online: "Online Now" on the dashboard and on Employee Management counts them (the
 * people Employee Management lists), never the manager looking.
 */
async function onlineEmployeesOnServer(api: ApiClient): Promise<Set<string>> {
  const online = await onlineOnServer(api);
  const people = await api.get<{ users: { id: string; role: string }[] }>('/api/auth/all-users');
  return new Set(people.body.users.filter((user) => user.role === 'employee' && online.has(user.id)).map((u) => u.id));
}

/** The Chat header's "N online". */
async function chatOnline(page: Page): Promise<number> {
  const text = await page.getByText(/^\d+ online$/).textContent();
  return Number(text?.split(' ')[0]);
}

test("the manager's Team Members and Online Now cards follow people live, without a reload", async ({
  page,
  browser,
  apiAs,
}) => {
  const manager = await apiAs(demoUsers.manager.email);
  await signIn(page, demoUsers.manager.email);
  const cards: Locator = page.getByRole('region', { name: 'Task overview' });
  await expect(cards.getByRole('link', { name: /^Online Now: \d+$/ })).toBeVisible();

  // A newcomer joins the directory: Team Members counts them without a reload.
  const newcomer = await registerPerson('Newcomer');
  await expect(async () => {
    const directory = await manager.get<{ users: { id: string }[] }>('/api/auth/all-users');
    expect(directory.body.users.some((user) => user.id === newcomer.id)).toBe(true);
    expect(await cardValue(page, 'Team Members')).toBe(directory.body.users.length);
  }).toPass({ timeout: 10_000 });

  // They sign in elsewhere: Online Now agrees with the server and counts them.
  const elsewhere = await browser.newContext();
  const theirPage = await elsewhere.newPage();
  await signIn(theirPage, newcomer.email, newcomer.password);
  await expect(async () => {
    const online = await onlineEmployeesOnServer(manager);
    expect(online.has(newcomer.id)).toBe(true);
    expect(await cardValue(page, 'Online Now')).toBe(online.size);
  }).toPass({ timeout: 10_000 });

  // They leave: the count drops again, still without a reload.
  await elsewhere.close();
  await expect(async () => {
    const online = await onlineEmployeesOnServer(manager);
    expect(online.has(newcomer.id)).toBe(false);
    expect(await cardValue(page, 'Online Now')).toBe(online.size);
  }).toPass({ timeout: 10_000 });
});

test('Online Now reads the same on the dashboard and Employees, its filter lists them, Chat counts its members; offline, the device shows its own person offline', async ({
  page,
  browser,
  apiAs,
}) => {
  const manager = await apiAs(demoUsers.manager.email);
  const colleague = await registerPerson('Present Pat');
  const elsewhere = await browser.newContext();
  const colleaguePage = await elsewhere.newPage();
  await signIn(colleaguePage, colleague.email, colleague.password);
  await signIn(page, demoUsers.manager.email);

  // Other spec files bring people in and out meanwhile: each screen agrees with the server at some moment. The
  // manager looking is online and no employee: Online Now does not count them.
  await expect(async () => {
    expect(await cardValue(page, 'Online Now')).toBe((await onlineEmployeesOnServer(manager)).size);
  }).toPass({ timeout: 10_000 });

  await page.getByRole('link', { name: /^Online Now: \d+$/ }).click();
  await expect(page).toHaveURL(/\/employees\?presence=online$/);
  await expect(page.getByRole('combobox', { name: 'Filter by status' })).toHaveValue('online');
  await expect(async () => {
    const online = await onlineOnServer(manager);
    const people = await manager.get<{ users: { id: string; name: string; role: string }[] }>('/api/auth/all-users');
    const onlineEmployees = people.body.users.filter((user) => user.role === 'employee' && online.has(user.id));
    const listed = await page
      .getByRole('list', { name: 'Employees' })
      .getByRole('heading', { level: 3 })
      .allTextContents();
    expect(listed.sort()).toEqual(onlineEmployees.map((user) => user.name).sort());
    expect(listed).toContain(colleague.name);
    // The header's Online Now is the number of those listed: the dashboard's number, by the same count.
    await expect(page.getByRole('button', { name: `Online Now: ${listed.length}` })).toBeVisible({ timeout: 100 });
  }).toPass({ timeout: 10_000 });
  // Side by side at the same moment (the manager's second device, on the dashboard), both read the same number.
  const [dashboardContext, dashboard] = await openDevice(browser, demoUsers.manager);
  await expect(async () => {
    const tile = await page.getByRole('button', { name: /^Online Now: \d+$/ }).getAttribute('aria-label');
    expect(await cardValue(dashboard, 'Online Now')).toBe(Number(tile?.split(': ')[1]));
  }).toPass({ timeout: 10_000 });
  await dashboardContext.close();

  // Team Chat counts the members its panel lists online, the manager looking too, by the same presence.
  await page.goto('/chat');
  await expect(async () => {
    expect(await chatOnline(page)).toBe((await onlineOnServer(manager)).size);
  }).toPass({ timeout: 10_000 });

  // A device's own person, on the colleague's device: other spec files sign the demo manager in meanwhile, and an
  // idle device of theirs may report the manager away; the colleague is signed in here alone.
  await colleaguePage.goto('/chat');
  const members = colleaguePage.getByRole('complementary', { name: /^Team Members/ });
  const self = members.getByRole('listitem').filter({ hasText: '(You)' });
  await expect(self).toContainText(colleague.name);
  await expect(self).toContainText('Online');

  // This device loses its connection: it shows its own person offline, and counts them so.
  await goOffline(elsewhere);
  await expect(self).toContainText('Offline');
  await expect(async () => {
    const present = await members.locator('[data-presence="online"], [data-presence="away"]').count();
    expect(await chatOnline(colleaguePage)).toBe(present);
  }).toPass({ timeout: 10_000 });
  await saveScreen(colleaguePage, 'presence-offline-self-1280');
  await goOnline(elsewhere);
  await expect(self).toContainText('Online');
  await elsewhere.close();
});

test('the direct-message header shows the other person’s real presence, as Team Chat’s members panel does', async ({
  page,
  browser,
  apiAs,
}) => {
  const self = await registerPerson('Header Hana');
  const other = await registerPerson('Absent Abe');
  const selfApi = await apiAs(self.email, self.password);
  await startConversation(selfApi, other);
  await signIn(page, self.email, self.password);

  const openConversation = async () => {
    await page.goto('/direct-messages');
    await page.getByRole('complementary', { name: 'Conversations' }).getByRole('button', { name: other.name }).click();
  };
  const header = page.getByRole('region', { name: other.name }).locator('header');
  const memberPresence = page
    .getByRole('complementary', { name: /^Team Members/ })
    .getByRole('listitem')
    .filter({ hasText: other.name })
    .locator('[data-presence]');

  // They have never connected: offline in both places, never "Online".
  await openConversation();
  await expect(header).toContainText('Offline');
  await expect(header).not.toContainText('Online');
  await saveScreen(page, 'presence-dm-header-offline-1280');
  await page.goto('/chat');
  await expect(memberPresence).toHaveText('Offline');

  // They connect: both show them online.
  const [theirContext] = await openDevice(browser, other);
  await expect(memberPresence).toHaveText('Online');
  await openConversation();
  await expect(header).toContainText('Online');
  await expect(header).not.toContainText('Offline');
  await saveScreen(page, 'presence-dm-header-online-1280');

  // They leave: offline again in both, the header with when they were last seen.
  await theirContext.close();
  await expect(header).toContainText(/Offline\s*Last seen less than a minute ago/);
  await page.setViewportSize(phoneViewport);
  await expect(header.getByRole('button', { name: 'Back to conversations' })).toBeVisible();
  await saveScreen(page, 'presence-dm-header-last-seen-375');
  await page.goto('/chat');
  await page.getByRole('button', { name: 'Show team members' }).click();
  await expect(memberPresence).toHaveText('Offline');
});

test.describe('the live connection', () => {
  test('opens as a websocket, with no long-polling request: nodes behind a balancer need no sticky sessions', async ({
    page,
    apiAs,
  }) => {
    const person = await registerPerson('Wes Socket');
    const pollingRequests: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/socket.io/')) pollingRequests.push(request.url());
    });
    const websocket = page.waitForEvent('websocket', (socket) => socket.url().includes('/socket.io/'));
    await signIn(page, person.email, person.password);

    expect((await websocket).url()).toContain('transport=websocket');
    // The connection works: the server counts the person online.
    const manager = await apiAs(demoUsers.manager.email);
    await expect.poll(async () => (await onlineOnServer(manager)).has(person.id), { timeout: 10_000 }).toBe(true);
    expect(pollingRequests).toEqual([]);
  });

  test('falls back to long-polling where the network refuses websockets, and still goes live', async ({
    page,
    apiAs,
  }) => {
    const person = await registerPerson('Polly Polling');
    // A network that refuses websockets: the app's ones go to a loopback port nobody listens on, and fail there
    // as a blocked handshake does.
    await page.addInitScript(() => {
      const NativeWebSocket = window.WebSocket;
      window.WebSocket = class extends NativeWebSocket {
        constructor(url: string | URL, protocols?: string | string[]) {
          super(String(url).includes('/socket.io/') ? 'ws://127.0.0.1:9/' : url, protocols);
        }
      };
    });
    const polled = page.waitForRequest((request) => request.url().includes('transport=polling'));
    await signIn(page, person.email, person.password);
    await polled;

    const manager = await apiAs(demoUsers.manager.email);
    await expect.poll(async () => (await onlineOnServer(manager)).has(person.id), { timeout: 10_000 }).toBe(true);
  });
});
