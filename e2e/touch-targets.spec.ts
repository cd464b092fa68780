import type { Locator, Page } from '@playwright/test';
import { createTask, postChat, sendDirectMessage, startConversation, unique } from './api-helpers';
import {
  demoUsers,
  desktopViewport,
  expect,
  openDevice,
  openRoute,
  phoneViewport,
  registerPerson,
  saveScreen,
  signIn,
  test,
  type ApiClient,
} from './fixtures';

// Target size (WCAG 2.2, 2.5.8, issue 41): every control on the main screens is at least 24 by 24 px, or has the
// criterion's spacing (a 24 px circle on its centre reaches no other control), beside long messages on a phone too;
// and on a touch screen a long press on a message opens its reaction picker.

/** WCAG 2.2 2.5.8: the minimum target size, in CSS pixels. */
const minimumPx = 24;

/**
 * The controls shown now that are smaller than 24 by 24 px (as far as their clipping ancestors let them show)
 * without the criterion's spacing exception, and that are not inline in a sentence; one line each.
 */
function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate((minimum) => {
    const selector = [
      'a[href]',
      'button',
      'input:not([type="hidden"])',
      'select',
      'textarea',
      'summary',
      '[role="button"]',
      '[role="link"]',
      '[role="checkbox"]',
      '[role="switch"]',
      '[role="tab"]',
      '[role="menuitem"]',
      '[role="option"]',
    ].join(',');

    /**
     * The element's box as a finger meets it: cut at the sides by ancestors that hide their overflow (not ones that
     * scroll) and by the window; null when nothing of it is in view (scrolled away inside a list, or off screen).
     */
    const shownBox = (element: Element): DOMRect | null => {
      const full = element.getBoundingClientRect();
      let { left, right } = full;
      let view = new DOMRect(0, 0, document.documentElement.clientWidth, window.innerHeight);
      for (let parent = element.parentElement; parent; parent = parent.parentElement) {
        const style = getComputedStyle(parent);
        if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
        const box = parent.getBoundingClientRect();
        if (style.overflowX === 'hidden' || style.overflowX === 'clip') {
          left = Math.max(left, box.left);
          right = Math.min(right, box.right);
        }
        const viewLeft = Math.max(view.left, box.left);
        const viewTop = Math.max(view.top, box.top);
        view = new DOMRect(
          viewLeft,
          viewTop,
          Math.min(view.right, box.right) - viewLeft,
          Math.min(view.bottom, box.bottom) - viewTop,
        );
      }
      left = Math.max(left, 0);
      right = Math.min(right, document.documentElement.clientWidth);
      const inView =
        full.right > view.left && full.left < view.right && full.bottom > view.top && full.top < view.bottom;
      return inView ? new DOMRect(left, full.top, Math.max(0, right - left), full.height) : null;
    };
    /** A link inside running text: the criterion's inline exception. */
    const inSentence = (element: Element): boolean =>
      getComputedStyle(element).display === 'inline' &&
      Array.from(element.parentElement?.childNodes ?? []).some(
        (node) => node.nodeType === Node.TEXT_NODE && (node.textContent ?? '').trim() !== '',
      );
    const nameOf = (element: Element): string =>
      (element.getAttribute('aria-label') ?? element.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40) ||
      element.getAttribute('placeholder') ||
      element.outerHTML.slice(0, 60);

    const centre = (box: DOMRect) => ({ x: box.left + box.width / 2, y: box.top + box.height / 2 });
    const targets = Array.from(document.querySelectorAll(selector))
      .filter((element) => !element.closest('[inert]') && getComputedStyle(element).visibility !== 'hidden')
      .map((element) => ({ element, box: shownBox(element), full: element.getBoundingClientRect() }))
      // In view, laid out, and not visually hidden (1 px, clipped) behind a label that is the target.
      .filter(
        (entry): entry is { element: Element; box: DOMRect; full: DOMRect } =>
          entry.box !== null && entry.full.width > 1 && entry.full.height > 1,
      )
      // Not under a dialog or another layer: a finger at its centre meets it.
      .filter(({ element, box }) => {
        const point = centre(box);
        if (point.x < 0 || point.y < 0 || point.x >= window.innerWidth || point.y >= window.innerHeight) return true;
        const hit = document.elementFromPoint(point.x, point.y);
        return hit !== null && (element.contains(hit) || hit.contains(element));
      });

    const distanceToBox = (point: { x: number; y: number }, box: DOMRect): number => {
      const dx = Math.max(box.left - point.x, 0, point.x - box.right);
      const dy = Math.max(box.top - point.y, 0, point.y - box.bottom);
      return Math.hypot(dx, dy);
    };
    const small = targets.filter(
      ({ element, box }) => (box.width < minimum - 0.01 || box.height < minimum - 0.01) && !inSentence(element),
    );
    return small
      .filter(({ element, box }) => {
        // The spacing exception: a 24 px circle on the target's centre reaches no other target, nor the circle of
        // another small one.
        const point = centre(box);
        return targets.some(
          (other) =>
            other.element !== element &&
            !other.element.contains(element) &&
            !element.contains(other.element) &&
            (distanceToBox(point, other.box) < minimum / 2 ||
              (small.some((entry) => entry.element === other.element) &&
                Math.hypot(point.x - centre(other.box).x, point.y - centre(other.box).y) < minimum)),
        );
      })
      .map(
        ({ element, box }) =>
          `${element.tagName.toLowerCase()} "${nameOf(element)}" ${box.width.toFixed(1)}x${box.height.toFixed(1)}`,
      );
  }, minimumPx);
}

