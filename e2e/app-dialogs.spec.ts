import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { createTask, unique } from './api-helpers';
import {
  demoUsers,
  desktopViewport,
  expect,
  fillDeviceStorage,
  goOffline,
  goOnline,
  openDevice,
  phoneViewport,
  registerPerson,
  saveViewport,
  seriousAxeProblems,
  test,
} from './fixtures';

// The app asks and tells in its own accessible dialogs, never the browser's confirm() or alert() (issue 41):
// deleting a task or a message, logging out with unsynced changes and a file that cannot be fetched each open an
// alertdialog named by its title and described by the spec's sentence, focus on the answer that keeps things as
// they are; a task or comment that cannot be stored says so inside its form.

const iconPng = readFileSync(resolve(import.meta.dirname, '../pwa/public/icons/icon-192.png'));

/** The app's dialog named `name`: focus is inside it, axe finds nothing serious, and a screenshot is kept. */
async function checkDialog(page: Page, name: string, shot: string): Promise<Locator> {
  const dialog = page.getByRole('alertdialog', { name });
  await expect(dialog).toBeVisible();
  await expect(dialog).toHaveAttribute('aria-modal', 'true');
  expect(await dialog.evaluate((element) => element.contains(document.activeElement))).toBe(true);
  expect(await seriousAxeProblems(page, '[role="alertdialog"]')).toEqual([]);
  await saveViewport(page, shot);
  return dialog;
}

