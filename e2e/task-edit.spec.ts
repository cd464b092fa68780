import type { Locator, Page } from '@playwright/test';
import {
  createApiClient,
  demoUsers,
  expect,
  goOffline,
  goOnline,
  openDevice,
  phoneViewport,
  registerPerson,
  saveScreen,
  test,
  type ApiClient,
} from './fixtures';
import { createTask, isoDate, serverTasks, unique } from './api-helpers';

// Edit Task (issue 16): managers and admins edit a task's title, description, assignee, due date and
// priority from its detail (PUT /api/tasks/{id} of spec section 7, the task.edit write), offline like
// every write, with the creation rules.

const taskCard = (page: Page, title: string): Locator =>
  page
    .getByRole('list', { name: 'Tasks', exact: true })
    .getByRole('listitem')
    .filter({ has: page.getByRole('heading', { name: title, exact: true }) });

async function openDetail(page: Page, title: string): Promise<Locator> {
  await page.goto('/tasks');
  const dialog = page.getByRole('dialog', { name: title });
  // Other tests add tasks meanwhile, newest first: a card can move between Playwright's aim and its click.
  await expect(async () => {
    if (await page.getByRole('dialog').count()) await page.keyboard.press('Escape');
    await taskCard(page, title).getByRole('button', { name: title, exact: true }).click();
    await expect(dialog).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 15_000 });
  return dialog;
}

test.describe('editing a task', () => {
  let manager: ApiClient;
  test.beforeEach(async () => {
    manager = await createApiClient(demoUsers.manager.email);
  });
  test.afterEach(async () => {
    await manager.dispose();
  });

  test('a manager edits every field offline; it syncs once and reaches the new assignee live', async ({ browser }) => {
    const first = await registerPerson('Edit First');
    const second = await registerPerson('Edit Second');
    const title = `Draft budget ${unique()}`;
    const task = await createTask(manager, { title, assignedTo: first.id, dueDate: isoDate(5) });

    const [secondContext, secondPage] = await openDevice(browser, second);
    await secondPage.goto('/tasks');
    const [context, page] = await openDevice(browser, demoUsers.manager);
    const detail = await openDetail(page, title);

    await goOffline(context);
    await detail.getByRole('button', { name: 'Edit Task' }).click();
    const form = page.getByRole('dialog', { name: 'Edit Task' });
    await expect(form.getByLabel('Title', { exact: true })).toHaveValue(title);
    await expect(form.getByLabel('Assign To', { exact: true })).toHaveValue(first.id);
    const newTitle = `Final budget ${unique()}`;
    await form.getByLabel('Title', { exact: true }).fill(newTitle);
    await form.getByLabel('Description').fill('Numbers from every team, checked twice.');
    await form.getByLabel('Assign To', { exact: true }).selectOption({ label: second.name });
    await form.getByLabel('Due Date', { exact: true }).fill(isoDate(9));
    await form.getByLabel('Priority', { exact: true }).selectOption('critical');
    await form.getByRole('button', { name: 'Save Changes' }).click();

    const edited = page.getByRole('dialog', { name: newTitle });
    await expect(edited).toContainText('Numbers from every team, checked twice.');
    await expect(edited).toContainText(second.name);
    await expect(edited).toContainText('Critical');
    await expect(edited).toContainText('Saved on this device, waiting to sync');
    expect((await serverTasks(manager)).find((row) => row.id === task.id)?.title).toBe(title);

    await goOnline(context);
    await expect
      .poll(async () => (await serverTasks(manager)).find((row) => row.id === task.id))
      .toMatchObject({
        title: newTitle,
        description: 'Numbers from every team, checked twice.',
        assignedTo: { id: second.id },
        dueDate: isoDate(9),
        priority: 'critical',
      });
    await expect(edited).not.toContainText('Saved on this device, waiting to sync');
    // The new assignee's device shows it without a reload.
    await expect(taskCard(secondPage, newTitle)).toBeVisible();
    await context.close();
    await secondContext.close();
  });

  test('the creation rules hold: required fields and no new due date in the past', async ({ browser }) => {
    const employee = await registerPerson('Edit Rules');
    const title = `Rules ${unique()}`;
    await createTask(manager, { title, assignedTo: employee.id });
    const [context, page] = await openDevice(browser, demoUsers.manager, phoneViewport);
    const detail = await openDetail(page, title);
    await detail.getByRole('button', { name: 'Edit Task' }).click();
    const form = page.getByRole('dialog', { name: 'Edit Task' });
    await saveScreen(page, 'task-edit-phone');

    await form.getByLabel('Title', { exact: true }).fill('   ');
    await form.getByRole('button', { name: 'Save Changes' }).click();
    await expect(form.getByRole('alert')).toHaveText('Title, assignee and due date are required');

    await form.getByLabel('Title', { exact: true }).fill(title);
    await form.getByLabel('Due Date', { exact: true }).fill(isoDate(-2));
    await form.getByRole('button', { name: 'Save Changes' }).click();
    await expect(form.getByRole('alert')).toHaveText('The due date cannot be in the past');

    // Cancel leaves the task as it was.
    await form.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('dialog', { name: title })).toBeVisible();
    await context.close();
  });

  test('an employee sees no Edit Task button', async ({ browser }) => {
    const employee = await registerPerson('Edit Viewer');
    const title = `Not yours to edit ${unique()}`;
    await createTask(manager, { title, assignedTo: employee.id });
    const [context, page] = await openDevice(browser, employee);
    const detail = await openDetail(page, title);
    await expect(detail.getByRole('button', { name: 'Delete Task' })).toHaveCount(0);
    await expect(detail.getByRole('button', { name: 'Edit Task' })).toHaveCount(0);
    await context.close();
  });
});
