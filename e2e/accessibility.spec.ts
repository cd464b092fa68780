import type { Page } from '@playwright/test';
import { demoUsers, desktopViewport, expect, phoneViewport, saveScreen, signIn, test, wcagAudit } from './fixtures';

/** The serious and critical violations axe finds on what the page shows now, one line each. */
async function audit(page: Page, where: string): Promise<string[]> {
  // A panel still fading in has its text at part opacity: axe would measure a contrast nobody reads.
  await page.waitForFunction(() =>
    document
      .getAnimations()
      .every((animation) => animation.playState !== 'running' || animation.effect?.getTiming().iterations === Infinity),
  );
  const results = await wcagAudit(page).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${where}: ${violation.id} (${violation.impact ?? ''}) on ${violation.nodes.length}: ${violation.nodes
          .slice(0, 4)
          .map((node) => `${node.target.join(' ')} [${node.failureSummary?.split('\n')[1]?.trim() ?? ''}]`)
          .join(' | ')}`,
    );
}

const widths = [
  { name: '1280', viewport: desktopViewport },
  { name: '375', viewport: phoneViewport },
] as const;

const roles = [
  { role: 'manager', person: demoUsers.manager },
  { role: 'admin', person: demoUsers.admin },
  { role: 'employee', person: demoUsers.bob },
] as const;

/** Opens a route and waits until its heading shows and nothing says it is still loading. */
async function openRoute(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(page.getByText(/^Loading/)).toHaveCount(0);
}

for (const { name: width, viewport } of widths) {
  test.describe(`axe at ${width} px`, () => {
    test.use({ viewport });

    test('login and signup', async ({ page }) => {
      const found: string[] = [];
      await page.goto('/login');
      await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
      found.push(...(await audit(page, 'login')));
      await page.goto('/signup');
      await expect(page.getByRole('button', { name: 'Create account' })).toBeVisible();
      found.push(...(await audit(page, 'signup')));
      expect(found, found.join('\n')).toEqual([]);
    });

    for (const { role, person } of roles) {
      test(`every screen and dialog of the ${role}`, async ({ page }) => {
        test.setTimeout(180_000);
        const found: string[] = [];
        const check = async (where: string) => {
          found.push(...(await audit(page, `${role} ${width} ${where}`)));
          await saveScreen(page, `axe-${role}-${width}-${where.replace(/\W+/g, '-')}`);
        };
        await signIn(page, person.email);

        await openRoute(page, '/dashboard');
        await check('dashboard');

        // The bell's panel.
        await page.getByRole('button', { name: /^Notifications/ }).click();
        await expect(page.getByRole('dialog', { name: 'Notifications' })).toBeVisible();
        await check('dashboard bell');
        await page.keyboard.press('Escape');

        if (width === '375') {
          await page.getByRole('button', { name: 'Open menu' }).click();
          await expect(page.getByRole('navigation', { name: 'Main navigation' })).toBeVisible();
          await check('mobile menu');
          await page.keyboard.press('Escape');
        }

        await openRoute(page, '/tasks');
        await check('tasks');
        if (role !== 'employee') {
          await page.getByRole('button', { name: 'Create Task' }).click();
          await expect(page.getByRole('dialog', { name: 'Create Task' })).toBeVisible();
          await check('create task');
          await page.keyboard.press('Escape');
        }
        await page.getByRole('list', { name: 'Tasks' }).getByRole('listitem').first().locator('h3 button').click();
        await expect(page.getByRole('dialog')).toBeVisible();
        await check('task detail');
        await page.keyboard.press('Escape');

        if (role === 'employee') {
          await openRoute(page, '/my-tasks');
          await check('my tasks');
          await page
            .getByRole('button', { name: /^Update status of / })
            .first()
            .click();
          await expect(page.getByRole('dialog')).toBeVisible();
          await check('update status');
          await page.keyboard.press('Escape');
        }

        if (role === 'manager') {
          await openRoute(page, '/employees');
          await check('employees');
          await page
            .getByRole('button', { name: /^View details for / })
            .first()
            .click();
          await expect(page.getByRole('dialog')).toBeVisible();
          await check('employee detail');
          await page.keyboard.press('Escape');
          await page
            .getByRole('button', { name: /^Delete / })
            .first()
            .click();
          await expect(page.getByRole('dialog', { name: 'Delete Employee' })).toBeVisible();
          await check('delete employee');
          await page.keyboard.press('Escape');
        }

        await openRoute(page, '/team-members');
        await check('team members');

        await openRoute(page, '/chat');
        await check('chat');
        if (width === '375') {
          await page.getByRole('button', { name: 'Show team members' }).click();
          await check('chat members');
        }

        await openRoute(page, '/direct-messages');
        await check('direct messages');
        await page.getByRole('button', { name: 'New conversation' }).click();
        await expect(page.getByRole('dialog', { name: 'Start New Conversation' })).toBeVisible();
        await check('new conversation');
        await page.keyboard.press('Escape');
        const conversations = page.getByRole('list', { name: 'Conversations' }).getByRole('button');
        if ((await conversations.count()) > 0) {
          await conversations.first().click();
          await expect(page.getByRole('log')).toBeVisible();
          await check('conversation');
        }

        await openRoute(page, '/profile-settings');
        await check('profile');
        await page.getByRole('button', { name: 'Edit' }).click();
        await page.getByRole('button', { name: 'Change Password' }).click();
        await check('profile editing');

        expect(found, found.join('\n')).toEqual([]);
      });
    }
  });
}
