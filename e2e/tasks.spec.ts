import { randomUUID } from 'node:crypto';
import type { Locator, Page } from '@playwright/test';
import {
  demoUsers,
  expect,
  goOffline,
  goOnline,
  phoneViewport,
  saveScreen,
  signIn,
  test,
  type ApiClient,
  expectServiceWorkerInControl,
  setMarker,
  marker,
  expectNoSidewaysScroll,
  openDevice,
  registerPerson,
} from './fixtures';
import {
  createTask,
  isoDate,
  serverTasks,
  taskStatuses as statuses,
  taskStatusLabel as statusLabel,
  unique,
  type ServerTask,
} from './api-helpers';
import { allShownTitles, countsOf, isOverdue, shownTitles, sorted, statCards, taskCards } from './task-screens';

// Task features (spec sections 2, 4, 5, 6 and 8): Task Management (/tasks), the task detail, the
// Create Task modal, My Tasks & Projects (/my-tasks) with its Update Task Status modal, and the
// dashboard's task summary, including offline edits and their sync.
//
// The server is shared with every other spec file and seeded once: the tests never delete demo
// tasks or touch demo users; they create tasks of their own with unique titles and compare what the
// screens show with what the API answers at that moment (other files create tasks concurrently, so
// those comparisons are retried until both agree).

async function serverTask(api: ApiClient, id: string): Promise<ServerTask | undefined> {
  return (await serverTasks(api)).find((task) => task.id === id);
}

/** The id of a demo user, from the directory. */
async function userId(api: ApiClient, email: string): Promise<string> {
  const answer = await api.get<{ users: { id: string; email: string }[] }>('/api/auth/all-users');
  const found = answer.body.users.find((user) => user.email === email);
  if (!found) throw new Error(`${email} is not in the directory`);
  return found.id;
}

/** Waits until the service worker is active and controls the page (so a reload works offline). */

const syncStatus = (page: Page): Locator => page.getByRole('status', { name: 'Sync status' });
/**
 * The header indicator's text as a user reads it: it holds a long label and a short one for narrow
 * screens, one of them hidden, so the rendered text (innerText) is compared, not textContent.
 */
const expectSyncStatus = (page: Page, text: string): Promise<void> =>
  expect(syncStatus(page)).toHaveText(text, { useInnerText: true });
const pendingMarks = (scope: Page | Locator): Locator => scope.getByRole('img', { name: 'Pending sync' });
const sidebarLink = (page: Page, name: string): Locator =>
  page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name, exact: true });

/** /tasks: one card by title. */
const taskCard = (page: Page, title: string): Locator =>
  taskCards(page).filter({ has: page.getByRole('heading', { name: title, exact: true }) });
const searchBox = (page: Page): Locator => page.getByRole('searchbox', { name: /^Search tasks/ });
const statusFilter = (page: Page): Locator => page.getByRole('combobox', { name: 'Filter by status' });

/** Opens a task's detail from its card and returns the dialog. */
async function openDetail(page: Page, title: string): Promise<Locator> {
  await taskCard(page, title).getByRole('button', { name: title, exact: true }).click();
  const dialog = page.getByRole('dialog', { name: title });
  await expect(dialog).toBeVisible();
  return dialog;
}

/** /my-tasks: the list and one item by title (its heading also holds the pending mark). */
const myTaskItem = (page: Page, title: string): Locator =>
  page.getByRole('list', { name: 'My tasks' }).getByRole('listitem').filter({ hasText: title });

