import type { Locator, Page } from '@playwright/test';
import { postChat, sendDirectMessage, startConversation, unique } from './api-helpers';
import {
  demoUsers,
  desktopViewport,
  expect,
  openRoute,
  phoneViewport,
  registerPerson,
  saveScreen,
  signIn,
  test,
  wcagAudit,
} from './fixtures';

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

/**
 * Holds `:active` (and `:hover`) on `target` through the DevTools protocol, as a finger or mouse button held down on
 * it would, without releasing a click. Returns the function that lets go.
 */
async function holdPressed(page: Page, target: Locator): Promise<() => Promise<void>> {
  await target.evaluate((element) => element.setAttribute('data-held', ''));
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('DOM.enable');
  await cdp.send('CSS.enable');
  const { root } = await cdp.send('DOM.getDocument');
  const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: '[data-held]' });
  await cdp.send('CSS.forcePseudoState', { nodeId, forcedPseudoClasses: ['active', 'hover'] });
  return async () => {
    await cdp.send('CSS.forcePseudoState', { nodeId, forcedPseudoClasses: [] });
    await cdp.detach();
    await target.evaluate((element) => element.removeAttribute('data-held'));
  };
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
          await page.getByRole('list', { name: 'My tasks' }).getByRole('listitem').first().locator('h3 button').click();
          await expect(page.getByRole('dialog')).toBeVisible();
          await check('my task detail');
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

    // Colours change with the state: what the first paint passes may fail hovered, pressed or selected.
    test('states beyond the first paint: hovered and pressed rows, the selected conversation, own messages with mentions', async ({
      page,
      apiAs,
    }) => {
      test.setTimeout(120_000);
      const found: string[] = [];
      const check = async (where: string) => {
        found.push(...(await audit(page, `${width} ${where}`)));
        await saveScreen(page, `axe-states-${width}-${where.replace(/\W+/g, '-')}`, { fullPage: false });
      };
      const self = await registerPerson('Stella State');
      const friend = await registerPerson('Felix State');
      const other = await registerPerson('Olga State');
      const selfApi = await apiAs(self.email, self.password);
      const friendApi = await apiAs(friend.email, friend.password);
      const tag = unique();
      const chatText = `@${friend.name} the report is ready ${tag}`;
      await postChat(selfApi, chatText);
      const withFriend = await startConversation(selfApi, friend);
      await sendDirectMessage(selfApi, withFriend, `@${friend.name} see the draft ${tag}`);
      await sendDirectMessage(friendApi, withFriend, `Thanks @${self.name}, reading it now ${tag}`);
      const withOther = await startConversation(selfApi, other);
      await sendDirectMessage(selfApi, withOther, `Lunch at noon? ${tag}`);
      await signIn(page, self.email, self.password);

      await openRoute(page, '/chat');
      // Other spec files post to the team chat meanwhile: the search keeps this test's message alone in the list.
      await page.getByRole('searchbox', { name: 'Search messages...' }).fill(tag);
      const ownMessage = page
        .getByRole('log', { name: 'Team chat messages' })
        .locator('li[data-message-id]')
        .filter({ hasText: tag });
      await expect(ownMessage).toHaveCount(1);
      await ownMessage.locator('p').hover();
      await check('chat own message with a mention, searched and hovered');

      await openRoute(page, '/direct-messages');
      const rows = page.getByRole('list', { name: 'Conversations' }).getByRole('button');
      const friendRow = rows.filter({ hasText: friend.name });
      const otherRow = rows.filter({ hasText: other.name });
      await otherRow.hover();
      await check('conversation row hovered');
      const release = await holdPressed(page, otherRow);
      await check('conversation row pressed');
      await release();

      await friendRow.click();
      const log = page.getByRole('log', { name: `Messages with ${friend.name}` });
      await expect(log.locator('li[data-message-id]')).toHaveCount(2);
      if (width === '1280') {
        await expect(friendRow).toHaveAttribute('aria-current', 'true');
        await friendRow.hover();
        await check('selected conversation hovered, own message with a mention');
      } else {
        await check('conversation, own message with a mention');
      }

      expect(found, found.join('\n')).toEqual([]);
    });
  });
}
