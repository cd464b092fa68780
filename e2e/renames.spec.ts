import type { Locator, Page } from '@playwright/test';
import { demoUsers, expect, registerPerson, saveScreen, signIn, test } from './fixtures';
import { createTask, sendDirectMessage, startConversation, unique } from './api-helpers';

// A person's name comes from the local users table by id on every screen (issue 16): a rename made on
// another device shows on the task cards, the dashboard, the task detail (assignee, history, comments),
// the chat, the direct messages and the notifications, without a reload, and the old name is gone.

/** The page shows the new name and nowhere the old one. */
async function expectRenamed(page: Page, before: string, after: string): Promise<void> {
  const main = page.locator('main');
  await expect(main.getByText(after).first()).toBeVisible();
  await expect(main.getByText(before)).toHaveCount(0);
}

const row = (region: Locator, text: string): Locator => region.getByRole('listitem').filter({ hasText: text });

test('a rename on another device shows on every screen of this one, live', async ({ page, apiAs }) => {
  test.setTimeout(120_000);
  const manager = await apiAs(demoUsers.manager.email);
  const person = await registerPerson('Rita Rename');
  const rita = await apiAs(person.email, person.password);
  const tag = unique();
  const title = `Rename check ${tag}`;

  // Rita leaves her name around: an assigned task with her status change and comment, a chat message,
  // and a direct message to the manager (his notification).
  const task = await createTask(manager, { title, assignedTo: person.id });
  expect((await rita.put(`/api/tasks/${task.id}`, { status: 'working', note: 'On it' })).status).toBe(200);
  expect((await rita.post(`/api/tasks/${task.id}/comments`, { text: `First comment ${tag}` })).status).toBe(201);
  expect((await rita.post('/api/messages', { text: `Hello team ${tag}` })).status).toBe(201);
  const conversationId = await startConversation(rita, manager.user);
  await sendDirectMessage(rita, conversationId, `Hello Maya ${tag}`);

  await signIn(page, demoUsers.manager.email);
  // The dashboard shows her newest task and chat message under her name (other spec files add tasks
  // and messages too, so both are looked at right away, while they are among the newest).
  const recent = page.getByRole('region', { name: 'Recent Tasks' });
  const chat = page.getByRole('region', { name: 'Team Chat' });
  await expect(row(recent, title)).toContainText(person.name);
  await expect(row(chat, `Hello team ${tag}`)).toContainText(person.name);

  // Rita renames herself on her device.
  const renamed = `Rita Renamed ${tag.slice(-6)}`;
  expect((await rita.put('/api/auth/updatedetails', { name: renamed, email: person.email })).status).toBe(200);

  await test.step('dashboard: recent tasks and the chat preview, live', async () => {
    await expect(row(recent, title)).toContainText(renamed);
    await expect(row(chat, `Hello team ${tag}`)).toContainText(renamed);
    await expect(row(chat, `Hello team ${tag}`).getByRole('img', { name: `${renamed} avatar` })).toHaveText('RR');
    await expectRenamed(page, person.name, renamed);
  });

  await test.step('task card and task detail', async () => {
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Tasks' }).click();
    const card = page
      .getByRole('list', { name: 'Tasks', exact: true })
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: title }) });
    await expect(card.getByText(renamed, { exact: true })).toBeVisible();
    await expect(card.getByRole('img', { name: `${renamed} avatar` })).toHaveText('RR');
    await card.getByRole('button', { name: title, exact: true }).click();
    const dialog = page.getByRole('dialog', { name: title });
    await expect(dialog).toBeVisible();
    // Assignee, the status history's author and the comment's author.
    await expect.poll(async () => ((await dialog.textContent()) ?? '').split(renamed).length - 1).toBe(3);
    await expect(dialog).not.toContainText(person.name);
    await page.keyboard.press('Escape');
  });

  await test.step('the bell', async () => {
    await page.getByRole('button', { name: /^Notifications/ }).click();
    const panel = page.getByRole('dialog', { name: 'Notifications' });
    const notice = panel.getByRole('button').filter({ hasText: `Hello Maya ${tag}`.slice(0, 30) });
    await expect(notice).toContainText(`New Direct Message from ${renamed}`);
    // Nowhere in the list, messages included ("… changed the status").
    await expect(panel).not.toContainText(person.name);
    await saveScreen(page, 'renames-bell-1280');
    await page.keyboard.press('Escape');
  });

  await test.step('team chat and direct messages', async () => {
    await page.goto('/chat');
    const message = page
      .getByRole('log', { name: 'Team chat messages' })
      .getByRole('listitem')
      .filter({
        hasText: `Hello team ${tag}`,
      });
    await expect(message).toContainText(renamed);
    await expect(message).not.toContainText(person.name);

    await page.goto('/direct-messages');
    const conversation = page
      .getByRole('list', { name: 'Conversations' })
      .getByRole('button', { name: new RegExp(renamed) });
    await expect(conversation).toBeVisible();
    await conversation.click();
    await expect(page.getByRole('heading', { level: 2, name: renamed })).toBeVisible();
    await expectRenamed(page, person.name, renamed);
  });
});