/** A long message: a phone's bubble fills the row with it. */
const longText = (tag: string): string =>
  `${tag} Here is the full summary of the quarterly planning meeting with every action item, owner and deadline ` +
  'we agreed on, so that nobody has to dig through the notes again: budgets by Friday, hiring plan next week, ' +
  'and the office move checklist before the end of the month. Averyveryveryverylongwordwithoutanyspacesatall.';

async function react(api: ApiClient, messageId: string, emoji: string): Promise<void> {
  const answer = await api.put(`/api/messages/${messageId}/reactions/${encodeURIComponent(emoji)}`, { on: true });
  expect(answer.status, 'reacting over HTTP').toBe(200);
}

const messageItem = (page: Page, id: string): Locator => page.locator(`li[data-message-id="${id}"]`);

for (const { name: width, viewport } of [
  { name: '375', viewport: phoneViewport },
  { name: '1280', viewport: desktopViewport },
] as const) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport });

    test('every control on the main screens is at least 24 by 24 px, or spaced as WCAG 2.5.8 allows, beside long messages too', async ({
      page,
      browser,
      apiAs,
    }) => {
      test.setTimeout(150_000);
      const found: string[] = [];
      const check = async (where: string) => {
        found.push(...(await smallTargets(page)).map((problem) => `${width} ${where}: ${problem}`));
        await saveScreen(page, `targets-${width}-${where.replace(/\W+/g, '-')}`, { fullPage: false });
      };
      const self = await registerPerson('Tara Target');
      const friend = await registerPerson('Finn Target');
      const selfApi = await apiAs(self.email, self.password);
      const friendApi = await apiAs(friend.email, friend.password);
      const manager = await apiAs(demoUsers.manager.email);
      const tag = unique();
      await createTask(manager, {
        title: `Plan the office move ${tag}`,
        assignedTo: self.id,
        description: 'Boxes, labels and the new seating plan.',
      });
      const theirs = await postChat(friendApi, longText(tag));
      const mine = await postChat(selfApi, longText(tag));
      await react(friendApi, mine, '👍');
      const conversation = await startConversation(selfApi, friend);
      await sendDirectMessage(friendApi, conversation, longText(tag));
      await sendDirectMessage(selfApi, conversation, longText(tag));

      await signIn(page, self.email, self.password);
      await openRoute(page, '/dashboard');
      await check('dashboard');
      await page.getByRole('button', { name: /^Notifications/ }).click();
      await expect(page.getByRole('dialog', { name: 'Notifications' })).toBeVisible();
      await check('notifications');
      await page.keyboard.press('Escape');
      if (width === '375') {
        await page.getByRole('button', { name: 'Open menu' }).click();
        await expect(page.getByRole('navigation', { name: 'Main navigation' })).toBeVisible();
        await check('menu');
        await page.keyboard.press('Escape');
      }

      await openRoute(page, '/tasks');
      await check('tasks');
      await page.getByRole('button', { name: `Plan the office move ${tag}`, exact: true }).click();
      await expect(page.getByRole('dialog')).toBeVisible();
      await check('task detail');
      await page.keyboard.press('Escape');
      await openRoute(page, '/my-tasks');
      await check('my tasks');
      await page.getByRole('button', { name: `Update status of Plan the office move ${tag}` }).click();
      await expect(page.getByRole('dialog', { name: 'Update Task Status' })).toBeVisible();
      await check('update status');
      await page.keyboard.press('Escape');
      await openRoute(page, '/team-members');
      await check('team members');
      await openRoute(page, '/profile-settings');
      await check('profile');

      // Team Chat at the long messages, each with its reaction button; one with a reaction.
      await page.goto(`/chat?message=${theirs}`);
      await expect(messageItem(page, theirs)).toBeVisible();
      await check('chat, their long message');
      await page.goto(`/chat?message=${mine}`);
      await expect(messageItem(page, mine).getByRole('list', { name: 'Reactions' })).toBeVisible();
      await messageItem(page, mine).locator('p').hover();
      await check('chat, own long message with a reaction');
      await messageItem(page, mine).getByRole('button', { name: 'Add reaction', exact: true }).click();
      await expect(messageItem(page, mine).getByRole('group', { name: 'Choose a reaction' })).toBeVisible();
      await check('chat, reaction picker');
      await page.keyboard.press('Escape');

      await openRoute(page, '/direct-messages');
      await check('conversations');
      await page.getByRole('list', { name: 'Conversations' }).getByRole('button', { name: friend.name }).click();
      const log = page.getByRole('log', { name: `Messages with ${friend.name}` });
      await expect(log.locator('li[data-message-id]')).toHaveCount(2);
      await check('conversation with long messages');

      // The manager's screen of their own, on their device.
      const [managerContext, managerPage] = await openDevice(browser, demoUsers.manager, viewport);
      await openRoute(managerPage, '/employees');
      found.push(...(await smallTargets(managerPage)).map((problem) => `${width} employees: ${problem}`));
      await saveScreen(managerPage, `targets-${width}-employees`, { fullPage: false });
      await managerContext.close();

      expect(found, found.join('\n')).toEqual([]);
    });
  });
}

