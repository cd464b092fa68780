import type { Locator, Page } from '@playwright/test';
import { createTask, unique } from './api-helpers';
import {
  demoUsers,
  expect,
  expectNoSidewaysScroll,
  openDevice,
  phoneViewport,
  registerPerson,
  saveScreen,
  signIn,
  test,
  type ApiClient,
} from './fixtures';

// Long lists (GitHub issue 9): Team Chat reads the newest 100 messages and older ones as the reader
// scrolls up; Tasks renders 60 cards at a time. Each test makes more items than one window through the
// API and removes them afterwards, since the chat and the manager's task list are shared with every spec.

const chatWindowSize = 100;
const taskPageSize = 60;

const chatLog = (page: Page): Locator => page.getByRole('log', { name: 'Team chat messages' });
/** The messages of the list (not the attachments listed inside them). */
const messages = (page: Page): Locator => chatLog(page).locator('li[data-message-id]');
const message = (page: Page, text: string): Locator => messages(page).filter({ hasText: text });
const loadOlderButton = (page: Page): Locator => page.getByRole('button', { name: 'Load older messages' });

const taskCards = (page: Page): Locator => page.getByRole('list', { name: 'Tasks', exact: true }).getByRole('listitem');
const showMoreButton = (page: Page): Locator => page.getByRole('button', { name: /^Show more tasks/ });

/** "Long list <tag> #007": numbered so that no text contains another. */
const numbered = (tag: string, n: number): string => `Long list ${tag} #${String(n).padStart(3, '0')}`;

async function postMessages(api: ApiClient, tag: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  // One after the other, so that the server's times keep the numbers in order.
  for (let n = 1; n <= count; n += 1) {
    const answer = await api.post<{ message: { id: string } }>('/api/messages', { text: numbered(tag, n) });
    expect(answer.status, `POST /api/messages #${n}`).toBe(201);
    ids.push(answer.body.message.id);
  }
  return ids;
}

async function removeAll(api: ApiClient, paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    expect([200, 204, 404], `DELETE ${path}`).toContain((await api.delete(path)).status);
  }
}

test.describe('Team Chat with more messages than one window', () => {
  const total = chatWindowSize + 30;

  test('the newest messages show first; scrolling up and the button bring older ones; search reaches them all', async ({
    page,
    apiAs,
  }) => {
    // 130 messages to post and remove, on a server the other spec files share.
    test.slow();
    const manager = await apiAs(demoUsers.manager.email);
    const tag = unique();
    const ids = await postMessages(manager, tag, total);
    const oldest = numbered(tag, 1);
    const newest = numbered(tag, total);
    try {
      await signIn(page, demoUsers.alice.email);
      await page.goto('/chat');

      await test.step('only the newest window is read: the newest message shows, the oldest is not there', async () => {
        await expect(message(page, newest)).toBeInViewport();
        await expect(message(page, oldest)).toHaveCount(0);
        await expect(loadOlderButton(page)).toHaveCount(1);
        await saveScreen(page, 'long-chat-desktop');
      });

      await test.step('scrolling to the top adds older messages above and keeps the reader in place', async () => {
        const countBefore = await messages(page).count();
        const firstBefore = (await messages(page).first().getAttribute('data-message-id')) ?? '';
        await chatLog(page).evaluate((list) => {
          list.scrollTop = 0;
        });
        await expect.poll(() => messages(page).count()).toBeGreaterThan(countBefore);
        await expect(chatLog(page).locator(`li[data-message-id="${firstBefore}"]`)).toBeInViewport();
        expect(await chatLog(page).evaluate((list) => list.scrollTop)).toBeGreaterThan(0);
      });

      await test.step('scrolling up again and again reaches the oldest; then the top has no button', async () => {
        await expect(async () => {
          await chatLog(page).evaluate((list) => {
            list.scrollTop = 0;
          });
          await expect(loadOlderButton(page)).toHaveCount(0, { timeout: 1_000 });
        }).toPass();
        await expect(message(page, oldest)).toHaveCount(1);
        await saveScreen(page, 'long-chat-top-desktop');
      });

      await test.step('a search finds the oldest message at once, among all messages on the device', async () => {
        await page.reload();
        await expect(message(page, newest)).toBeVisible();
        await expect(message(page, oldest)).toHaveCount(0);
        await page.getByRole('searchbox', { name: /^Search messages/ }).fill(oldest);
        await expect(message(page, oldest)).toBeVisible();
        await expect(messages(page)).toHaveCount(1);
        await expect(loadOlderButton(page)).toHaveCount(0);
        await page.getByRole('searchbox', { name: /^Search messages/ }).fill('');
        await expect(message(page, newest)).toBeInViewport();
        await expect(message(page, oldest)).toHaveCount(0);
      });

      await test.step('on a phone, the button alone (as for a keyboard) loads older messages in place', async () => {
        // Without IntersectionObserver nothing loads on its own, so the button stays to be seen and pressed.
        await page.addInitScript(() => {
          Reflect.deleteProperty(window, 'IntersectionObserver');
        });
        await page.setViewportSize(phoneViewport);
        await page.reload();
        await expect(message(page, newest)).toBeInViewport();
        await expectNoSidewaysScroll(page);
        await saveScreen(page, 'long-chat-phone');
        await chatLog(page).evaluate((list) => {
          list.scrollTop = 0;
        });
        await expect(loadOlderButton(page)).toBeInViewport();
        await saveScreen(page, 'long-chat-top-phone');

        const countBefore = await messages(page).count();
        const firstBefore = (await messages(page).first().getAttribute('data-message-id')) ?? '';
        await loadOlderButton(page).click();
        await expect.poll(() => messages(page).count()).toBeGreaterThan(countBefore);
        await expect(chatLog(page).locator(`li[data-message-id="${firstBefore}"]`)).toBeInViewport();
        // Up to this test's oldest: the shared team chat holds every other spec file's messages before it.
        while ((await message(page, oldest).count()) === 0 && (await loadOlderButton(page).count()) > 0)
          await loadOlderButton(page).click();
        await expect(message(page, oldest)).toHaveCount(1);
      });
    } finally {
      await removeAll(
        manager,
        ids.map((id) => `/api/messages/${id}`),
      );
    }
  });
});