test.describe('creating, updating and commenting across devices', () => {
  test('a task the manager creates reaches Alice live; her offline status change and comment survive a reload and sync back', async ({
    browser,
    page,
    context,
    apiAs,
  }) => {
    const manager = await apiAs(demoUsers.manager.email);
    const tag = unique();
    const title = `Quarterly budget review ${tag}`;
    const note = `Started on the figures ${tag}`;
    const comment = `Draft numbers are in the sheet ${tag}`;

    // Alice's device: the app installed (service worker in control) and My Tasks open.
    await signIn(page, demoUsers.alice.email);
    await expectServiceWorkerInControl(page);
    await page.goto('/my-tasks');
    await expectServiceWorkerInControl(page);
    await expect(page.getByRole('heading', { name: 'My Tasks & Projects' })).toBeVisible();
    await expect(page.getByRole('list', { name: 'My tasks' })).toBeVisible();
    await setMarker(page);

    const [managerContext, managerPage] = await openDevice(browser, demoUsers.manager);
    try {
      await managerPage.goto('/tasks');
      await setMarker(managerPage);

      await test.step('the manager creates the task for Alice in the Create Task modal', async () => {
        await managerPage.getByRole('button', { name: 'Create Task', exact: true }).click();
        const modal = managerPage.getByRole('dialog', { name: 'Create Task' });
        await expect(modal).toBeVisible();
        const assignee = modal.getByLabel('Assign To', { exact: true });
        await expect(assignee.locator('option', { hasText: demoUsers.alice.name })).toHaveCount(1);
        const options = await assignee.locator('option').allTextContents();
        // Spec sections 5 and 6: the assignee list holds only employees.
        expect(options).toEqual(
          expect.arrayContaining([demoUsers.alice.name, demoUsers.bob.name, demoUsers.carol.name]),
        );
        expect(options).not.toContain(demoUsers.manager.name);
        expect(options).not.toContain(demoUsers.admin.name);

        await modal.getByLabel('Title', { exact: true }).fill(title);
        await modal.getByLabel('Description').fill('Check the spend of each team against the plan.');
        await assignee.selectOption({ label: demoUsers.alice.name });
        await modal.getByLabel('Due Date', { exact: true }).fill(isoDate(4));
        await modal.getByLabel('Priority', { exact: true }).selectOption('high');
        await modal.getByRole('button', { name: 'Create Task', exact: true }).click();
        await expect(modal).toBeHidden();
        await expect(taskCard(managerPage, title)).toBeVisible();
        await expect(taskCard(managerPage, title)).toContainText(demoUsers.alice.name);
        await expect(pendingMarks(taskCard(managerPage, title))).toHaveCount(0);
      });

      const created = (await serverTasks(manager)).filter((task) => task.title === title);
      expect(created, 'the server holds the new task once').toHaveLength(1);
      const taskId = created[0]?.id ?? '';
      expect(created[0]).toMatchObject({ status: 'pending', assignedTo: { name: demoUsers.alice.name } });

      // The manager keeps the detail open: it must follow Alice's changes by itself.
      const managerDetail = await openDetail(managerPage, title);

      await test.step('Alice sees the task appear without a reload', async () => {
        await expect(myTaskItem(page, title)).toBeVisible();
        await expect(myTaskItem(page, title)).toContainText('Pending');
        expect(await marker(page), "Alice's page should not have reloaded").toBe('no reload');
      });

      await test.step('offline, Alice sets Working with a note and comments', async () => {
        await goOffline(context);
        await expectSyncStatus(page, 'Offline');

        await myTaskItem(page, title)
          .getByRole('button', { name: `Update status of ${title}` })
          .click();
        const modal = page.getByRole('dialog', { name: 'Update Task Status' });
        await expect(modal).toBeVisible();
        await modal.getByRole('button', { name: 'Working', exact: true }).click();
        await modal.getByLabel('Status Note (Optional)').fill(note);
        await modal.getByRole('button', { name: 'Update Status', exact: true }).click();
        await expect(modal).toBeHidden();
        await expect(myTaskItem(page, title)).toContainText('Working');
        await expect(pendingMarks(myTaskItem(page, title))).toHaveCount(1);
        await expectSyncStatus(page, 'Offline · 1 unsynced change');

        await sidebarLink(page, 'Tasks').click();
        await expect(page).toHaveURL(/\/tasks$/);
        const detail = await openDetail(page, title);
        await detail.getByLabel('Add a comment').fill(comment);
        await detail.getByRole('button', { name: 'Add Comment' }).click();
        await expect(detail.getByRole('listitem').filter({ hasText: comment })).toContainText(demoUsers.alice.name);
        await expect(detail.getByLabel('Add a comment')).toHaveValue('');
        await expect(detail).toContainText('Saved on this device, waiting to sync');
        await detail.getByRole('button', { name: 'Close', exact: true }).last().click();
        await expect(detail).toBeHidden();

        await expectSyncStatus(page, 'Offline · 2 unsynced changes');
        await expect(taskCard(page, title)).toContainText('Working');
        await expect(pendingMarks(taskCard(page, title))).toHaveCount(1);

        const onServer = await serverTask(manager, taskId);
        expect(onServer?.status, 'nothing reaches the server while offline').toBe('pending');
        expect(onServer?.comments).toEqual([]);
      });

      await test.step('a reload while offline keeps the status, the comment and the pending marks', async () => {
        await page.reload();
        await expect(page.getByRole('heading', { name: 'Task Management' })).toBeVisible();
        await expectSyncStatus(page, 'Offline · 2 unsynced changes');
        await expect(taskCard(page, title)).toContainText('Working');
        await expect(pendingMarks(taskCard(page, title))).toHaveCount(1);
        const detail = await openDetail(page, title);
        await expect(detail.getByLabel('Status', { exact: true })).toHaveValue('working');
        await expect(detail.getByRole('listitem').filter({ hasText: note })).toContainText(demoUsers.alice.name);
        await expect(detail.getByRole('listitem').filter({ hasText: comment })).toBeVisible();
        await expect(pendingMarks(detail)).toHaveCount(1);
        await detail.getByRole('button', { name: 'Close', exact: true }).last().click();
        await saveScreen(page, 'tasks-offline-pending-desktop');
      });

      await test.step('back online, the changes sync and the marks clear', async () => {
        await goOnline(context);
        await expectSyncStatus(page, '');
        await expect(pendingMarks(page)).toHaveCount(0);
        await expect(taskCard(page, title)).toContainText('Working');
      });

      await test.step("the manager's open detail shows them without a reload", async () => {
        await expect(managerDetail.getByLabel('Status', { exact: true })).toHaveValue('working');
        const entry = managerDetail.getByRole('listitem').filter({ hasText: note });
        await expect(entry).toContainText(demoUsers.alice.name);
        await expect(entry).toContainText('Working');
        await expect(managerDetail.getByRole('listitem').filter({ hasText: comment })).toContainText(
          demoUsers.alice.name,
        );
        await expect(taskCard(managerPage, title)).toContainText('Working');
        expect(await marker(managerPage), "the manager's page should not have reloaded").toBe('no reload');
      });

      const onServer = await serverTask(manager, taskId);
      expect(onServer?.status).toBe('working');
      expect(onServer?.statusHistory.filter((entry) => entry.note === note)).toEqual([
        expect.objectContaining({
          status: 'working',
          updatedBy: expect.objectContaining({ name: demoUsers.alice.name }),
        }),
      ]);
      expect(onServer?.comments.filter((entry) => entry.text === comment)).toEqual([
        expect.objectContaining({ userName: demoUsers.alice.name }),
      ]);
    } finally {
      await managerContext.close();
    }
  });
});

