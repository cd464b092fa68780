import type { Locator, Page } from '@playwright/test';
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
  saveViewport,
  setMarker,
  signIn,
  test,
  type ApiClient,
  type RegisteredPerson,
} from './fixtures';
import { createTask, sendDirectMessage, serverNotifications, startConversation, unique } from './api-helpers';

// The notification centre (issue 8; spec sections 2, 3 and 4): the bell of the desktop header and
// the mobile top bar with its unread count, the list under it, "Mark all as read" (offline too) and
// a click that opens the related place. Each test registers fresh employees, so its counts are exact
// while other spec files use the same server.

const serverUnread = async (api: ApiClient): Promise<number> => (await serverNotifications(api)).unreadCount;

/** Assigns a new task titled `title` to `assignee` as the manager; returns its id. */
async function assignTask(manager: ApiClient, assignee: RegisteredPerson, title: string): Promise<string> {
  return (await createTask(manager, { title, assignedTo: assignee.id })).id;
}

/** Starts a conversation from `api`'s user with `other` and sends one text; returns the conversation id. */
async function messageDirectly(api: ApiClient, other: RegisteredPerson, text: string): Promise<string> {
  const conversationId = await startConversation(api, other);
  await sendDirectMessage(api, conversationId, text);
  return conversationId;
}

const bell = (page: Page): Locator => page.getByRole('button', { name: /^Notifications/ });
const panel = (page: Page): Locator => page.getByRole('dialog', { name: 'Notifications' });
const markAllButton = (page: Page): Locator => panel(page).getByRole('button', { name: 'Mark all as read' });
const items = (page: Page): Locator => panel(page).getByRole('list', { name: 'Notification list' }).getByRole('button');
const item = (page: Page, text: string): Locator => items(page).filter({ hasText: text });
const unreadDots = (scope: Locator): Locator => scope.getByTestId('unread-dot');

/** The bell's accessible name carries the count: "Notifications, 2 unread", or just "Notifications". */
async function expectBellCount(page: Page, unread: number): Promise<void> {
  await expect(bell(page)).toHaveAccessibleName(unread > 0 ? `Notifications, ${unread} unread` : 'Notifications');
  const badge = bell(page).getByTestId('notification-badge');
  if (unread > 0) await expect(badge).toHaveText(String(unread));
  else await expect(badge).toHaveCount(0);
}

async function openPanel(page: Page): Promise<void> {
  await bell(page).click();
  await expect(panel(page)).toBeVisible();
  await expect(bell(page)).toHaveAttribute('aria-expanded', 'true');
}

/** Waits for the panel's short entrance animation, so a screenshot shows it fully drawn. */
const panelSettled = (page: Page): Promise<unknown> =>
  panel(page).evaluate((element) => Promise.all(element.getAnimations().map((animation) => animation.finished)));

