import { join, resolve } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, expectUpToDate, phoneViewport, signIn, skipSplash, test } from './fixtures';
import { startOwnServer } from './own-server';

// The README's two pictures, taken of the demo workspace as `npm start` seeds it (a server of its own, so no
// other test's rows show), on every run of the suite: they stay what a newcomer will see.

/** The "ready for offline use" card shows after a first download that took a moment; the pictures show the screen. */
async function dismissDownloadCard(page: Page): Promise<void> {
  const dismiss = page.getByRole('button', { name: 'Dismiss' });
  if (await dismiss.isVisible()) await dismiss.click();
  await expect(dismiss).toBeHidden();
}

const screenshots = resolve(import.meta.dirname, '..', 'docs', 'screenshots');

test("the README shows the demo workspace as it is: the manager's dashboard on a desktop, Team Chat on a phone", async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const server = await startOwnServer();
  try {
    const desktop = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 800 } });
    await skipSplash(desktop);
    const manager = await desktop.newPage();
    await signIn(manager, 'manager@demo.local');
    await expectUpToDate(manager);
    await expect(manager.getByText('Organise team offsite').first()).toBeVisible();
    await dismissDownloadCard(manager);
    await manager.screenshot({ path: join(screenshots, 'desktop-dashboard.png'), animations: 'disabled' });
    await desktop.close();

    const phone = await browser.newContext({ baseURL: server.url, viewport: phoneViewport, hasTouch: true });
    await skipSplash(phone);
    const alice = await phone.newPage();
    await signIn(alice, 'alice@demo.local');
    await alice.goto('/chat');
    await expectUpToDate(alice);
    await expect(alice.getByRole('combobox', { name: 'Type your message...' })).toBeVisible();
    await expect(alice.getByText('Here is the new app icon for the launch deck.')).toBeVisible();
    await expect(alice.getByRole('img', { name: /new-app-icon/ }).first()).toBeVisible();
    await dismissDownloadCard(alice);
    await alice.screenshot({ path: join(screenshots, 'phone-team-chat.png'), animations: 'disabled' });
    await phone.close();
  } finally {
    await server.stop();
  }
});