test.describe('permissions', () => {
  test('an employee sees no Create Task or delete buttons; a manager sees both', async ({ browser, page }) => {
    await signIn(page, demoUsers.alice.email);
    await page.goto('/tasks');
    await expect(taskCards(page).first()).toBeVisible();
    await expect(page.getByRole('button', { name: 'Create Task' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: /^Delete task/i })).toHaveCount(0);
    const firstTitle = (await taskCards(page).first().getByRole('heading', { level: 3 }).textContent()) ?? '';
    const detail = await openDetail(page, firstTitle);
    await expect(detail.getByRole('button', { name: 'Add Comment' })).toBeVisible();
    await expect(detail.getByRole('button', { name: /^Delete/ })).toHaveCount(0);

    const [managerContext, managerPage] = await openDevice(browser, demoUsers.manager);
    try {
      await managerPage.goto('/tasks');
      await expect(taskCards(managerPage).first()).toBeVisible();
      await expect(managerPage.getByRole('button', { name: 'Create Task', exact: true })).toBeVisible();
      // Other tests add tasks meanwhile: a card and its delete button are counted in one breath, again if needed.
      await expect(async () => {
        const cards = await taskCards(managerPage).count();
        expect(await managerPage.getByRole('button', { name: /^Delete task / }).count()).toBe(cards);
      }).toPass();
      const managerDetail = await openDetail(managerPage, firstTitle);
      await expect(managerDetail.getByRole('button', { name: 'Delete Task' })).toBeVisible();
    } finally {
      await managerContext.close();
    }
  });

  test('the assignee has a status dropdown in the detail until she sets Completed', async ({ page, apiAs }) => {
    const manager = await apiAs(demoUsers.manager.email);
    const carolId = await userId(manager, demoUsers.carol.email);
    const title = `Archive old invoices ${unique()}`;
    const task = await createTask(manager, { title, assignedTo: carolId, status: 'working' });

    await signIn(page, demoUsers.carol.email);
    await page.goto('/tasks');
    const detail = await openDetail(page, title);
    const dropdown = detail.getByRole('combobox', { name: 'Status' });
    await expect(dropdown).toHaveValue('working');
    await expect(dropdown.locator('option')).toHaveText(['Pending', 'Working', 'Completed', 'Waiting']);

    await dropdown.selectOption('completed');
    await expect(dropdown).toHaveCount(0);
    await expect(detail).toContainText('Completed');
    await expect(taskCard(page, title)).toContainText('Completed');
    await expectSyncStatus(page, '');
    await expect.poll(async () => (await serverTask(manager, task.id))?.status).toBe('completed');

    // Reopened, it still has no dropdown.
    await detail.getByRole('button', { name: 'Close', exact: true }).last().click();
    const reopened = await openDetail(page, title);
    await expect(reopened.getByRole('combobox', { name: 'Status' })).toHaveCount(0);
  });
});