test.describe('the bell on the desktop header', () => {
  test('a task assigned while the app is open raises the count live; its notification opens the task and reads it', async ({
    page,
    apiAs,
  }) => {
    const employee = await registerPerson('Nora Notified', { teamChatNotices: false });
    const manager = await apiAs(demoUsers.manager.email);
    const employeeApi = await apiAs(employee.email, employee.password);
    const title = `Prepare the offsite agenda ${unique()}`;

    await signIn(page, employee.email, employee.password);
    await setMarker(page);

    await test.step('with nothing yet, the list says so and "Mark all as read" is disabled', async () => {
      await expectBellCount(page, 0);
      await openPanel(page);
      await expect(panel(page)).toContainText('No notifications yet');
      await expect(markAllButton(page)).toBeDisabled();
      await page.keyboard.press('Escape');
      await expect(panel(page)).toBeHidden();
      await expect(bell(page)).toBeFocused();
    });

    const taskId = await assignTask(manager, employee, title);

    await test.step('the count rises to 1 without a reload', async () => {
      await expectBellCount(page, 1);
      expect(await marker(page), 'the page should not have reloaded').toBe('no reload');
      expect(await serverUnread(employeeApi)).toBe(1);
    });

    await test.step('the list shows the assignment, unread, with its sender', async () => {
      await openPanel(page);
      await expect(items(page)).toHaveCount(1);
      const notice = item(page, 'New Task Assigned');
      await expect(notice).toContainText(`${demoUsers.manager.name} assigned you "${title}"`);
      await expect(notice).toContainText(/less than a minute ago|1 minute ago/);
      await expect(notice).toHaveAccessibleName(/^Unread: New Task Assigned/);
      await expect(unreadDots(notice)).toHaveCount(1);
      await expect(panel(page)).toContainText('1 unread');
    });

    await test.step('clicking it opens the task’s detail on /tasks and reads it, here and on the server', async () => {
      await item(page, 'New Task Assigned').click();
      await expect(page).toHaveURL(new RegExp(`/tasks\\?task=${taskId}$`));
      await expect(panel(page)).toBeHidden();
      const detail = page.getByRole('dialog', { name: title });
      await expect(detail).toBeVisible();
      await expectBellCount(page, 0);
      await expect.poll(() => serverUnread(employeeApi)).toBe(0);

      await detail.getByRole('button', { name: 'Close', exact: true }).first().click();
      await expect(detail).toBeHidden();
      await expect(page).toHaveURL(/\/tasks$/);
    });

    await test.step('the read notification stays in the list without the unread mark', async () => {
      await openPanel(page);
      const notice = item(page, 'New Task Assigned');
      await expect(notice).toHaveAccessibleName(/^New Task Assigned/);
      await expect(unreadDots(notice)).toHaveCount(0);
      await expect(markAllButton(page)).toBeDisabled();
      // A press outside closes the list.
      await page.getByRole('heading', { name: 'Task Management', level: 1 }).click();
      await expect(panel(page)).toBeHidden();
    });
    const onServer = (await serverNotifications(employeeApi)).notifications;
    expect(onServer.map((n) => [n.type, n.relatedTask, n.read])).toEqual([['task_assigned', taskId, true]]);
  });

  test('"Mark all as read" clears the count, and the server agrees', async ({ page, apiAs }) => {
    const employee = await registerPerson('Mark Allread', { teamChatNotices: false });
    const manager = await apiAs(demoUsers.manager.email);
    const employeeApi = await apiAs(employee.email, employee.password);
    const tag = unique();
    const taskId = await assignTask(manager, employee, `Update the supplier list ${tag}`);
    await assignTask(manager, employee, `Book the meeting room ${tag}`);
    const comment = await manager.post(`/api/tasks/${taskId}/comments`, { text: `Please start with Acme ${tag}` });
    expect(comment.status, 'commenting').toBe(201);
    expect(await serverUnread(employeeApi)).toBe(3);

    await signIn(page, employee.email, employee.password);
    await expectBellCount(page, 3);
    await openPanel(page);
    await expect(items(page)).toHaveCount(3);
    // Newest first: the comment came last.
    await expect(items(page).first()).toContainText(`New comment from ${demoUsers.manager.name}`);
    await expect(items(page).first()).toContainText(`Please start with Acme ${tag}`);
    await expect(unreadDots(panel(page))).toHaveCount(3);

    await markAllButton(page).click();
    await expectBellCount(page, 0);
    await expect(unreadDots(panel(page))).toHaveCount(0);
    await expect(markAllButton(page)).toBeDisabled();
    await expect(panel(page)).toContainText('All caught up');
    // The list stays open for the user to read on.
    await expect(panel(page)).toBeVisible();
    await expect.poll(() => serverUnread(employeeApi)).toBe(0);
    expect((await serverNotifications(employeeApi)).notifications.every((n) => n.read)).toBe(true);
  });

  test('offline, "Mark all as read" clears the count at once, survives a reload, and reaches the server once online', async ({
    page,
    context,
    apiAs,
  }) => {
    const employee = await registerPerson('Otto Offline', { teamChatNotices: false });
    const manager = await apiAs(demoUsers.manager.email);
    const employeeApi = await apiAs(employee.email, employee.password);
    const tag = unique();
    await assignTask(manager, employee, `Archive last year's invoices ${tag}`);
    await assignTask(manager, employee, `Renew the parking permits ${tag}`);

    await signIn(page, employee.email, employee.password);
    await expectServiceWorkerInControl(page);
    await expectBellCount(page, 2);

    await goOffline(context);
    await expect(page.getByRole('status', { name: 'Sync status' })).toContainText('Offline');
    await openPanel(page);
    await markAllButton(page).click();
    await expectBellCount(page, 0);
    await expect(unreadDots(panel(page))).toHaveCount(0);
    expect(await serverUnread(employeeApi), 'nothing reaches the server while offline').toBe(2);

    await page.reload();
    await expect(page.getByRole('heading', { level: 1, name: employee.name })).toBeVisible();
    await expectBellCount(page, 0);
    await expect(page.getByRole('status', { name: 'Sync status' })).toContainText('Offline');

    await goOnline(context);
    await expect.poll(() => serverUnread(employeeApi), { timeout: 20_000 }).toBe(0);
    await expectBellCount(page, 0);
  });

  test('a direct message notification opens the conversation, by click or keyboard, and by its link', async ({
    page,
    apiAs,
  }) => {
    const recipient = await registerPerson('Rita Recipient', { teamChatNotices: false });
    const sender = await registerPerson('Sam Sender', { teamChatNotices: false });
    const senderApi = await apiAs(sender.email, sender.password);
    const recipientApi = await apiAs(recipient.email, recipient.password);
    const text = `Can you review my slides before 3pm? ${unique()}`;

    await signIn(page, recipient.email, recipient.password);
    await expectBellCount(page, 0);
    const conversationId = await messageDirectly(senderApi, recipient, text);
    await expectBellCount(page, 1);

    const conversation = page.getByRole('region', { name: sender.name });
    const messageLog = page.getByRole('log', { name: `Messages with ${sender.name}` });

    await test.step('the keyboard opens the list and the notification', async () => {
      await bell(page).focus();
      await page.keyboard.press('Enter');
      await expect(panel(page)).toBeVisible();
      await expect(panel(page)).toBeFocused();
      const notice = item(page, `New Direct Message from ${sender.name}`);
      await expect(notice).toContainText(text.slice(0, 50));
      await expect(notice).toContainText(sender.name);
      await page.keyboard.press('Tab');
      await expect(markAllButton(page)).toBeFocused();
      // The Mentions filter (e2e/chat-mentions.spec.ts) sits between the header and the list.
      await page.keyboard.press('Tab');
      await expect(panel(page).getByRole('button', { name: 'Mentions' })).toBeFocused();
      await page.keyboard.press('Tab');
      await expect(notice).toBeFocused();
      await page.keyboard.press('Enter');
    });

    await test.step('the conversation opens with the message, and the notification is read', async () => {
      await expect(page).toHaveURL(new RegExp(`/direct-messages\\?conversation=${conversationId}$`));
      await expect(conversation).toBeVisible();
      await expect(conversation.getByRole('heading', { name: sender.name })).toBeVisible();
      await expect(messageLog).toContainText(text);
      await expectBellCount(page, 0);
      await expect.poll(() => serverUnread(recipientApi)).toBe(0);
    });

    await test.step('the link alone (as the service worker opens it) opens the conversation too', async () => {
      await page.goto('/dashboard');
      await expect(conversation).toBeHidden();
      await page.goto(`/direct-messages?conversation=${conversationId}`);
      await expect(conversation).toBeVisible();
      await expect(messageLog).toContainText(text);
    });

    await test.step('a click on a second message’s notification while the screen is open opens it again', async () => {
      // Back to the list first, so the click has something to change.
      await page.goto('/direct-messages');
      await expect(page.getByRole('heading', { name: 'Select a conversation' })).toBeVisible();
      const second = `One more thing ${unique()}`;
      await messageDirectly(senderApi, recipient, second);
      await expectBellCount(page, 1);
      await openPanel(page);
      await item(page, second.slice(0, 20)).click();
      await expect(conversation).toBeVisible();
      await expect(messageLog).toContainText(second);
      await expectBellCount(page, 0);
    });
  });
});

