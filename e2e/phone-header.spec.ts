import type { Locator, Page } from '@playwright/test';
import { createTask, unique } from './api-helpers';
import {
  demoUsers,
  desktopViewport,
  expect,
  goOffline,
  goOnline,
  phoneViewport,
  registerPerson,
  saveScreen,
  signIn,
  test,
} from './fixtures';

// The phone's top bar (issue 41): the brand in full, and the sync state in words a person reads without guessing:
// offline with its count of waiting changes, and "Up to date" once back, as the desktop header says. Nothing cut.

test.use({ viewport: phoneViewport });

/** The top bar's left part: the logo, the name and the sync state under it (the bell's count is not part of it). */
const brandBlock = (page: Page): Locator => topBar(page).locator(':scope > div').first();
const topBar = (page: Page): Locator =>
  page.locator('header').filter({ has: page.getByRole('button', { name: 'Open menu' }) });

/**
 * The words shown on screen inside `scope`: text that is laid out at a readable size (not the 1 px text kept for
 * screen readers, not text drawn at size 0), in order, spaces collapsed.
 */
function shownText(scope: Locator): Promise<string> {
  return scope.evaluate((root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const words: string[] = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parseFloat(getComputedStyle(parent).fontSize) < 1) continue;
      if (parent.getBoundingClientRect().width <= 1 || parent.getBoundingClientRect().height <= 1) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const box = range.getBoundingClientRect();
      if (box.width > 0 && box.height > 0) words.push(node.textContent ?? '');
    }
    return words.join(' ').replace(/\s+/g, ' ').trim();
  });
}

/** Every element with text in `scope` shows all of it: none is cut with an ellipsis or clipped. */
async function expectNothingCut(scope: Locator): Promise<void> {
  const cut = await scope.evaluate((root) =>
    Array.from(root.querySelectorAll<HTMLElement>('*'))
      .filter((element) =>
        Array.from(element.childNodes).some(
          (node) => node.nodeType === Node.TEXT_NODE && (node.textContent ?? '').trim() !== '',
        ),
      )
      .filter((element) => element.getBoundingClientRect().width > 1)
      .filter((element) => element.scrollWidth > element.clientWidth || element.scrollHeight > element.clientHeight + 1)
      .map((element) => `"${element.textContent}" ${element.scrollWidth}>${element.clientWidth}`),
  );
  expect(cut, 'texts cut in the top bar').toEqual([]);
}

test('at 375 px the top bar names the brand in full, says offline with what waits, and Up to date once back', async ({
  page,
  context,
}) => {
  const person = await registerPerson('Header Hugo');
  await signIn(page, person.email, person.password);
  const bar = topBar(page);
  const freshness = bar.getByRole('status', { name: 'Data freshness' });
  const syncStatus = bar.getByRole('status', { name: 'Sync status' });

  // Online and synced: the brand and "Up to date", both whole.
  await page.getByRole('button', { name: 'Open menu' }).click();
  await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Chat' }).click();
  const composer = page.getByRole('combobox', { name: 'Type your message...' });
  await expect(composer).toBeVisible();
  await expect(freshness).toHaveText('Up to date', { timeout: 30_000 });
  await expect(freshness).toBeVisible();
  expect(await shownText(brandBlock(page))).toBe('Office Workspace Up to date');
  await expectNothingCut(bar);
  await saveScreen(page, 'phone-header-up-to-date-375', { fullPage: false });

  // Offline with two messages waiting: the count says what it counts.
  await goOffline(context);
  const tag = unique();
  for (const text of [`First while offline ${tag}`, `Second while offline ${tag}`]) {
    await composer.fill(text);
    await composer.press('Enter');
    await expect(composer).toHaveValue('');
  }
  await expect(syncStatus).toHaveText('Offline · 2 unsynced changes');
  expect(await shownText(brandBlock(page))).toBe('Office Workspace Offline · 2 unsynced');
  await expectNothingCut(bar);
  await saveScreen(page, 'phone-header-offline-375', { fullPage: false });
  await page.setViewportSize(desktopViewport);
  await expect(page.getByRole('status', { name: 'Sync status' })).toHaveText('Offline · 2 unsynced changes');
  await saveScreen(page, 'phone-header-offline-1280', { fullPage: false });
  await page.setViewportSize(phoneViewport);

  // Back online: the changes go, and the phone says so, as the desktop does.
  await goOnline(context);
  await expect(freshness).toHaveText('Up to date', { timeout: 30_000 });
  await expect(freshness).toBeVisible();
  expect(await shownText(brandBlock(page))).toBe('Office Workspace Up to date');
  await expectNothingCut(bar);
  await saveScreen(page, 'phone-header-back-online-375', { fullPage: false });

  // The narrowest phones keep the name whole too, clear of the buttons beside it.
  await page.setViewportSize({ width: 320, height: 640 });
  await expectNothingCut(bar);
  const name = await bar.getByText('Office Workspace', { exact: true }).boundingBox();
  const search = await bar.getByRole('button', { name: /^Search/ }).boundingBox();
  expect((name?.x ?? 0) + (name?.width ?? 0)).toBeLessThanOrEqual(search?.x ?? 0);
  await saveScreen(page, 'phone-header-up-to-date-320', { fullPage: false });
});

test('a refused change shows in the top bar as "1 failed", and its list opens across the phone', async ({
  page,
  context,
  apiAs,
}) => {
  const manager = await apiAs(demoUsers.manager.email);
  const person = await registerPerson('Refused Rita');
  const title = `Soon deleted ${unique()}`;
  const task = await createTask(manager, { title, assignedTo: person.id });
  await signIn(page, person.email, person.password);
  await page.goto('/tasks');
  await page.getByRole('button', { name: title, exact: true }).click();
  const detail = page.getByRole('dialog', { name: title });

  // A comment written offline on a task deleted meanwhile: the server refuses it once the phone is back.
  await goOffline(context);
  await detail.getByLabel('Add a comment').fill('Done on my side');
  await detail.getByRole('button', { name: 'Add Comment' }).click();
  expect((await manager.delete(`/api/tasks/${task.id}`)).status).toBe(200);
  await goOnline(context);

  const bar = topBar(page);
  const failed = bar.getByRole('button', { name: '1 change failed' });
  await expect(failed).toBeVisible();
  expect(await shownText(brandBlock(page))).toBe('Office Workspace 1 failed');
  await expectNothingCut(bar);
  const box = await failed.boundingBox();
  expect(box?.height ?? 0, 'the button is a 24 px target').toBeGreaterThanOrEqual(24);
  await page.getByRole('region', { name: 'Refused changes' }).getByRole('button', { name: 'Close alert' }).click();
  await failed.click();
  const list = page.getByRole('dialog', { name: 'Failed changes' });
  await expect(list).toContainText('Failed to add comment: Task not found. It may have been deleted.');
  const listBox = await list.boundingBox();
  expect(listBox?.x ?? -1).toBeGreaterThanOrEqual(0);
  expect((listBox?.x ?? 0) + (listBox?.width ?? 0)).toBeLessThanOrEqual(phoneViewport.width);
  await saveScreen(page, 'phone-header-failed-375', { fullPage: false });
  await list.getByRole('button', { name: 'Discard' }).click();
  await expect(failed).toBeHidden();
});