test.describe('search and filters', () => {
  test('search, the status filter and the overdue filter narrow the cards; no match shows the empty state', async ({
    page,
    apiAs,
  }) => {
    const manager = await apiAs(demoUsers.manager.email);
    const bobId = await userId(manager, demoUsers.bob.email);
    const token = `zephyr${randomUUID().slice(0, 8)}`;
    const mine: ServerTask[] = [];
    for (const status of statuses) {
      mine.push(await createTask(manager, { title: `Filter ${token} ${status}`, assignedTo: bobId, status }));
    }
    mine.push(
      await createTask(manager, {
        title: `Plain task ${unique()}`,
        description: `Mentions ${token} only here`,
        assignedTo: bobId,
        status: 'waiting',
      }),
    );

    await signIn(page, demoUsers.manager.email);
    await page.goto('/tasks');
    await expect(taskCards(page).first()).toBeVisible();

    await test.step('search matches titles and descriptions', async () => {
      await searchBox(page).fill(token.toUpperCase());
      await expect.poll(() => shownTitles(page)).toEqual(sorted(mine.map((task) => task.title)));
      await searchBox(page).fill(`Mentions ${token}`);
      await expect.poll(() => shownTitles(page)).toEqual([mine[4]?.title ?? '']);
    });

    await test.step('the status filter narrows by status', async () => {
      await expect(statusFilter(page).locator('option')).toHaveText([
        'All Tasks',
        'Pending',
        'Working',
        'Completed',
        'Waiting',
      ]);
      await searchBox(page).fill(token);
      for (const status of statuses) {
        await statusFilter(page).selectOption({ label: statusLabel[status] });
        const expected = mine.filter((task) => task.status === status).map((task) => task.title);
        await expect.poll(() => shownTitles(page), { message: status }).toEqual(sorted(expected));
      }
      // Without a search, the filter shows exactly the server's tasks of that status.
      await searchBox(page).fill('');
      await statusFilter(page).selectOption({ label: 'Waiting' });
      await expect(async () => {
        const waiting = (await serverTasks(manager)).filter((task) => task.status === 'waiting');
        expect(await allShownTitles(page)).toEqual(sorted(waiting.map((task) => task.title)));
      }).toPass({ timeout: 10_000 });
      await statusFilter(page).selectOption({ label: 'All Tasks' });
    });

    await test.step('a search without a match shows "No tasks found"', async () => {
      await searchBox(page).fill(`nothing-matches-${token}`);
      await expect(taskCards(page)).toHaveCount(0);
      await expect(page.getByRole('heading', { name: 'No tasks found' })).toBeVisible();
      await expect(page.getByText('No tasks match your current filters.')).toBeVisible();
      await searchBox(page).fill('');
    });

    await test.step('/tasks?filter=overdue shows only overdue tasks until its chip is removed', async () => {
      await page.goto('/tasks?filter=overdue');
      const today = isoDate();
      await expect(async () => {
        const overdue = (await serverTasks(manager)).filter((task) => isOverdue(task, today));
        expect(overdue.length, 'the seed has overdue tasks').toBeGreaterThan(0);
        expect(await allShownTitles(page)).toEqual(sorted(overdue.map((task) => task.title)));
      }).toPass({ timeout: 10_000 });
      const cards = await taskCards(page).all();
      for (const card of cards) await expect(card.getByText('Overdue', { exact: true })).toBeVisible();

      await page.getByRole('button', { name: 'Remove Overdue filter' }).click();
      await expect(page).toHaveURL(/\/tasks$/);
      await expect(page.getByRole('button', { name: 'Remove Overdue filter' })).toHaveCount(0);
      await expect(async () => {
        const all = await serverTasks(manager);
        expect(await allShownTitles(page)).toEqual(sorted(all.map((task) => task.title)));
        // Other tests keep creating tasks on the shared server: each one needs its live change to arrive.
      }).toPass({ timeout: 20_000 });
    });
  });

  test('a status filter without a match shows "No tasks with status … found."', async ({ page, apiAs }) => {
    // Alice, if some status is missing among her tasks; otherwise a fresh employee with one pending task.
    const alice = await apiAs(demoUsers.alice.email);
    const aliceStatuses = new Set((await serverTasks(alice)).map((task) => task.status));
    let email: string = demoUsers.alice.email;
    let missing = statuses.find((status) => !aliceStatuses.has(status));
    if (missing === undefined) {
      const manager = await apiAs(demoUsers.manager.email);
      const fresh = await registerPerson('Tess Tasks');
      await createTask(manager, { title: `First task ${unique()}`, assignedTo: fresh.id, status: 'pending' });
      email = fresh.email;
      missing = 'completed';
    }
    const label = statusLabel[missing];

    await signIn(page, email);
    await page.goto('/tasks');
    await expect(taskCards(page).first()).toBeVisible();
    await statusFilter(page).selectOption({ label });
    await expect(taskCards(page)).toHaveCount(0);
    await expect(page.getByRole('heading', { name: 'No tasks found' })).toBeVisible();
    await expect(page.getByText(`No tasks with status "${label}" found.`, { exact: true })).toBeVisible();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect(taskCards(page).first()).toBeVisible();
  });
});

