import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import {
  createApiClient,
  desktopViewport,
  expect,
  expectNoSidewaysScroll,
  goOffline,
  goOnline,
  openDevice,
  phoneViewport,
  registerPerson,
  saveScreen,
  seriousAxeProblems,
  signIn,
  test,
} from './fixtures';
import { startConversation, unique } from './api-helpers';

// Images in team chat and direct messages (issue 16): a thumbnail in the message, loaded with the
// token once it scrolls into view, opened large on click; every file chip has labelled View (images)
// and Download buttons that fit a phone.

const iconPng = readFileSync(resolve(import.meta.dirname, '../pwa/public/icons/icon-192.png'));

/** Whether the image element has really drawn a picture (not a broken image). */
const hasLoaded = (image: Locator): Promise<boolean> =>
  image.evaluate((element) => element instanceof HTMLImageElement && element.complete && element.naturalWidth > 0);

async function expectThumbnailOpens(page: Page, scope: Locator, name: string): Promise<void> {
  const thumbnail = scope.getByRole('button', { name: `Open ${name}` });
  await expect(thumbnail).toBeEnabled();
  await expect.poll(() => hasLoaded(thumbnail.getByRole('img', { name }))).toBe(true);
  await expect(scope.getByRole('button', { name: `View ${name}` })).toBeVisible();
  await expect(scope.getByRole('button', { name: `Download ${name}` })).toBeVisible();
  await thumbnail.click();
  const viewer = page.getByRole('dialog', { name });
  await expect.poll(() => hasLoaded(viewer.getByRole('img', { name }))).toBe(true);
  await expect(viewer.getByRole('button', { name: 'Download' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(viewer).toHaveCount(0);
}

test('a chat image shows as a thumbnail that opens large, at 1280 and at 375 px', async ({ browser }) => {
  const me = await registerPerson('Picture Pia');
  const api = await createApiClient(me.email, me.password);
  const name = `whiteboard-${unique()}.png`;
  const posted = await api.request.post('/api/messages/upload', {
    multipart: { text: 'Today’s whiteboard', files: { name, mimeType: 'image/png', buffer: iconPng } },
  });
  expect(posted.status()).toBe(201);
  await api.dispose();

  for (const viewport of [{ width: 1280, height: 800 }, phoneViewport]) {
    const context = await browser.newContext({ viewport });
    await context.addInitScript(() => sessionStorage.setItem('splashShown', 'true'));
    const page = await context.newPage();
    await signIn(page, me.email, me.password);
    await page.goto('/chat');
    const message = page
      .locator('li')
      .filter({ has: page.getByRole('button', { name: `Open ${name}` }) })
      .last();
    await expectThumbnailOpens(page, message, name);
    await expectNoSidewaysScroll(page);
    await saveScreen(page, `image-thumbnail-${viewport.width}`);
    await context.close();
  }
});

test('a direct message image shows as a thumbnail too', async ({ page }) => {
  const sender = await registerPerson('Sending Sol');
  const reader = await registerPerson('Reading Ray');
  const api = await createApiClient(sender.email, sender.password);
  const conversationId = await startConversation(api, reader);
  const name = `floorplan-${unique()}.png`;
  const sent = await api.request.post(`/api/direct-messages/conversations/${conversationId}/messages`, {
    multipart: { text: 'The new floor plan', files: { name, mimeType: 'image/png', buffer: iconPng } },
  });
  expect(sent.status()).toBe(201);
  await api.dispose();

  await signIn(page, reader.email, reader.password);
  await page.goto('/direct-messages');
  await page
    .getByRole('complementary', { name: 'Conversations' })
    .getByRole('listitem')
    .filter({ hasText: sender.name })
    .click();
  const log = page.getByRole('log', { name: `Messages with ${sender.name}` });
  await expectThumbnailOpens(page, log, name);
});

test('offline, an image never opened says it needs a connection, and loads once back online, at 1280 and 375 px', async ({
  browser,
}) => {
  const sender = await registerPerson('Offline Olga');
  const reader = await registerPerson('Offline Otto');
  const api = await createApiClient(sender.email, sender.password);
  const conversationId = await startConversation(api, reader);
  const name = `site-photo-${unique()}.png`;
  const sent = await api.request.post(`/api/direct-messages/conversations/${conversationId}/messages`, {
    multipart: { text: 'Photo from the site visit', files: { name, mimeType: 'image/png', buffer: iconPng } },
  });
  expect(sent.status()).toBe(201);
  await api.dispose();

  for (const viewport of [desktopViewport, phoneViewport]) {
    const [context, page] = await openDevice(browser, reader, viewport);
    await page.goto('/direct-messages');
    const conversation = page
      .getByRole('complementary', { name: 'Conversations' })
      .getByRole('listitem')
      .filter({ hasText: sender.name });
    await expect(conversation).toBeVisible();
    await goOffline(context);
    await conversation.click();
    const log = page.getByRole('log', { name: `Messages with ${sender.name}` });
    const placeholder = log.getByRole('img', { name: `${name}: Image not available offline` });
    await expect(placeholder).toBeVisible();
    await expect(placeholder).toContainText('Image not available offline');
    await expect(log.getByRole('button', { name: `Open ${name}` })).toHaveCount(0);
    expect(await seriousAxeProblems(page)).toEqual([]);
    await expectNoSidewaysScroll(page);
    await saveScreen(page, `image-offline-${viewport.width}`);

    await goOnline(context);
    await expect(placeholder).toHaveCount(0);
    await expectThumbnailOpens(page, log, name);
    await context.close();
  }
});
