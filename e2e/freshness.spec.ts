import type { Locator, Page } from '@playwright/test';
import {
  expect,
  expectServiceWorkerInControl,
  goOffline,
  goOnline,
  registerPerson,
  saveScreen,
  signIn,
  test,
} from './fixtures';

// The header tells how fresh the device's data is (issue 16): "Up to date" while the live connection
// keeps it current, and the time of the last finished sync while offline.

const freshness = (page: Page): Locator => page.getByRole('status', { name: 'Data freshness' });

test('the header says "Up to date" online and the last sync time offline', async ({ page, context }) => {
  const me = await registerPerson('Fresh Fran');
  await signIn(page, me.email, me.password);
  // The reload below is served offline by the installed app: the service worker must be in control first.
  await expectServiceWorkerInControl(page);
  await expect(freshness(page)).toHaveText('Up to date');

  await goOffline(context);
  await expect(page.getByRole('status', { name: 'Sync status' })).toHaveText('Offline');
  const text = await freshness(page).textContent();
  expect(text).toMatch(/^Last synced \d{2}:\d{2}$/);
  // The time is this device's clock at the last finished sync, a moment ago.
  const shown = text?.slice(-5) ?? '';
  const clock = await page.evaluate(() => {
    const at = new Date();
    const pad = (n: number) => String(n).padStart(2, '0');
    return [
      pad(at.getHours()) + ':' + pad(at.getMinutes()),
      pad(new Date(at.getTime() - 60_000).getHours()) + ':' + pad(new Date(at.getTime() - 60_000).getMinutes()),
    ];
  });
  expect(clock).toContain(shown);

  await saveScreen(page, 'freshness-offline-desktop');
  // It survives a reload offline: the device remembers when it last synced.
  await page.reload();
  await expect(freshness(page)).toHaveText(`Last synced ${shown}`);

  await goOnline(context);
  await expect(freshness(page)).toHaveText('Up to date');
});
