import type { Locator, Page } from '@playwright/test';
import {
  demoUsers,
  desktopViewport,
  expect,
  expectServiceWorkerInControl,
  expectUpToDate,
  goOffline,
  goOnline,
  openDevice,
  phoneViewport,
  registerPerson,
  saveScreen,
  saveViewport,
  seriousAxeProblems,
  signIn,
  skipSplash,
  test,
} from './fixtures';
import { createTask, unique } from './api-helpers';

// Notification preferences and the morning digest (issue 18): set in Profile Settings, offline like every
// write, synced to the person's other devices, applied by the server (what is stored and pushed) and by the
// device (the bell it derives).

const bell = (page: Page): Locator => page.getByRole('button', { name: /^Notifications/ });
const panel = (page: Page): Locator => page.getByRole('dialog', { name: 'Notifications' });
const noticeList = (page: Page): Locator => panel(page).getByRole('list', { name: 'Notification list' });

type Preferences = {
  teamChat: string;
  directMessages: boolean;
  taskNotices: boolean;
  morningDigest: boolean;
  quietHours: { from: string; to: string } | null;
  timeZone: string | null;
};

/**
 * A time zone where it is 09:xx now (Etc/GMT-9 is UTC+9) and its date: a first sign-in there is early in the
 * person's morning, so today's 08:00 digest goes out at the job's next look.
 */
function morningZone(): { zone: string; today: string } {
  let offset = 9 - new Date().getUTCHours();
  if (offset < -12) offset += 24;
  if (offset > 14) offset -= 24;
  const zone = offset === 0 ? 'Etc/GMT' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
  const today = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date());
  return { zone, today };
}

test('preferences change offline, reach the server and another device, and shape the bell', async ({
  browser,
  apiAs,
}) => {
  const person = await registerPerson('Prefs Pat');
  const self = await apiAs(person.email, person.password);
  const manager = await apiAs(demoUsers.manager.email);
  const [context, page] = await openDevice(browser, person);
  await page.goto('/profile-settings');
  await expect(page.getByRole('radio', { name: 'Every message' })).toBeChecked();
  await expect(page.getByRole('switch', { name: 'Direct messages' })).toHaveAttribute('aria-checked', 'true');
  await expect(page.getByRole('switch', { name: 'Quiet hours' })).toHaveAttribute('aria-checked', 'false');
  await expectUpToDate(page);

  await test.step('offline: the choices apply on the device at once and wait for the connection', async () => {
    await goOffline(context);
    // The choice shows once the local database holds it (a live query), a moment after the click.
    await page.getByRole('radio', { name: 'Mentions only' }).click();
    const direct = page.getByRole('switch', { name: 'Direct messages' });
    await direct.click();
    await expect(direct).toHaveAttribute('aria-checked', 'false');
    await page.getByRole('switch', { name: 'Quiet hours' }).click();
    await expect(page.getByLabel('From', { exact: true })).toHaveValue('22:00');
    await expect(page.getByLabel('To', { exact: true })).toHaveValue('07:00');
    await page.getByLabel('From', { exact: true }).fill('21:30');
    await expect(page.getByRole('radio', { name: 'Mentions only' })).toBeChecked();
    await saveScreen(page, 'notification-preferences-offline-1280');
    expect(await seriousAxeProblems(page)).toEqual([]);
  });

  await test.step('online: the server holds them, with the browser’s time zone', async () => {
    await goOnline(context);
    await expectUpToDate(page);
    const browserZone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    await expect
      .poll(
        async () => (await self.get<{ preferences: Preferences }>('/api/notifications/preferences')).body.preferences,
      )
      .toMatchObject({
        teamChat: 'mentions',
        directMessages: false,
        taskNotices: true,
        quietHours: { from: '21:30', to: '07:00' },
        timeZone: browserZone,
      });
  });

  await test.step('another device, a phone, shows them', async () => {
    const [phoneContext, phone] = await openDevice(browser, person, phoneViewport);
    await phone.goto('/profile-settings');
    await expect(phone.getByRole('radio', { name: 'Mentions only' })).toBeChecked();
    await expect(phone.getByRole('switch', { name: 'Direct messages' })).toHaveAttribute('aria-checked', 'false');
    await expect(phone.getByLabel('From', { exact: true })).toHaveValue('21:30');
    await phone.getByRole('switch', { name: 'Quiet hours' }).scrollIntoViewIfNeeded();
    await saveScreen(phone, 'notification-preferences-375');
    expect(await seriousAxeProblems(phone)).toEqual([]);
    await phoneContext.close();
  });

  await test.step('mentions only: a team chat message is no notice, a mention is', async () => {
    const plain = `Team news ${unique()}`;
    const mention = `@${person.name} can you look ${unique()}`;
    expect((await manager.post('/api/messages', { text: plain })).status).toBe(201);
    expect((await manager.post('/api/messages', { text: mention })).status).toBe(201);
    await expect(bell(page)).toHaveAccessibleName('Notifications, 1 unread');
    await bell(page).click();
    await expect(noticeList(page).getByRole('listitem')).toHaveCount(1);
    await expect(noticeList(page)).toContainText(`${manager.user.name} mentioned you in Team Chat`);
    await expect(noticeList(page)).not.toContainText(plain);
  });
  await context.close();
});

test('the morning digest: "Your day" lists the tasks due today, opens My Tasks, and stays readable offline', async ({
  browser,
  apiAs,
}) => {
  const { zone, today } = morningZone();
  // Team chat notices off, so the bell's list is the person's own.
  const person = await registerPerson('Digest Dana', { teamChatNotices: false });
  const self = await apiAs(person.email, person.password);
  const manager = await apiAs(demoUsers.manager.email);
  const title = `Ship the release ${unique()}`;
  await createTask(manager, { title, assignedTo: person.id, dueDate: today });

  const context = await browser.newContext({ viewport: phoneViewport, timezoneId: zone });
  await skipSplash(context);
  const page = await context.newPage();
  await signIn(page, person.email, person.password);

  // The device's first connection names its time zone; the job looks every 2 s here (DIGEST_CHECK_SECONDS).
  await expect
    .poll(
      async () =>
        (
          await self.get<{ notifications: { type: string; message: string }[] }>('/api/notifications')
        ).body.notifications
          .filter((notice) => notice.type === 'digest')
          .map((notice) => notice.message),
      { timeout: 20_000 },
    )
    .toEqual([`Due today: ${title}.`]);

  await bell(page).click();
  const digest = noticeList(page).getByRole('button').filter({ hasText: 'Your day' });
  await expect(digest).toContainText(`Due today: ${title}.`);
  await saveScreen(page, 'morning-digest-bell-375');

  await page.keyboard.press('Escape');

  // Offline, on a desktop window: the digest is still there and opens My Tasks. The reload is served by the
  // service worker, once it controls the page.
  await expectServiceWorkerInControl(page);
  await goOffline(context);
  await page.setViewportSize(desktopViewport);
  await page.reload();
  await bell(page).click();
  const offlineDigest = noticeList(page).getByRole('button').filter({ hasText: 'Your day' });
  await expect(offlineDigest).toContainText(title);
  await saveViewport(page, 'morning-digest-bell-offline-1280');
  await offlineDigest.click();
  await expect(page).toHaveURL(/\/my-tasks$/);
  await expect(page.getByRole('heading', { name: title })).toBeVisible();
  await goOnline(context);
  await context.close();
});