test.describe('deleting', () => {
  test('the manager deletes his task after confirming; dismissing keeps it', async ({ page, apiAs }) => {
    const manager = await apiAs(demoUsers.manager.email);
    const bobId = await userId(manager, demoUsers.bob.email);
    const title = `Remove me ${unique()}`;
    const task = await createTask(manager, { title, assignedTo: bobId });

    await signIn(page, demoUsers.manager.email);
    await page.goto('/tasks');
    await searchBox(page).fill(title);
    await expect(taskCards(page)).toHaveCount(1);
    const asked = page.getByRole('alertdialog', { name: 'Delete Task' });

    await taskCard(page, title)
      .getByRole('button', { name: `Delete task ${title}` })
      .click();
    await expect(asked).toContainText('Are you sure you want to delete this task?');
    await expect(asked.getByRole('button', { name: 'Cancel' })).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(asked).toHaveCount(0);
    await expect(taskCard(page, title).getByRole('button', { name: `Delete task ${title}` })).toBeFocused();
    await expect(taskCard(page, title)).toBeVisible();
    await expectSyncStatus(page, '');
    expect(await serverTask(manager, task.id), 'dismissing keeps the task').toBeDefined();

    await taskCard(page, title)
      .getByRole('button', { name: `Delete task ${title}` })
      .click();
    await expect(asked).toContainText('Are you sure you want to delete this task?');
    await asked.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect(taskCard(page, title)).toHaveCount(0);
    await expect(page.getByRole('heading', { name: 'No tasks found' })).toBeVisible();
    await expectSyncStatus(page, '');
    await expect.poll(async () => (await serverTask(manager, task.id)) === undefined).toBe(true);
  });
});

test.describe('dashboard', () => {
  test("the manager's stat cards match the server; the overdue link and recent tasks work", async ({ page, apiAs }) => {
    const manager = await apiAs(demoUsers.manager.email);
    await signIn(page, demoUsers.manager.email);
    const cards = page.getByRole('region', { name: 'Task overview' });
    // Each card links to the list it counts.
    await expect(cards.getByRole('link')).toHaveCount(8);
    const today = isoDate();

    let all: ServerTask[] = [];
    await expect(async () => {
      all = await serverTasks(manager);
      const shown = await statCards(cards);
      expect(shown).toMatchObject(countsOf(all, today));
    }).toPass({ timeout: 10_000 });
    const shown = await statCards(cards);
    expect(Object.keys(shown)).toEqual([
      'Total Tasks',
      'Pending',
      'Working',
      'Completed',
      'Waiting',
      'Overdue',
      'Team Members',
      'Online Now',
    ]);
    // Other spec files register people concurrently: compare with the directory until both agree.
    await expect(async () => {
      const directory = await manager.get<{ users: unknown[] }>('/api/auth/all-users');
      expect((await statCards(cards))['Team Members']).toBe(String(directory.body.users.length));
    }).toPass({ timeout: 10_000 });
    // The employees online, as the server sees them (other spec files sign people in and out meanwhile).
    await expect(async () => {
      const employees = await manager.get<{ employees: { presence: string }[] }>('/api/employees');
      const online = employees.body.employees.filter((employee) => employee.presence !== 'offline').length;
      expect((await statCards(cards))['Online Now']).toBe(String(online));
    }).toPass({ timeout: 10_000 });

    const recent = page.getByRole('region', { name: 'Recent Tasks' });
    await expect(recent.getByRole('listitem')).toHaveCount(5);
    await expect(async () => {
      all = await serverTasks(manager);
      // The 5 most recently updated (ties at the edge allowed).
      const fifth = [...all].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))[4]?.updatedAt ?? '';
      const newest = new Set(all.filter((task) => task.updatedAt >= fifth).map((task) => task.title));
      const listed = await recent
        .getByRole('listitem')
        .evaluateAll((items) => items.map((item) => item.querySelector('a')?.textContent ?? ''));
      expect(listed).toHaveLength(5);
      for (const title of listed) expect(newest, title).toContain(title);
    }).toPass({ timeout: 10_000 });

    const overdueCount = all.filter((task) => isOverdue(task, today)).length;
    const viewAll = page.getByRole('link', { name: 'View All Overdue Tasks' });
    if (overdueCount > 3) {
      const alert = page.getByRole('region', { name: 'Overdue Tasks' });
      await expect(alert.getByRole('listitem')).toHaveCount(3);
      await viewAll.click();
      await expect(page).toHaveURL(/\/tasks\?filter=overdue$/);
      await expect(page.getByRole('button', { name: 'Remove Overdue filter' })).toBeVisible();
      await expect(taskCards(page)).toHaveCount(overdueCount);
    } else {
      await expect(viewAll).toHaveCount(0);
    }
  });

  test("an employee's stat cards count her tasks, without Team Members or Online Now", async ({ page, apiAs }) => {
    const alice = await apiAs(demoUsers.alice.email);
    await signIn(page, demoUsers.alice.email);
    const cards = page.getByRole('region', { name: 'Task overview' });
    await expect(cards.getByRole('link')).toHaveCount(6);
    await expect(async () => {
      expect(await statCards(cards)).toEqual(countsOf(await serverTasks(alice), isoDate()));
    }).toPass({ timeout: 10_000 });
    await expect(page.getByRole('link', { name: /^Team Members:/ })).toHaveCount(0);
    await expect(page.getByRole('link', { name: /^Online Now/ })).toHaveCount(0);
    const overdue = (await serverTasks(alice)).filter((task) => isOverdue(task, isoDate())).length;
    await expect(page.getByRole('link', { name: 'View All Overdue Tasks' })).toHaveCount(overdue > 3 ? 1 : 0);
    await expect(page.getByRole('region', { name: 'Recent Tasks' }).getByRole('listitem')).toHaveCount(
      Math.min(5, (await serverTasks(alice)).length),
    );
  });
});

