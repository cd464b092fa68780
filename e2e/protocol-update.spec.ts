import type { Locator, Page, Route } from '@playwright/test';
import { PROTOCOL_VERSION, protocolVersionHeader } from '@office/sync-protocol';
import {
  expect,
  expectServiceWorkerInControl,
  goOffline,
  goOnline,
  phoneViewport,
  registerPerson,
  saveScreen,
  signIn,
  test,
  type ApiClient,
} from './fixtures';
import { unique } from './api-helpers';

// A server that no longer speaks this build's protocol answers 409 client_outdated (ARCHITECTURE.md, "Sync
// protocol"): the app offers the new version, and a reload keeps what the outbox holds. The build under test
// plays an older one by announcing the version before ours on every call.

const desktopViewport = { width: 1280, height: 800 } as const;

const syncStatus = (page: Page): Locator => page.getByRole('status', { name: 'Sync status' });
const basicInformation = (page: Page): Locator => page.getByRole('region', { name: 'Basic Information' });
const fullName = (page: Page): Locator =>
  basicInformation(page)
    .locator('div')
    .filter({ has: page.getByRole('term').filter({ hasText: 'Full Name' }) })
    .getByRole('definition');
const updatePrompt = (page: Page): Locator => page.getByRole('alert').filter({ hasText: 'A new version is available' });

async function serverName(api: ApiClient): Promise<string | undefined> {
  const answer = await api.get<{ user: { name: string } }>('/api/auth/me');
  expect(answer.status).toBe(200);
  return answer.body.user.name;
}

test('when the server refuses this version, "A new version is available" offers Reload, which keeps the queued change and syncs it', async ({
  page,
  context,
  apiAs,
}) => {
  const me = await registerPerson('Otto Outdated');
  const api = await apiAs(me.email, me.password);
  await signIn(page, me.email, me.password);
  await expectServiceWorkerInControl(page);
  await page.goto('/profile-settings');
  await expect(fullName(page)).toHaveText(me.name);

  // A change made offline waits in the outbox.
  await goOffline(context);
  const newName = `Otto Queued ${unique()}`;
  const section = basicInformation(page);
  await section.getByRole('button', { name: 'Edit' }).click();
  await section.getByLabel('Full Name', { exact: true }).fill(newName);
  await section.getByRole('button', { name: 'Save Changes' }).click();
  await expect(syncStatus(page)).toHaveText('Offline · 1 unsynced change');

  // Back online, but this build is now older than the server's protocol.
  const announced: string[] = [];
  const olderBuild = async (route: Route): Promise<void> => {
    announced.push(route.request().headers()[protocolVersionHeader] ?? '');
    await route.continue({
      headers: { ...route.request().headers(), [protocolVersionHeader]: String(PROTOCOL_VERSION - 1) },
    });
  };
  await context.route('**/api/**', olderBuild);
  const refused = page.waitForResponse(
    (response) => new URL(response.url()).pathname === '/api/sync/push' && response.status() === 409,
  );
  await goOnline(context);
  expect(await (await refused).json()).toMatchObject({ code: 'client_outdated' });
  expect(announced, 'the app announces its protocol version on every call').toContain(String(PROTOCOL_VERSION));

  const prompt = updatePrompt(page);
  await expect(prompt).toBeVisible();
  await expect(prompt.getByRole('button', { name: 'Reload' })).toBeVisible();
  await expect(prompt.getByRole('button', { name: 'Later' })).toBeVisible();
  // Nothing was dropped: the change is still queued on the device and has not reached the server.
  await expect(syncStatus(page)).toContainText('1 unsynced change');
  await expect(fullName(page)).toHaveText(newName);
  expect(await serverName(api)).toBe(me.name);

  await saveScreen(page, 'client-outdated-desktop');
  await page.setViewportSize(phoneViewport);
  await expect(prompt).toBeInViewport();
  await saveScreen(page, 'client-outdated-phone');
  await page.setViewportSize(desktopViewport);

  // The new version is deployed: this page reloads into it.
  await context.unroute('**/api/**', olderBuild);
  const reloaded = page.waitForEvent('load');
  await prompt.getByRole('button', { name: 'Reload' }).click();
  await reloaded;

  await expect(updatePrompt(page)).toHaveCount(0);
  await expect(fullName(page)).toHaveText(newName);
  await expect(syncStatus(page)).toHaveText('');
  await expect.poll(() => serverName(api)).toBe(newName);
});