/** Fails the test on any browser dialog: the app has none left. */
function refuseBrowserDialogs(page: Page, seen: string[]): void {
  page.on('dialog', (dialog) => {
    seen.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
}

test('deleting, a file that cannot be fetched and logging out with unsynced changes ask in the app’s dialogs, at 1280 and 375 px', async ({
  browser,
  apiAs,
}) => {
  test.slow();
  const manager = await apiAs(demoUsers.manager.email);
  const employee = await registerPerson('Dialog Dora');
  const tag = unique();
  const title = `Dialog check ${tag}`;
  await createTask(manager, { title, assignedTo: employee.id });
  const said = await manager.post<{ message: { id: string } }>('/api/messages', { text: `Dialog message ${tag}` });
  expect(said.status).toBe(201);
  const fileName = `floor-${tag}.png`;
  const upload = await manager.request.post('/api/messages/upload', {
    multipart: { text: `Dialog file ${tag}`, files: { name: fileName, mimeType: 'image/png', buffer: iconPng } },
  });
  expect(upload.status()).toBe(201);
  const fileMessage = ((await upload.json()) as { message: { id: string } }).message.id;

  for (const viewport of [desktopViewport, phoneViewport]) {
    const width = viewport.width;
    const [context, page] = await openDevice(browser, demoUsers.manager, viewport);
    const browserDialogs: string[] = [];
    refuseBrowserDialogs(page, browserDialogs);

    await test.step('Delete Task asks the spec’s question; Cancel keeps the task', async () => {
      await page.goto('/tasks');
      await page.getByRole('searchbox', { name: /^Search tasks/ }).fill(tag);
      const card = page.getByRole('list', { name: 'Tasks', exact: true }).getByRole('listitem');
      await expect(card).toHaveCount(1);
      await card.getByRole('button', { name: `Delete task ${title}` }).click();
      const dialog = await checkDialog(page, 'Delete Task', `dialog-delete-task-${width}`);
      await expect(dialog).toContainText('Are you sure you want to delete this task?');
      await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect(dialog).toHaveCount(0);
      await expect(card).toHaveCount(1);
    });

    await test.step('Delete Message asks the spec’s question; Escape keeps the message', async () => {
      await page.goto(`/chat?message=${said.body.message.id}`);
      const message = page.locator(`li[data-message-id="${said.body.message.id}"]`);
      await message.hover();
      await message.getByRole('button', { name: 'Message actions' }).click();
      await page.getByRole('menu', { name: 'Message actions' }).getByRole('menuitem', { name: 'Delete' }).click();
      const dialog = await checkDialog(page, 'Delete Message', `dialog-delete-message-${width}`);
      await expect(dialog).toContainText('Are you sure you want to delete this message?');
      await page.keyboard.press('Escape');
      await expect(dialog).toHaveCount(0);
      await expect(message).toHaveCount(1);
    });

    await test.step('a file the server refuses says the spec’s sentence in an alert dialog', async () => {
      await page.route('**/api/messages/download/**', (route) => route.fulfill({ status: 500, body: '' }));
      await page.goto(`/chat?message=${fileMessage}`);
      await page.getByRole('button', { name: `Download ${fileName}` }).click();
      const dialog = await checkDialog(page, 'Could not download the file', `dialog-file-failed-${width}`);
      await expect(dialog).toContainText('Failed to download file. Please try again.');
      await dialog.getByRole('button', { name: 'OK' }).click();
      await expect(dialog).toHaveCount(0);
      await page.unroute('**/api/messages/download/**');
    });

    expect(browserDialogs).toEqual([]);
    await context.close();
  }

  for (const viewport of [desktopViewport, phoneViewport]) {
    const width = viewport.width;
    const [context, page] = await openDevice(browser, employee, viewport);
    const browserDialogs: string[] = [];
    refuseBrowserDialogs(page, browserDialogs);

    await test.step('logging out with an unsynced change asks first; Cancel keeps the session', async () => {
      await page.goto('/chat');
      const composer = page.getByRole('combobox', { name: 'Type your message...' });
      await expect(composer).toBeVisible();
      await goOffline(context);
      await composer.fill(`Written offline ${tag}`);
      await composer.press('Enter');
      await expect(composer).toHaveValue('');
      if (width < 768) await page.getByRole('button', { name: 'Open menu' }).click();
      await page.getByRole('button', { name: 'Logout' }).click();
      const dialog = await checkDialog(page, 'Log out?', `dialog-logout-${width}`);
      await expect(dialog).toContainText('You have 1 change that has not reached the server yet.');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect(dialog).toHaveCount(0);
      await expect(page).toHaveURL(/\/chat/);
      await goOnline(context);
    });

    expect(browserDialogs).toEqual([]);
    await context.close();
  }
});

test('a task or a comment this device cannot store says so inside its form, no browser alert', async ({
  browser,
  apiAs,
}) => {
  const manager = await apiAs(demoUsers.manager.email);
  const employee = await registerPerson('Full Disk Finn');
  const tag = unique();
  const title = `Stored nowhere ${tag}`;
  const existing = `Comment target ${tag}`;
  await createTask(manager, { title: existing, assignedTo: employee.id });

  for (const viewport of [desktopViewport, phoneViewport]) {
    const [context, page] = await openDevice(browser, demoUsers.manager, viewport);
    const browserDialogs: string[] = [];
    refuseBrowserDialogs(page, browserDialogs);
    await page.goto('/tasks');
    await page.getByRole('searchbox', { name: /^Search tasks/ }).fill(tag);
    await expect(page.getByRole('list', { name: 'Tasks', exact: true }).getByRole('listitem')).toHaveCount(1);
    // The device's storage is full: IndexedDB refuses the outbox entry, so the local write fails.
    await fillDeviceStorage(page);

    await page.getByRole('button', { name: 'Create Task', exact: true }).click();
    const create = page.getByRole('dialog', { name: 'Create Task' });
    await create.getByLabel('Title', { exact: true }).fill(title);
    await create.getByLabel('Assign To', { exact: true }).selectOption({ label: employee.name });
    await create
      .getByLabel('Due Date', { exact: true })
      .fill(new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10));
    await create.getByRole('button', { name: 'Create Task', exact: true }).click();
    await expect(create.getByRole('alert')).toHaveText(
      'Failed to create task: This device is out of storage space; free some space so your changes can be saved.',
    );
    expect(await seriousAxeProblems(page, '[role="dialog"]')).toEqual([]);
    await saveViewport(page, `create-task-storage-full-${viewport.width}`);
    await create.getByRole('button', { name: 'Cancel' }).click();

    await page
      .getByRole('list', { name: 'Tasks', exact: true })
      .getByRole('button', { name: existing, exact: true })
      .click();
    const detail = page.getByRole('dialog', { name: existing });
    await detail.getByLabel('Add a comment').fill('Kept through a full disk');
    await detail.getByRole('button', { name: 'Add Comment' }).click();
    await expect(detail.getByRole('alert')).toHaveText(
      'Failed to add comment: This device is out of storage space; free some space so your changes can be saved.',
    );
    // The comment goes back into the box, to be sent again.
    await expect(detail.getByLabel('Add a comment')).toHaveValue('Kept through a full disk');
    expect(await seriousAxeProblems(page, '[role="dialog"]')).toEqual([]);
    await saveViewport(page, `comment-storage-full-${viewport.width}`);

    expect(browserDialogs).toEqual([]);
    await context.close();
  }
});