test.describe('My Tasks', () => {
  test('the Update Task Status modal: the button waits for a new status, the note field, Cancel changes nothing', async ({
    page,
    apiAs,
  }) => {
    const manager = await apiAs(demoUsers.manager.email);
    const aliceId = await userId(manager, demoUsers.alice.email);
    const title = `Book meeting rooms ${unique()}`;
    const task = await createTask(manager, { title, assignedTo: aliceId, description: 'For the planning week.' });

    await signIn(page, demoUsers.alice.email);
    await sidebarLink(page, 'My Tasks').click();
    await expect(page).toHaveURL(/\/my-tasks$/);
    await expect(page.getByText('Track and update your assigned task statuses')).toBeVisible();
    const item = myTaskItem(page, title);
    await expect(item).toContainText('For the planning week.');
    await expect(item).toContainText('Pending');
    await expect(item).toContainText('Due in 5 days');

    await item.getByRole('button', { name: `Update status of ${title}` }).click();
    const modal = page.getByRole('dialog', { name: 'Update Task Status' });
    await expect(modal).toBeVisible();
    await expect(modal).toContainText(title);
    await expect(modal).toContainText('Current Status:');
    const update = modal.getByRole('button', { name: 'Update Status', exact: true });
    await expect(update).toBeDisabled();
    for (const label of Object.values(statusLabel)) {
      await expect(modal.getByRole('button', { name: label, exact: true })).toBeVisible();
    }
    const noteField = modal.getByLabel('Status Note (Optional)');
    await expect(noteField).toHaveAttribute('placeholder', 'Add a note about this status change...');
    await expect(noteField).toHaveAttribute('rows', '3');

    await modal.getByRole('button', { name: 'Waiting', exact: true }).click();
    await expect(update).toBeEnabled();
    await modal.getByRole('button', { name: 'Pending', exact: true }).click();
    await expect(update).toBeDisabled();
    await modal.getByRole('button', { name: 'Working', exact: true }).click();
    await noteField.fill('Not really');
    await modal.getByRole('button', { name: 'Cancel', exact: true }).click();
    await expect(modal).toBeHidden();

    await expect(item).toContainText('Pending');
    await expect(pendingMarks(item)).toHaveCount(0);
    await expectSyncStatus(page, '');
    const onServer = await serverTask(manager, task.id);
    expect(onServer?.status).toBe('pending');
    expect(onServer?.statusHistory.some((entry) => entry.note === 'Not really')).toBe(false);

    // Opened again, it starts from the current status with an empty note.
    await item.getByRole('button', { name: `Update status of ${title}` }).click();
    await expect(modal.getByRole('button', { name: 'Pending', exact: true })).toHaveAttribute('aria-pressed', 'true');
    await expect(noteField).toHaveValue('');
    await expect(update).toBeDisabled();
  });
});

