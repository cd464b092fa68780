import { request, type Locator, type Page } from '@playwright/test';
import {
  baseUrl,
  DEMO_PASSWORD,
  desktopViewport,
  expect,
  expectNoSidewaysScroll,
  phoneViewport,
  registerPerson,
  saveScreen,
  seriousAxeProblems,
  signIn,
  test,
} from './fixtures';
import { unique } from './api-helpers';

// Issue 43.5: a name cannot impersonate another member with look-alike letters, and where a name alone would
// decide whom one writes to or names (the new-conversation picker, a conversation's header, @mention
// suggestions) the person's department and email stand beside it. Two people may still share a name.

/** Registers a person under exactly `name` (no tag added): two of them may share it. */
async function registerNamed(name: string): Promise<{ name: string; email: string; password: string }> {
  const person = { name, email: `twin.${unique()}@demo.local`.toLowerCase(), password: DEMO_PASSWORD };
  const context = await request.newContext({ baseURL: baseUrl() });
  const response = await context.post('/api/auth/register', { data: person });
  expect(response.status()).toBe(201);
  await context.dispose();
  return person;
}

const picker = (page: Page): Locator => page.getByRole('dialog', { name: 'Start New Conversation' });
const suggestions = (page: Page): Locator => page.getByRole('listbox', { name: 'People to mention' });

for (const viewport of [desktopViewport, phoneViewport]) {
  test(`at ${viewport.width} px, two people of one name are told apart by their email in the picker, the header and mentions`, async ({
    page,
  }) => {
    test.slow();
    const twinName = `Sam Twin ${unique().slice(-6)}`;
    const first = await registerNamed(twinName);
    const second = await registerNamed(twinName);
    const me = await registerPerson('Wanda Writer');
    await page.setViewportSize(viewport);
    await signIn(page, me.email, me.password);

    await test.step('the new-conversation picker shows each one’s email under the name', async () => {
      await page.goto('/direct-messages');
      await page.getByRole('button', { name: 'New conversation' }).click();
      await picker(page).getByRole('searchbox', { name: 'Search users...' }).fill(twinName);
      const options = picker(page).getByRole('list', { name: 'Users' }).getByRole('button');
      await expect(options).toHaveCount(2);
      await expect(options.filter({ hasText: first.email })).toHaveCount(1);
      await expect(options.filter({ hasText: second.email })).toHaveCount(1);
      await expect(
        picker(page).getByRole('button', { name: `Start conversation with ${twinName}, ${second.email}` }),
      ).toBeVisible();
      expect(await seriousAxeProblems(page, '[role="dialog"]')).toEqual([]);
      await saveScreen(page, `who-is-who-picker-${viewport.width}`);
      await picker(page)
        .getByRole('button', { name: `Start conversation with ${twinName}, ${second.email}` })
        .click();
      await expect(picker(page)).toBeHidden();
    });

    await test.step('the conversation’s header names whom it is with by email too', async () => {
      const header = page.getByRole('region', { name: twinName }).locator('header');
      await expect(header).toContainText(twinName);
      await expect(header).toContainText(second.email);
      await expect(header).not.toContainText(first.email);
      await expectNoSidewaysScroll(page);
      await saveScreen(page, `who-is-who-header-${viewport.width}`);
    });

    await test.step('@ in the team chat offers both, each with its email', async () => {
      await page.goto('/chat');
      const composer = page.getByRole('combobox', { name: 'Type your message...' });
      await composer.pressSequentially(`@${twinName}`);
      const offered = suggestions(page).getByRole('option');
      await expect(offered).toHaveCount(2);
      await expect(offered.filter({ hasText: first.email })).toHaveCount(1);
      await expect(offered.filter({ hasText: second.email })).toHaveCount(1);
      expect(await seriousAxeProblems(page, '[role="listbox"]')).toEqual([]);
      await saveScreen(page, `who-is-who-mentions-${viewport.width}`);
    });
  });
}

test('signing up as "Mаya Manager" with a Cyrillic а is refused with a clear message', async ({ page }) => {
  await page.goto('/signup');
  await page.getByLabel('Full name').fill('M\u0430ya Manager');
  await page.getByLabel('Email', { exact: true }).fill(`impostor.${unique()}@example.com`.toLowerCase());
  await page.getByLabel('Password', { exact: true }).fill('secret99');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByRole('alert')).toHaveText(
    'This name looks like another member’s name written with look-alike letters. Please type your name with ordinary letters, or add something that tells you apart.',
  );
  await expect(page).toHaveURL(/\/signup$/);
  await saveScreen(page, 'who-is-who-lookalike-signup-1280');
  await page.setViewportSize(phoneViewport);
  await saveScreen(page, 'who-is-who-lookalike-signup-375');
});
