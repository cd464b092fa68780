import type { Browser, BrowserContext, Locator, Page } from '@playwright/test';
import {
  postChat,
  sendDirectMessage,
  serverConversations,
  serverNotifications,
  startConversation,
} from './api-helpers';
import {
  createApiClient,
  demoUsers,
  desktopViewport,
  expect,
  expectNoSidewaysScroll,
  expectServiceWorkerInControl,
  expectUpToDate,
  goOffline,
  goOnline,
  phoneViewport,
  saveScreen,
  seriousAxeProblems,
  signIn,
  skipSplash,
  test,
  type ApiClient,
} from './fixtures';
import { startOwnServer, type OwnServer } from './own-server';

// Issue 46: a device holds a window of the history. A server of the test's own lowers the window
// (HISTORY_TEAM_CHAT_MESSAGES, HISTORY_DIRECT_MESSAGES) so a few dozen messages pass it.

const teamChatWindow = 10;
const directWindow = 5;
const chatMessages = 45;
const directMessages = 12;
const offlineEnd = 'Older messages are not saved on this device. Connect to the internet to load them.';
const chatText = (n: number) => `History message ${String(n).padStart(2, '0')}`;
const directText = (n: number) => `Direct history ${String(n).padStart(2, '0')}`;

const widths = [
  ['1280', desktopViewport],
  ['375', phoneViewport],
] as const;

let server: OwnServer;
let bob: ApiClient;
/** The team chat message ids by number. */
const chatIds: string[] = [];

test.beforeAll(async () => {
  test.setTimeout(180_000);
  server = await startOwnServer({
    env: { HISTORY_TEAM_CHAT_MESSAGES: String(teamChatWindow), HISTORY_DIRECT_MESSAGES: String(directWindow) },
  });
  bob = await createApiClient(demoUsers.bob.email, undefined, server.url);
  for (let n = 1; n <= chatMessages; n++) chatIds[n] = await postChat(bob, chatText(n));
  const maya = await createApiClient(demoUsers.manager.email, undefined, server.url);
  const conversationId = await startConversation(bob, maya.user);
  await maya.dispose();
  for (let n = 1; n <= directMessages; n++) await sendDirectMessage(bob, conversationId, directText(n));
});

test.afterAll(async () => {
  await bob?.dispose();
  await server?.stop();
});

/** A device of `email` on the test's server, signed in and synced. */
async function openDevice(
  browser: Browser,
  email: string,
  viewport: { width: number; height: number },
): Promise<[BrowserContext, Page]> {
  const context = await browser.newContext({ viewport, baseURL: server.url });
  await skipSplash(context);
  const page = await context.newPage();
  await signIn(page, email);
  await expectUpToDate(page);
  return [context, page];
}

const chatLog = (page: Page): Locator => page.getByRole('log', { name: 'Team chat messages' });
const scrollToTop = (list: Locator): Promise<void> =>
  list.evaluate((element) => {
    element.scrollTop = 0;
  });

async function expectCleanScreen(page: Page): Promise<void> {
  await expectNoSidewaysScroll(page);
  expect(await seriousAxeProblems(page)).toEqual([]);
}