test.describe('My Tasks: the detail and the updated row', () => {
  test('a task opens from My Tasks in its detail, with its comments and status history; the employee comments there', async ({
    page,
    apiAs,
  }) => {
    const manager = await apiAs(demoUsers.manager.email);
    const employee = await registerPerson('Detail Dana');
    const title = `Order new badges ${unique()}`;
    const task = await createTask(manager, { title, assignedTo: employee.id, description: 'Ten visitor badges.' });
    const comment = await manager.post(`/api/tasks/${task.id}/comments`, { text: 'The supplier changed, see mail.' });
    expect(comment.status, 'the manager comments').toBe(201);
    const status = await manager.put(`/api/tasks/${task.id}`, { status: 'waiting', note: 'Waiting for the budget' });
    expect(status.status, 'the manager sets Waiting').toBe(200);

    await signIn(page, employee.email, employee.password);
    await page.goto('/my-tasks');
    const item = myTaskItem(page, title);
    await expect(item).toContainText('Waiting');

    // A click on the row's text (not only its title) opens the detail: the title's hit area lies over the row,
    // so the click lands on it where the description shows.
    await item.getByText('Ten visitor badges.').click({ force: true });
    const detail = page.getByRole('dialog', { name: title });
    await expect(detail).toBeVisible();
    await expect(detail).toContainText('The supplier changed, see mail.');
    await expect(detail).toContainText('Waiting for the budget');
    await expect(detail).toContainText(demoUsers.manager.name);
    await saveScreen(page, 'tasks-my-tasks-detail-desktop');

    await detail.getByRole('textbox', { name: 'Add a comment' }).fill('Ordered, arriving Monday.');
    await detail.getByRole('button', { name: 'Add Comment' }).click();
    await expect(detail).toContainText('Ordered, arriving Monday.');
    await expect
      .poll(async () => (await serverTask(manager, task.id))?.comments.map((entry) => entry.text))
      .toEqual(['The supplier changed, see mail.', 'Ordered, arriving Monday.']);

    // Closed, focus goes back to the title that opened it; "Update Status" still opens its own modal.
    await page.keyboard.press('Escape');
    await expect(detail).toBeHidden();
    await expect(item.getByRole('button', { name: title, exact: true })).toBeFocused();
    await item.getByRole('button', { name: `Update status of ${title}` }).click();
    await expect(page.getByRole('dialog', { name: 'Update Task Status' })).toBeVisible();
    await page.keyboard.press('Escape');

    await page.setViewportSize(phoneViewport);
    await item.getByRole('button', { name: title, exact: true }).click();
    await expect(detail).toBeVisible();
    await saveScreen(page, 'tasks-my-tasks-detail-phone', { fullPage: false });
  });

  test('the row just updated stays where the user is looking, with focus back on its button, also under a status filter', async ({
    page,
    apiAs,
  }) => {
    const manager = await apiAs(demoUsers.manager.email);
    const employee = await registerPerson('Steady Sol');
    const tag = unique();
    const titles: string[] = [];
    for (let index = 1; index <= 8; index += 1) {
      const title = `Steady task ${index} ${tag}`;
      await createTask(manager, { title, assignedTo: employee.id, description: `Step ${index} of the move.` });
      titles.push(title);
    }

    await page.setViewportSize(phoneViewport);
    await signIn(page, employee.email, employee.password);
    await page.goto('/my-tasks');
    const items = page.getByRole('list', { name: 'My tasks' }).getByRole('listitem');
    await expect(items).toHaveCount(titles.length);
    const before = await items.locator('h3').allTextContents();

    // A task far down the list: the newest-first order would move it to the top once updated.
    const title = titles[1] ?? '';
    const item = myTaskItem(page, title);
    const button = item.getByRole('button', { name: `Update status of ${title}` });
    await button.scrollIntoViewIfNeeded();
    const placeBefore = await item.boundingBox();
    await button.click();
    const modal = page.getByRole('dialog', { name: 'Update Task Status' });
    await modal.getByRole('button', { name: 'Working', exact: true }).click();
    await modal.getByRole('button', { name: 'Update Status', exact: true }).click();
    await expect(modal).toBeHidden();

    await expect(item).toContainText('Working');
    await expect(item).toBeInViewport();
    await expect(button).toBeFocused();
    expect(await items.locator('h3').allTextContents()).toEqual(before);
    expect((await item.boundingBox())?.y).toBeCloseTo(placeBefore?.y ?? -1, 0);
    await saveScreen(page, 'tasks-my-tasks-updated-in-place-phone', { fullPage: false });

    // Under "Pending" the updated row stays listed (now Working) until the filter changes.
    const other = titles[4] ?? '';
    await statusFilter(page).selectOption('pending');
    await expect(items).toHaveCount(titles.length - 1);
    const otherButton = myTaskItem(page, other).getByRole('button', { name: `Update status of ${other}` });
    await otherButton.click();
    await modal.getByRole('button', { name: 'Completed', exact: true }).click();
    await modal.getByRole('button', { name: 'Update Status', exact: true }).click();
    await expect(modal).toBeHidden();
    await expect(myTaskItem(page, other)).toContainText('Completed');
    await expect(otherButton).toBeFocused();
    await expect(items).toHaveCount(titles.length - 1);
    await statusFilter(page).selectOption('all');
    await statusFilter(page).selectOption('pending');
    await expect(items).toHaveCount(titles.length - 2);
    await expect(myTaskItem(page, other)).toHaveCount(0);
  });
});