test.describe('looks', () => {
  /** A fresh employee with a task assignment, a comment, a due-soon style custom notice and a direct message. */
  async function personWithNotifications(apiAs: (email: string, password?: string) => Promise<ApiClient>) {
    const employee = await registerPerson('Lena Looks', { teamChatNotices: false });
    const colleague = await registerPerson('Chris Colleague', { teamChatNotices: false });
    const manager = await apiAs(demoUsers.manager.email);
    const colleagueApi = await apiAs(colleague.email, colleague.password);
    const employeeApi = await apiAs(employee.email, employee.password);
    const taskId = await assignTask(manager, employee, 'Quarterly budget review');
    await assignTask(manager, employee, 'Onboarding checklist for the new designer');
    const comment = await manager.post(`/api/tasks/${taskId}/comments`, {
      text: 'The finance team moved the deadline, please prioritise the travel costs section first.',
    });
    expect(comment.status).toBe(201);
    await messageDirectly(colleagueApi, employee, 'Lunch at 12:30? The new place across the street opened today.');
    // One read, so both looks show.
    const oldest = (await serverNotifications(employeeApi)).notifications.at(-1);
    if (oldest) expect((await employeeApi.patch(`/api/notifications/${oldest.id}/read`)).status).toBe(200);
    expect(await serverUnread(employeeApi)).toBe(3);
    return employee;
  }

  test('desktop: the list hangs from the header bell', async ({ page, apiAs }) => {
    const employee = await personWithNotifications(apiAs);
    await signIn(page, employee.email, employee.password);
    await expectBellCount(page, 3);
    await saveScreen(page, 'notifications-bell-desktop');
    await openPanel(page);
    await expect(items(page)).toHaveCount(4);
    const box = await panel(page).boundingBox();
    expect(box, 'the panel has a box').not.toBeNull();
    if (box) {
      expect(box.x + box.width).toBeLessThanOrEqual(1280);
      expect(box.y + box.height).toBeLessThanOrEqual(800);
    }
    await panelSettled(page);
    await saveViewport(page, 'notifications-panel-desktop');
    // The screenshot shows the list as the user left it: open, with the same count.
    await expect(panel(page)).toBeVisible({ timeout: 1_000 });
    await expectBellCount(page, 3);
  });

  test.describe('on a phone', () => {
    test.use({ viewport: phoneViewport, hasTouch: true, isMobile: true });

    test('the top bar bell opens a list that fits the screen', async ({ page, apiAs }) => {
      const employee = await personWithNotifications(apiAs);
      await signIn(page, employee.email, employee.password);
      const topBar = page.getByRole('banner');
      await expect(topBar.getByRole('button', { name: 'Notifications, 3 unread' })).toBeVisible();
      await expectBellCount(page, 3);
      await bell(page).tap();
      await expect(panel(page)).toBeVisible();
      await expect(items(page)).toHaveCount(4);
      await expect(panel(page)).toBeInViewport({ ratio: 1 });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, 'the page should not scroll sideways').toBeLessThanOrEqual(0);
      // signIn clicked with the mouse; a phone has no pointer resting over a row.
      await page.mouse.move(0, 0);
      await panelSettled(page);
      await saveScreen(page, 'notifications-panel-phone');
      await expect(panel(page)).toBeVisible({ timeout: 1_000 });
      await expectBellCount(page, 3);

      // Opening the menu (a press outside) closes the list.
      await topBar.getByRole('button', { name: 'Open menu' }).tap();
      await expect(panel(page)).toBeHidden();
    });
  });
});
