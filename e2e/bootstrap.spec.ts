import type { Route } from '@playwright/test';
import {
  expect,
  phoneViewport,
  registerPerson,
  saveScreen,
  saveViewport,
  seriousAxeProblems,
  signIn,
  test,
} from './fixtures';

// Issue 14, point 5: a first sign-in downloads the workspace in pages of one snapshot, shows how far it is,
// and a page lost on the way is asked for again with its token instead of starting over. The pages are made
// small here (the route rewrites the limit) and a little slow, so the progress can be seen and a page broken.

test('a first sign-in downloads the workspace in pages, shows the progress, and resumes after a broken page', async ({
  page,
}) => {
  const person = await registerPerson('Bea Bootstrap');
  const bootstrapRequests: URLSearchParams[] = [];
  let broken = false;
  // About seven pages, whatever the size of the shared server's data: the first page tells the total.
  let limit = 3;
  await page.route('**/api/sync/pull?**', async (route: Route) => {
    const url = new URL(route.request().url());
    if (url.searchParams.get('cursor') !== '0') return route.continue();
    url.searchParams.set('limit', String(limit));
    bootstrapRequests.push(new URLSearchParams(url.search));
    // The link drops once, on the third page.
    if (bootstrapRequests.length === 3 && !broken) {
      broken = true;
      return route.abort('connectionreset');
    }
    const response = await route.fetch({ url: url.toString() });
    const { bootstrap } = (await response.json()) as { bootstrap: { total: number } | null };
    limit = Math.max(3, Math.ceil((bootstrap?.total ?? 0) / 7));
    await new Promise((resolve) => setTimeout(resolve, 300));
    return route.fulfill({ response });
  });

  await signIn(page, person.email, person.password);
  const progress = page.getByRole('region', { name: 'Getting your workspace ready for offline use' });
  await expect(progress).toBeVisible();
  await expect(progress.getByRole('status')).toHaveText(/^[\d,]+ of [\d,]+ items downloaded$/);
  await expect(
    progress.getByRole('progressbar', { name: 'Getting your workspace ready for offline use' }),
  ).toBeVisible();
  await saveScreen(page, 'bootstrap-progress-desktop');
  await page.setViewportSize(phoneViewport);
  await expect(progress).toBeVisible();
  await saveScreen(page, 'bootstrap-progress-phone');
  await page.setViewportSize({ width: 1280, height: 800 });
  const heading = page.getByRole('main').getByRole('heading', { level: 1 });
  const headingAt = (await heading.boundingBox())?.y;
  const cardHeight = (await progress.boundingBox())?.height;

  await expect(progress).toBeHidden({ timeout: 90_000 });
  // The card says it is done in the same place and size: nothing under the pointer moved.
  const done = page.getByRole('region', { name: 'Your workspace is ready for offline use' });
  await expect(done.getByRole('status')).toHaveText(/^All [\d,]+ items are on this device\.$/);
  expect((await done.boundingBox())?.height).toBe(cardHeight);
  expect((await heading.boundingBox())?.y).toBe(headingAt);
  await saveScreen(page, 'bootstrap-done-desktop');
  expect(await seriousAxeProblems(page, 'main')).toEqual([]);
  await page.setViewportSize(phoneViewport);
  await saveScreen(page, 'bootstrap-done-phone');
  expect(await seriousAxeProblems(page, 'main')).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 800 });
  await done.getByRole('button', { name: 'Dismiss' }).click();
  await expect(done).toBeHidden();
  await expect(page.getByRole('main')).toBeFocused();
  const tokens = bootstrapRequests.map((query) => query.get('snapshot'));
  expect(tokens[0]).toBeNull();
  expect(tokens.length).toBeGreaterThanOrEqual(4);
  // The broken page was asked for again with the same token; no page was asked for twice otherwise.
  expect(tokens[3]).toBe(tokens[2]);
  expect(new Set(tokens.slice(3)).size).toBe(tokens.length - 3);
  // Everything arrived: the whole team is in the directory.
  await page.goto('/team-members');
  await expect(page.getByRole('heading', { name: /Team Members/ })).toBeVisible();
  await expect(page.getByText(person.email)).toBeVisible();
});

