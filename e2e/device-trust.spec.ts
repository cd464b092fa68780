import { request, type Browser, type BrowserContext, type Page } from '@playwright/test';
import {
  baseUrl,
  desktopViewport,
  expect,
  phoneViewport,
  registerPerson,
  saveScreen,
  skipSplash,
  test,
} from './fixtures';
import { unique } from './api-helpers';

// Issue 43.1, OWASP's device cookies: a browser that signed in as an account keeps a signed proof of it (an
// HttpOnly cookie the page cannot read) past logout, and signs in as that account even after its office's
// address hit the failed sign-in limit; another browser behind the same address is slowed to one attempt per
// 10 s for the whole address instead. The server trusts loopback's X-Forwarded-For (playwright.config.ts), so
// this test's browsers sit behind an address of their own and the other tests' sign-ins are not slowed.

/** A browser behind the office's address, at `viewport`. */
async function officeBrowser(
  browser: Browser,
  office: string,
  viewport: { width: number; height: number } = desktopViewport,
): Promise<[BrowserContext, Page]> {
  const context = await browser.newContext({ viewport, extraHTTPHeaders: { 'X-Forwarded-For': office } });
  await skipSplash(context);
  return [context, await context.newPage()];
}

async function submitSignIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** 100 failed sign-ins from `office` over 25 unknown emails (4 each, under the per-email limit), then one more. */
async function exhaustAddress(office: string): Promise<void> {
  const api = await request.newContext({ baseURL: baseUrl(), extraHTTPHeaders: { 'X-Forwarded-For': office } });
  const tag = unique();
  for (let batch = 0; batch < 25; batch++) {
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        api.post('/api/auth/login', { data: { email: `guess.${batch}.${tag}@example.com`, password: 'guessed' } }),
      ),
    );
    expect(answers.map((answer) => answer.status())).toEqual([401, 401, 401, 401]);
  }
  // Past the limit the address gets one attempt per 10 s: the attacker's next guess takes it.
  expect(
    (await api.post('/api/auth/login', { data: { email: `guess.last.${tag}@example.com`, password: 'x' } })).status(),
  ).toBe(401);
  await api.dispose();
}

test('a browser that signed in before gets in after its address hit the failure limit; a new one is told to wait', async ({
  browser,
}) => {
  test.slow();
  const office = `203.0.113.${Math.floor(Math.random() * 200) + 20}`;
  const person = await registerPerson('Dee Vice');
  const [trustedContext, trusted] = await officeBrowser(browser, office);
  const [strangerContext, stranger] = await officeBrowser(browser, office, phoneViewport);

  await test.step('signing in keeps a device proof the page cannot read, and it outlives logout', async () => {
    await submitSignIn(trusted, person.email, person.password);
    await trusted.waitForURL('**/dashboard');
    const [proof] = (await trustedContext.cookies()).filter((cookie) => cookie.name === 'office_device');
    expect(proof).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/auth' });
    expect(await trusted.evaluate(() => document.cookie)).not.toContain('office_device');
    await trusted.getByRole('button', { name: 'Logout' }).click();
    await trusted.waitForURL('**/login');
    expect((await trustedContext.cookies()).some((cookie) => cookie.name === 'office_device')).toBe(true);
  });

  await exhaustAddress(office);

  await test.step('a browser without the proof, behind the same address, is told to wait a few seconds', async () => {
    await submitSignIn(stranger, person.email, person.password);
    await expect(stranger.getByRole('alert')).toContainText(
      /^Too many failed sign-in attempts from this network\. Please try again in \d+ seconds?\.$/,
    );
    await expect(stranger).toHaveURL(/\/login$/);
    await saveScreen(stranger, 'device-trust-slowed-375');
  });

  await test.step('the browser with the proof signs in at once and sends its proof', async () => {
    const sent = trusted.waitForRequest((req) => req.url().endsWith('/api/auth/login'));
    await submitSignIn(trusted, person.email, person.password);
    expect((await (await sent).allHeaders()).cookie ?? '').toContain('office_device=');
    await trusted.waitForURL('**/dashboard');
    await expect(trusted.getByRole('heading', { level: 1 })).toContainText('Dee Vice');
    await saveScreen(trusted, 'device-trust-signed-in-1280');
  });

  await trustedContext.close();
  await strangerContext.close();
});