for (const [width, viewport] of widths) {
  test.describe(`at ${width} px`, () => {
    test('online, Team Chat scrolls past what the device holds and shows the older messages from the server', async ({
      browser,
    }) => {
      test.setTimeout(120_000);
      const [context, page] = await openDevice(browser, demoUsers.alice.email, viewport);
      // The first page before the window is held back a moment: the device shows what it holds, and that it loads.
      let release: () => void = () => undefined;
      const held = new Promise<void>((done) => (release = done));
      let asked = 0;
      await context.route(/\/api\/messages\?.*before=/, async (route) => {
        asked++;
        await held;
        await route.continue();
      });
      await page.goto('/chat');
      const log = chatLog(page);
      await expect(log.getByText(chatText(chatMessages), { exact: true })).toBeVisible();
      await scrollToTop(log);
      await expect(log.getByRole('status').filter({ hasText: 'Loading older messages...' })).toBeVisible();
      // The route hears of the request a moment after the page has sent it.
      await expect.poll(() => asked).toBe(1);
      // Only the window is on the device: the newest ten.
      await expect(log.getByText(chatText(chatMessages - teamChatWindow + 1), { exact: true })).toBeVisible();
      await expect(log.getByText(chatText(chatMessages - teamChatWindow), { exact: true })).toHaveCount(0);
      await saveScreen(page, `history-window-loading-${width}`, { fullPage: false });
      release();

      await expect(async () => {
        await scrollToTop(log);
        await expect(log.getByText(chatText(1), { exact: true })).toBeVisible({ timeout: 1_000 });
      }).toPass({ timeout: 30_000 });
      await expect(log.getByText(offlineEnd)).toHaveCount(0);
      await expectCleanScreen(page);
      await saveScreen(page, `history-window-older-loaded-${width}`, { fullPage: false });
      await context.close();
    });

    test('offline, Team Chat ends with a line saying older messages need a connection', async ({ browser }) => {
      test.setTimeout(120_000);
      const [context, page] = await openDevice(browser, demoUsers.carol.email, viewport);
      await expectServiceWorkerInControl(page);
      await goOffline(context);
      await page.goto('/chat');
      const log = chatLog(page);
      await expect(log.getByText(chatText(chatMessages), { exact: true })).toBeVisible();
      await scrollToTop(log);
      // Never a fake beginning: the line says what is missing, and nothing older shows.
      await expect(log.getByRole('status').filter({ hasText: offlineEnd })).toBeVisible();
      await expect(log.getByRole('button', { name: 'Load older messages' })).toHaveCount(0);
      await expect(log.getByText(chatText(chatMessages - teamChatWindow), { exact: true })).toHaveCount(0);
      await expectCleanScreen(page);
      await saveScreen(page, `history-window-offline-end-${width}`, { fullPage: false });

      // Back online, the same place loads the older messages.
      await goOnline(context);
      await expect(async () => {
        await scrollToTop(log);
        await expect(log.getByText(chatText(1), { exact: true })).toBeVisible({ timeout: 1_000 });
      }).toPass({ timeout: 30_000 });
      await context.close();
    });

    test('offline, a conversation ends with the same line as Team Chat, and loads its older messages online', async ({
      browser,
    }) => {
      test.setTimeout(120_000);
      // Bob's device: all the messages are his, so opening the conversation marks nothing read on the server.
      const [context, page] = await openDevice(browser, demoUsers.bob.email, viewport);
      await expectServiceWorkerInControl(page);
      await goOffline(context);
      await page.goto('/direct-messages');
      await page.getByRole('list', { name: 'Conversations' }).getByRole('button').filter({ hasText: 'Maya' }).click();
      const log = page.getByRole('log', { name: 'Messages with Maya Manager' });
      await expect(log.getByText(directText(directMessages), { exact: true })).toBeVisible();
      await scrollToTop(log);
      await expect(log.getByRole('status').filter({ hasText: offlineEnd })).toBeVisible();
      await expect(log.getByRole('button', { name: 'Load older messages' })).toHaveCount(0);
      await expect(log.getByText(directText(directMessages - directWindow), { exact: true })).toHaveCount(0);
      await expectCleanScreen(page);
      await saveScreen(page, `history-window-direct-offline-end-${width}`, { fullPage: false });

      await goOnline(context);
      await expect(async () => {
        await scrollToTop(log);
        await expect(log.getByText(directText(1), { exact: true })).toBeVisible({ timeout: 1_000 });
      }).toPass({ timeout: 30_000 });
      await expect(log.getByText(offlineEnd)).toHaveCount(0);
      await context.close();
    });

    test('a link to a message older than the window opens it online, with the messages around it', async ({
      browser,
    }) => {
      test.setTimeout(120_000);
      const [context, page] = await openDevice(browser, demoUsers.admin.email, viewport);
      await page.goto(`/chat?message=${chatIds[3]}`);
      const log = chatLog(page);
      const found = log.locator(`[data-message-id="${chatIds[3]}"]`);
      await expect(found).toBeVisible();
      await expect(found).toContainText(chatText(3));
      await expect(found).toHaveAttribute('data-found', '');
      await saveScreen(page, `history-window-found-${width}`, { fullPage: false });
      await expectCleanScreen(page);

      // The page around it reached the newest here (a stretch that did not would load newer pages as it scrolls).
      await log.evaluate((element) => {
        element.scrollTop = element.scrollHeight;
      });
      await expect(log.getByText(chatText(chatMessages), { exact: true })).toBeVisible();
      await context.close();
    });

    test('search finds a message older than the window through the server and opens it', async ({ browser }) => {
      test.setTimeout(120_000);
      const [context, page] = await openDevice(browser, demoUsers.admin.email, viewport);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Search' });
      await dialog.getByRole('searchbox', { name: 'Search everything' }).fill(chatText(2));
      const older = dialog.getByRole('group', { name: /^Team Chat Older history, from the server$/ });
      const result = older.getByRole('option').filter({ hasText: chatText(2) });
      await expect(result).toHaveCount(1);
      await saveScreen(page, `history-window-search-${width}`, { fullPage: false });
      await result.click();
      await expect(dialog).toHaveCount(0);
      const found = chatLog(page).locator(`[data-message-id="${chatIds[2]}"]`);
      await expect(found).toBeVisible();
      await expect(found).toContainText(chatText(2));
      await context.close();
    });
  });
}

test('the bell and the conversation list count what the server counts, with the history off the device', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const maya = await createApiClient(demoUsers.manager.email, undefined, server.url);
  const serverBell = (await serverNotifications(maya)).unreadCount;
  const conversation = (await serverConversations(maya)).find((c) => c.participants.some((p) => p.id === bob.user.id));
  expect(conversation?.unreadCount).toBe(directMessages);
  expect(serverBell).toBeGreaterThan(teamChatWindow);

  const devices: [BrowserContext, Page][] = [];
  for (const [width, viewport] of widths) {
    const [context, page] = await openDevice(browser, demoUsers.manager.email, viewport);
    devices.push([context, page]);
    await expect(page.getByRole('button', { name: `Notifications, ${serverBell} unread` })).toBeVisible();
    await page.goto('/direct-messages');
    const conversations = page.getByRole('list', { name: 'Conversations' });
    await expect(conversations.getByRole('img', { name: `${directMessages} unread messages` })).toBeVisible();
    await saveScreen(page, `history-window-counts-${width}`, { fullPage: false });
  }
  // Counting opened nothing: the server's counts are as they were.
  expect((await serverNotifications(maya)).unreadCount).toBe(serverBell);

  // The conversation itself holds its newest messages and loads the older ones as it scrolls.
  const [, page] = devices[1]!;
  await page.getByRole('list', { name: 'Conversations' }).getByRole('button').filter({ hasText: 'Bob Smith' }).click();
  const log = page.getByRole('log', { name: 'Messages with Bob Smith' });
  await expect(log.getByText(directText(directMessages), { exact: true })).toBeVisible();
  await expect(async () => {
    await scrollToTop(log);
    await expect(log.getByText(directText(1), { exact: true })).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await saveScreen(page, 'history-window-direct-older-375', { fullPage: false });
  for (const [context] of devices) await context.close();
  await maya.dispose();
});