test.describe('layout and screenshots', () => {
  test('the manager: /tasks, the detail and the dashboard on desktop and on a phone', async ({ page }) => {
    await signIn(page, demoUsers.manager.email);
    await page.goto('/tasks');
    await expect(taskCards(page).nth(1)).toBeVisible();
    await saveScreen(page, 'tasks-list-desktop');
    const firstTitle = (await taskCards(page).first().getByRole('heading', { level: 3 }).textContent()) ?? '';
    let detail = await openDetail(page, firstTitle);
    await saveScreen(page, 'tasks-detail-desktop');
    await detail.getByRole('button', { name: 'Close', exact: true }).last().click();
    await page.goto('/dashboard');
    await expect(page.getByRole('region', { name: 'Recent Tasks' }).getByRole('listitem')).toHaveCount(5);
    await saveScreen(page, 'tasks-dashboard-desktop');

    await page.setViewportSize(phoneViewport);
    await page.goto('/tasks');
    await expect(taskCards(page).nth(1)).toBeVisible();
    await expectNoSidewaysScroll(page);
    const first = await taskCards(page).first().boundingBox();
    const second = await taskCards(page).nth(1).boundingBox();
    if (!first || !second) throw new Error('the cards have no layout');
    // Stacked: one column, the second card below the first, each within the screen.
    expect(Math.abs(first.x - second.x)).toBeLessThan(2);
    expect(second.y).toBeGreaterThanOrEqual(first.y + first.height);
    expect(first.x).toBeGreaterThanOrEqual(0);
    expect(first.x + first.width).toBeLessThanOrEqual(phoneViewport.width);
    await expect(page.getByRole('button', { name: 'Create Task', exact: true })).toBeInViewport();
    await saveScreen(page, 'tasks-list-phone');

    detail = await openDetail(page, firstTitle);
    await expect(detail.getByRole('button', { name: 'Close', exact: true }).first()).toBeInViewport();
    const comment = detail.getByLabel('Add a comment');
    await comment.scrollIntoViewIfNeeded();
    await expect(comment).toBeInViewport();
    await expect(detail.getByRole('button', { name: 'Add Comment' })).toBeVisible();
    const box = await detail.boundingBox();
    expect(box?.width ?? Infinity).toBeLessThanOrEqual(phoneViewport.width);
    await saveScreen(page, 'tasks-detail-phone');
    await detail.getByRole('button', { name: 'Close', exact: true }).last().click();

    await page.getByRole('button', { name: 'Create Task', exact: true }).click();
    const create = page.getByRole('dialog', { name: 'Create Task' });
    await expect(create.getByLabel('Title', { exact: true })).toBeInViewport();
    await create.getByRole('button', { name: 'Cancel' }).click();

    await page.goto('/dashboard');
    await expect(page.getByRole('region', { name: 'Recent Tasks' }).getByRole('listitem')).toHaveCount(5);
    await expectNoSidewaysScroll(page);
    await saveScreen(page, 'tasks-dashboard-phone');
  });

  test('Alice: /my-tasks and its status modal on desktop and on a phone', async ({ page }) => {
    await signIn(page, demoUsers.alice.email);
    await page.goto('/my-tasks');
    const items = page.getByRole('list', { name: 'My tasks' }).getByRole('listitem');
    await expect(items.nth(1)).toBeVisible();
    await saveScreen(page, 'tasks-my-tasks-desktop');

    await page.setViewportSize(phoneViewport);
    await expect(items.nth(1)).toBeVisible();
    await expectNoSidewaysScroll(page);
    const first = await items.first().boundingBox();
    const second = await items.nth(1).boundingBox();
    if (!first || !second) throw new Error('the items have no layout');
    expect(Math.abs(first.x - second.x)).toBeLessThan(2);
    expect(second.y).toBeGreaterThanOrEqual(first.y + first.height);
    expect(first.x + first.width).toBeLessThanOrEqual(phoneViewport.width);
    await saveScreen(page, 'tasks-my-tasks-phone');

    const button = items.first().getByRole('button', { name: /^Update status of / });
    await button.scrollIntoViewIfNeeded();
    await expect(button).toBeInViewport();
    await button.click();
    const modal = page.getByRole('dialog', { name: 'Update Task Status' });
    await expect(modal).toBeVisible();
    await expect(modal.getByRole('button', { name: 'Working', exact: true })).toBeInViewport();
    const update = modal.getByRole('button', { name: 'Update Status', exact: true });
    await update.scrollIntoViewIfNeeded();
    await expect(update).toBeInViewport();
    await expect(modal.getByRole('button', { name: 'Cancel', exact: true })).toBeInViewport();
    await saveScreen(page, 'tasks-status-modal-phone');
    await modal.getByRole('button', { name: 'Cancel', exact: true }).click();
    await expect(modal).toBeHidden();
  });
});