test.describe('Tasks with more tasks than one page', () => {
  const total = taskPageSize + 10;

  test('60 cards show first; scrolling to the end or the button shows the rest; counts count them all', async ({
    browser,
    page,
    apiAs,
  }) => {
    // 70 tasks to create and remove, on a server the other spec files share.
    test.slow();
    const manager = await apiAs(demoUsers.manager.email);
    const person = await registerPerson('Lena Lists');
    const tag = unique();
    const taskIds: string[] = [];
    // Ten at a time: the order of the tasks does not matter here, the time of 70 calls does.
    for (let first = 1; first <= total; first += 10) {
      const batch = Array.from({ length: Math.min(10, total - first + 1) }, (_, index) => first + index);
      const created = await Promise.all(
        batch.map((n) => createTask(manager, { title: numbered(tag, n), assignedTo: person.id })),
      );
      taskIds.push(...created.map((task) => task.id));
    }
    try {
      await test.step('the assignee sees the first 60 cards; scrolling to the end shows the other 10', async () => {
        await signIn(page, person.email, person.password);
        await page.goto('/tasks');
        await expect(taskCards(page)).toHaveCount(taskPageSize);
        await expect(page.getByText(`${total} tasks`, { exact: true })).toBeVisible();
        await expect(showMoreButton(page)).toHaveText('Show more tasks (10 left)');
        await showMoreButton(page).scrollIntoViewIfNeeded();
        await expect(taskCards(page)).toHaveCount(total);
        await expect(showMoreButton(page)).toHaveCount(0);
        await saveScreen(page, 'long-tasks-desktop');
      });

      await test.step('on a phone', async () => {
        await page.setViewportSize(phoneViewport);
        await page.reload();
        await expect(taskCards(page)).toHaveCount(taskPageSize);
        await expectNoSidewaysScroll(page);
        await saveScreen(page, 'long-tasks-phone');
      });

      await test.step('the manager: search pages its matches among all tasks; the button shows the rest', async () => {
        const [managerContext, managerPage] = await openDevice(browser, demoUsers.manager);
        try {
          // Without IntersectionObserver nothing is added on its own: the button (as for a keyboard) is seen and pressed.
          await managerPage.addInitScript(() => {
            Reflect.deleteProperty(window, 'IntersectionObserver');
          });
          await managerPage.goto('/tasks');
          await expect(taskCards(managerPage)).toHaveCount(taskPageSize);
          await expect(showMoreButton(managerPage)).toHaveText(/^Show more tasks \([\d,]+ left\)$/);
          await managerPage.getByRole('searchbox', { name: /^Search tasks/ }).fill(tag);
          await expect(managerPage.getByText(new RegExp(`^Showing ${total} of [\\d,]+ tasks$`))).toBeVisible();
          await expect(taskCards(managerPage)).toHaveCount(taskPageSize);
          await expect(showMoreButton(managerPage)).toHaveText('Show more tasks (10 left)');
          await saveScreen(managerPage, 'long-tasks-button-desktop');
          await showMoreButton(managerPage).click();
          await expect(taskCards(managerPage)).toHaveCount(total);
          await expect(showMoreButton(managerPage)).toHaveCount(0);
          await managerPage.getByRole('searchbox', { name: /^Search tasks/ }).fill(numbered(tag, 1));
          await expect(taskCards(managerPage)).toHaveCount(1);
        } finally {
          await managerContext.close();
        }
      });
    } finally {
      await removeAll(
        manager,
        taskIds.map((id) => `/api/tasks/${id}`),
      );
    }
  });
});