test.describe('on a touch screen', () => {
  test.use({ viewport: phoneViewport, hasTouch: true, isMobile: true });

  /** Rests a finger on the middle of `target` (real touch events, through the DevTools protocol) until `until` shows. */
  async function longPress(page: Page, target: Locator, until: Locator): Promise<void> {
    const box = await target.boundingBox();
    if (!box) throw new Error('the message has no layout');
    const finger = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [finger] });
    // The finger stays down until the picker shows: it opens on the press itself, not on lifting the finger.
    await expect(until).toBeVisible();
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await cdp.detach();
  }

  test('a long press on a message opens its reaction picker, in team chat and in a conversation', async ({
    page,
    apiAs,
  }) => {
    const self = await registerPerson('Lola Longpress');
    const friend = await registerPerson('Pia Press');
    const selfApi = await apiAs(self.email, self.password);
    const friendApi = await apiAs(friend.email, friend.password);
    const tag = unique();
    const chatId = await postChat(friendApi, `Press and hold this one ${tag}`);
    const conversation = await startConversation(friendApi, self);
    await sendDirectMessage(friendApi, conversation, `And hold this one too ${tag}`);
    await signIn(page, self.email, self.password);

    await page.goto(`/chat?message=${chatId}`);
    const item = messageItem(page, chatId);
    const picker = item.getByRole('group', { name: 'Choose a reaction' });
    await longPress(page, item.locator('p'), picker);
    // Lifting the finger keeps it open; it holds the focus, as when the button opens it.
    await expect(picker).toBeVisible();
    await expect(picker.getByRole('button', { name: 'Add reaction 👍' })).toBeFocused();
    await expect(item.getByRole('button', { name: 'Add reaction', exact: true })).toHaveAttribute(
      'aria-expanded',
      'true',
    );
    await saveScreen(page, 'targets-375-long-press-chat', { fullPage: false });
    await picker.getByRole('button', { name: 'Add reaction 👍' }).tap();
    await expect(picker).toBeHidden();
    await expect(item.getByRole('button', { name: /^👍 1: You\. Remove your reaction/ })).toBeVisible();
    await expect
      .poll(async () => {
        const answer = await selfApi.get<{
          messages: { id: string; reactions: { emoji: string; userIds: string[] }[] }[];
        }>('/api/messages');
        return answer.body.messages.find((message) => message.id === chatId)?.reactions;
      })
      .toEqual([{ emoji: '👍', userIds: [self.id] }]);

    await page.goto('/direct-messages');
    await page.getByRole('list', { name: 'Conversations' }).getByRole('button', { name: friend.name }).click();
    const direct = page.getByRole('log', { name: `Messages with ${friend.name}` }).locator('li[data-message-id]');
    const directPicker = direct.getByRole('group', { name: 'Choose a reaction' });
    await longPress(page, direct.locator('p'), directPicker);
    await directPicker.getByRole('button', { name: 'Add reaction ❤️' }).tap();
    await expect(direct.getByRole('button', { name: /^❤️ 1: You\. Remove your reaction/ })).toBeVisible();
    await expect
      .poll(async () => {
        const answer = await selfApi.get<{ messages: { reactions: { emoji: string; userIds: string[] }[] }[] }>(
          `/api/direct-messages/conversations/${conversation}/messages`,
        );
        return answer.body.messages[0]?.reactions;
      })
      .toEqual([{ emoji: '❤️', userIds: [self.id] }]);
  });
});