test('a message sent during the first download reaches the server between its pages, not after the last', async ({
  page,
  apiAs,
}) => {
  const person = await registerPerson('Dana Download');
  const text = `Sent while the workspace downloads ${Math.random().toString(36).slice(2, 8)}`;
  /** `page` for each bootstrap page asked for, `push` for each push, in the order they were sent. */
  const sent: ('page' | 'push')[] = [];
  let messageSent!: () => void;
  const typed = new Promise<void>((resolve) => (messageSent = resolve));
  let limit = 3;
  await page.route('**/api/sync/push', (route: Route) => {
    sent.push('push');
    return route.continue();
  });
  await page.route('**/api/sync/pull?**', async (route: Route) => {
    const url = new URL(route.request().url());
    if (url.searchParams.get('cursor') !== '0') return route.continue();
    // From the third page on, the download waits until the message is sent: it is written mid-download.
    if (sent.filter((call) => call === 'page').length >= 2) await typed;
    sent.push('page');
    url.searchParams.set('limit', String(limit));
    const response = await route.fetch({ url: url.toString() });
    const { bootstrap } = (await response.json()) as { bootstrap: { total: number } | null };
    limit = Math.max(3, Math.ceil((bootstrap?.total ?? 0) / 8));
    return route.fulfill({ response });
  });

  await signIn(page, person.email, person.password);
  const progress = page.getByRole('region', { name: 'Getting your workspace ready for offline use' });
  await expect(progress).toBeVisible();
  await page.getByRole('complementary', { name: 'Sidebar' }).getByRole('link', { name: 'Chat' }).click();
  const composer = page.getByRole('combobox', { name: 'Type your message...' });
  await composer.fill(text);
  await composer.press('Enter');
  await expect(composer).toHaveValue('');
  messageSent();

  const mine = page.getByRole('log', { name: 'Team chat messages' }).locator('li[data-message-id]', { hasText: text });
  await expect(mine).toHaveCount(1);
  await saveViewport(page, 'bootstrap-chat-sent-desktop');
  await expect(mine.getByRole('img', { name: 'Pending sync' })).toHaveCount(0, { timeout: 30_000 });
  await expect(progress).toBeHidden({ timeout: 90_000 });
  // The push went out between two pages of the download.
  expect(sent.indexOf('push')).toBeGreaterThan(1);
  expect(sent.indexOf('push')).toBeLessThan(sent.lastIndexOf('page'));
  await expect(mine).toHaveCount(1);
  const api = await apiAs(person.email, person.password);
  const answer = await api.get<{ messages: { text: string }[] }>('/api/messages');
  expect(answer.body.messages.filter((message) => message.text === text)).toHaveLength(1);

  // Done, the card stays until the next page; the chat, one screen high, leaves it room: the composer stays on
  // screen, on a phone too.
  const done = page.getByRole('region', { name: 'Your workspace is ready for offline use' });
  await expect(done).toBeVisible();
  const composerOnFirstScreen = async () => {
    // From the top of the page, as it opens: the focused composer would otherwise be scrolled into view.
    await composer.blur();
    await page.evaluate(() => window.scrollTo(0, 0));
    await expect(composer).toBeInViewport({ ratio: 1 });
  };
  await composerOnFirstScreen();
  await page.setViewportSize(phoneViewport);
  await composerOnFirstScreen();
  await saveViewport(page, 'bootstrap-done-chat-phone');
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByRole('complementary', { name: 'Sidebar' }).getByRole('link', { name: 'My Tasks' }).click();
  await expect(page.getByRole('main').getByRole('heading', { level: 1 })).toHaveText(/My Tasks/);
  await expect(done).toBeHidden();
});
