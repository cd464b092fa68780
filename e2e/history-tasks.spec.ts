import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { createTask, isoDate, serverTasks, unique, type ServerTask, type TaskStatus } from './api-helpers';
import {
  createApiClient,
  demoUsers,
  desktopViewport,
  expect,
  expectNoSidewaysScroll,
  expectServiceWorkerInControl,
  expectUpToDate,
  goOffline,
  goOnline,
  phoneViewport,
  saveScreen,
  seriousAxeProblems,
  signIn,
  skipSplash,
  test,
  type ApiClient,
} from './fixtures';
import { startOwnServer, type OwnServer } from './own-server';
import { allShownTitles, countsOf, isOverdue, statCards } from './task-screens';

// Issue 46: a device holds every open task and the completed ones of its window only; what lies before the window
// is counted by the server (POST /api/sync/window-counts). A server of the test's own sets the window to 0 days
// (HISTORY_COMPLETED_TASK_DAYS), so no completed task is on the manager's device, and holds ten times as many
// completed tasks as open ones: the dashboard, its Overdue list and Employee Management must still show what the
// server shows, online and after an offline cold start.

const widths = [
  ['1280', desktopViewport],
  ['375', phoneViewport],
] as const;

/** The demo employees the test gives tasks to, and the one whose Employee Management card is compared. */
const employees = [demoUsers.alice, demoUsers.bob, demoUsers.carol] as const;
const checkedEmployee = demoUsers.bob;
const openStatuses: readonly TaskStatus[] = ['pending', 'working', 'waiting'];
/** The history is ten times what is open: ten completed tasks for every open one on the server. */
const historyFactor = 10;

let server: OwnServer;
let dataDir: string;
let manager: ApiClient;

/**
 * Makes a task due yesterday. The server refuses a past due date, on creation and on an edit that changes it, so
 * it is written into the database the server runs on (as in employees.spec.ts); an edit that leaves it as it is
 * then carries the task to every device.
 */
async function makeOverdue(task: ServerTask): Promise<void> {
  const yesterday = isoDate(-1);
  const db = new Database(join(dataDir, 'workspace.db'));
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare('UPDATE tasks SET due_date = ? WHERE id = ?').run(yesterday, task.id);
  } finally {
    db.close();
  }
  const carried = await manager.put(`/api/tasks/${task.id}`, { dueDate: yesterday });
  expect(carried.status, `making "${task.title}" overdue`).toBe(200);
}

test.beforeAll(async () => {
  test.setTimeout(180_000);
  dataDir = mkdtempSync(join(tmpdir(), 'office-e2e-history-tasks-'));
  server = await startOwnServer({ dataDir, env: { HISTORY_COMPLETED_TASK_DAYS: '0' } });
  manager = await createApiClient(demoUsers.manager.email, undefined, server.url);
  const directory = await manager.get<{ users: { id: string; email: string }[] }>('/api/auth/all-users');
  const tag = unique();
  const assignees: string[] = [];
  for (const employee of employees) {
    const assignedTo = directory.body.users.find((user) => user.email === employee.email)?.id;
    if (!assignedTo) throw new Error(`${employee.email} is not in the directory`);
    assignees.push(assignedTo);
    const first = employee.name.split(' ')[0];
    for (const status of openStatuses) {
      await createTask(manager, { title: `${first} ${status} ${tag}`, assignedTo, status });
      const late = await createTask(manager, { title: `${first} ${status} late ${tag}`, assignedTo, status });
      await makeOverdue(late);
    }
  }
  const existing = await serverTasks(manager);
  const open = existing.filter((task) => task.status !== 'completed').length;
  const missing = historyFactor * open - (existing.length - open);
  // Created a few at a time: each is a request of its own, and the machine is shared.
  for (let n = 0; n < missing; n += 10) {
    const batch = Array.from({ length: Math.min(10, missing - n) }, (_, i) => n + i);
    await Promise.all(
      batch.map((at) =>
        createTask(manager, {
          title: `Done ${at + 1} ${tag}`,
          assignedTo: assignees[at % assignees.length] ?? '',
          status: 'completed',
        }),
      ),
    );
  }
});

test.afterAll(async () => {
  await manager?.dispose();
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The dashboard's task cards (Team Members and Online Now count people, not tasks). */
async function taskOverview(page: Page): Promise<Record<string, string>> {
  const counts = await statCards(page.getByRole('region', { name: 'Task overview' }));
  delete counts['Team Members'];
  delete counts['Online Now'];
  return counts;
}

/** One Employee Management card as GET /api/employees answers it (the fields compared). */
interface ServerSummary {
  user: { name: string };
  taskCounts: { total: number; completed: number; working: number; pending: number; waiting: number; overdue: number };
  teamChatMessages: number;
  completionRate: number;
}

async function serverCard(name: string): Promise<ServerSummary> {
  const answer = await manager.get<{ employees: ServerSummary[] }>('/api/employees');
  expect(answer.status, 'GET /api/employees').toBe(200);
  const found = answer.body.employees.find((employee) => employee.user.name === name);
  if (!found) throw new Error(`${name} has no card on the server`);
  return found;
}

/** A card's counts as { label: value }, from its definition list (as in employees.spec.ts). */
async function cardCounts(card: Locator): Promise<Record<string, string>> {
  return card
    .locator('dl > div')
    .evaluateAll((rows) =>
      Object.fromEntries(
        rows.map((row) => [row.querySelector('dt')?.textContent ?? '', row.querySelector('dd')?.textContent ?? '']),
      ),
    );
}

/** The tasks the signed-in person's IndexedDB holds, completed and open (pwa/src/data/db.ts names the database). */
async function heldTasks(page: Page): Promise<{ completed: number; open: number }> {
  return page.evaluate(async () => {
    const user = JSON.parse(localStorage.getItem('user') ?? 'null') as { id: string } | null;
    if (!user) throw new Error('nobody is signed in');
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open(`office-workspace-${user.id}`);
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error ?? new Error('IndexedDB did not open'));
    });
    try {
      const read = db.transaction('tasks').objectStore('tasks').getAll();
      const rows = await new Promise<{ status: string }[]>((resolve, reject) => {
        read.onsuccess = () => resolve(read.result as { status: string }[]);
        read.onerror = () => reject(read.error ?? new Error('the tasks could not be read'));
      });
      const completed = rows.filter((row) => row.status === 'completed').length;
      return { completed, open: rows.length - completed };
    } finally {
      db.close();
    }
  });
}

/** A device of the manager (or another demo person) on the test's server, signed in and synced. */
async function openDevice(
  browser: Browser,
  viewport: { width: number; height: number },
  email: string = demoUsers.manager.email,
): Promise<[BrowserContext, Page]> {
  const context = await browser.newContext({ viewport, baseURL: server.url });
  await skipSplash(context);
  const page = await context.newPage();
  await signIn(page, email);
  await expectUpToDate(page);
  return [context, page];
}

async function expectCleanScreen(page: Page): Promise<void> {
  await expectNoSidewaysScroll(page);
  expect(await seriousAxeProblems(page)).toEqual([]);
}

for (const [width, viewport] of widths) {
  test(`at ${width} px, the manager's device holds no completed task, yet its dashboard, Overdue list and employee cards show the server's figures, online and after an offline cold start`, async ({
    browser,
  }) => {
    test.setTimeout(180_000);
    const today = isoDate();
    const tasks = await serverTasks(manager);
    const expected = countsOf(tasks, today);
    const overdueTitles = tasks
      .filter((task) => isOverdue(task, today))
      .map((task) => task.title)
      .sort((a, b) => a.localeCompare(b));
    const openOnServer = tasks.filter((task) => task.status !== 'completed').length;
    // Ten times the history: the completed tasks far outnumber the open ones.
    expect(Number(expected.Completed)).toBeGreaterThanOrEqual(historyFactor * openOnServer);
    expect(overdueTitles.length).toBeGreaterThanOrEqual(employees.length * openStatuses.length);
    const employeeCard = await serverCard(checkedEmployee.name);
    const expectedCard = {
      'Total Tasks': String(employeeCard.taskCounts.total),
      Messages: String(employeeCard.teamChatMessages),
      Completed: String(employeeCard.taskCounts.completed),
      Working: String(employeeCard.taskCounts.working),
      Pending: String(employeeCard.taskCounts.pending),
      Waiting: String(employeeCard.taskCounts.waiting),
    };
    expect(employeeCard.taskCounts.completed).toBeGreaterThan(employeeCard.taskCounts.total / 2);

    const [context, page] = await openDevice(browser, viewport);
    // The completed tasks are counted once the server has said how many lie before the window (in idle time).
    await expect.poll(() => taskOverview(page), { timeout: 30_000 }).toEqual(expected);
    // Every open task is on the device, and no completed one.
    expect(await heldTasks(page)).toEqual({ completed: 0, open: openOnServer });
    await saveScreen(page, `history-tasks-dashboard-${width}`, { fullPage: false });

    // A cold start of the installed app without a network: the figures come from the device alone.
    await expectServiceWorkerInControl(page);
    await goOffline(context);
    await page.reload();
    await expect(page.getByRole('heading', { level: 1, name: /, Maya Manager$/ })).toBeVisible();
    await expect(page.getByRole('status', { name: 'Sync status' })).toHaveText('Offline', { useInnerText: true });
    await expect.poll(() => taskOverview(page)).toEqual(expected);
    await expectCleanScreen(page);
    await saveScreen(page, `history-tasks-dashboard-offline-${width}`, { fullPage: false });

    // The Overdue card leads to every overdue task.
    await page
      .getByRole('region', { name: 'Task overview' })
      .getByRole('link', { name: `Overdue: ${expected.Overdue}` })
      .click();
    await expect(page).toHaveURL(/\/tasks\?filter=overdue$/);
    await expect(page.getByRole('button', { name: 'Remove Overdue filter' })).toBeVisible();
    await expect.poll(() => allShownTitles(page)).toEqual(overdueTitles);
    await saveScreen(page, `history-tasks-overdue-offline-${width}`, { fullPage: false });

    // Employee Management, also a cold start offline: the card counts the completed tasks the device does not hold.
    await page.goto('/employees');
    await expect(page.getByRole('heading', { name: 'Employee Management', level: 1 })).toBeVisible();
    const card = page
      .getByRole('list', { name: 'Employees', exact: true })
      .getByRole('listitem')
      .filter({ has: page.getByRole('button', { name: `View details for ${checkedEmployee.name}`, exact: true }) });
    await expect.poll(() => cardCounts(card)).toEqual(expectedCard);
    await expect(card.getByRole('progressbar', { name: 'Completion rate' })).toHaveAttribute(
      'aria-valuenow',
      String(employeeCard.completionRate),
    );
    await expect(card.getByText(`${employeeCard.taskCounts.overdue} overdue tasks`, { exact: true })).toBeVisible();
    await card.scrollIntoViewIfNeeded();
    await expectCleanScreen(page);
    await saveScreen(page, `history-tasks-employees-offline-${width}`, { fullPage: false });
    await context.close();
  });
}

/**
 * Presses "Load older completed tasks" if the list shows it now, else scrolls to the list's end (where the next page
 * loads as it comes into view). Clicked in the page: a click that waited for the button would wait for ever once
 * the last page is in.
 */
async function loadOlderOnce(page: Page): Promise<void> {
  const pressed = await page.evaluate(() => {
    const button = Array.from(document.querySelectorAll('button')).find(
      (each) => each.textContent === 'Load older completed tasks',
    );
    button?.click();
    return button !== undefined;
  });
  if (!pressed) await page.keyboard.press('End');
}

/** /tasks: the titles of every card, after pressing "Load older completed tasks" until the server has no more. */
async function allCompletedTitles(page: Page, expected: number): Promise<string[]> {
  const list = page.getByRole('list', { name: 'Tasks', exact: true });
  const titles = () => list.getByRole('listitem').getByRole('heading', { level: 3 }).allTextContents();
  // Each page loads as the list's end scrolls into view, or with the button.
  await expect
    .poll(
      async () => {
        await loadOlderOnce(page);
        return (await titles()).length;
      },
      { timeout: 120_000 },
    )
    .toBe(expected);
  return (await titles()).sort((a, b) => a.localeCompare(b));
}

const olderTasksOffline = 'Older completed tasks are not saved on this device. Connect to the internet to load them.';

for (const [width, viewport] of widths) {
  test(`at ${width} px, the Completed list loads the completed tasks before the window from the server online, and says they need a connection offline`, async ({
    browser,
  }) => {
    test.setTimeout(300_000);
    const tasks = await serverTasks(manager);
    const expected = countsOf(tasks, isoDate());
    const completed = tasks.filter((task) => task.status === 'completed');
    const completedTitles = completed.map((task) => task.title).sort((a, b) => a.localeCompare(b));
    const shownText = `Showing ${expected.Completed} of ${expected['Total Tasks']} tasks`;

    const [context, page] = await openDevice(browser, viewport);
    await expect.poll(() => taskOverview(page), { timeout: 30_000 }).toEqual(expected);
    expect((await heldTasks(page)).completed).toBe(0);

    // The dashboard's Completed card leads to the list, which counts as the card does and loads what it counts.
    await page
      .getByRole('region', { name: 'Task overview' })
      .getByRole('link', { name: `Completed: ${expected.Completed}` })
      .click();
    await expect(page).toHaveURL(/\/tasks\?status=completed$/);
    await expect(page.getByText(shownText, { exact: true })).toBeVisible();
    const list = page.getByRole('list', { name: 'Tasks', exact: true });
    await expect(list.getByRole('listitem').first()).toBeVisible({ timeout: 15_000 });
    await expect(page.getByText('No tasks found')).toHaveCount(0);
    await page.evaluate(() => window.scrollTo(0, 0));
    await expectCleanScreen(page);
    await saveScreen(page, `history-tasks-completed-${width}`, { fullPage: false });

    // The list's end: the next page loads as it scrolls into view, or with its button.
    await page.getByRole('button', { name: 'Load older completed tasks' }).scrollIntoViewIfNeeded();
    await saveScreen(page, `history-tasks-completed-end-${width}`, { fullPage: false });
    expect(await allCompletedTitles(page, completed.length)).toEqual(completedTitles);
    // Loaded for reading, not stored: the device still holds its window alone, and the dashboard counts as before.
    expect((await heldTasks(page)).completed).toBe(0);
    await expect(page.getByRole('button', { name: 'Load older completed tasks' })).toHaveCount(0);
    await expect(page.getByText(shownText, { exact: true })).toBeVisible();

    // An older task opens in full.
    const oldest = completed.reduce((a, b) => (a.updatedAt <= b.updatedAt ? a : b));
    await list.getByRole('button', { name: oldest.title, exact: true }).click();
    const detail = page.getByRole('dialog', { name: oldest.title });
    await expect(detail).toBeVisible();
    await expect(detail.getByRole('combobox', { name: 'Status' })).toHaveValue('completed');
    await expectCleanScreen(page);
    await saveScreen(page, `history-tasks-completed-detail-${width}`, { fullPage: false });
    await page.keyboard.press('Escape');
    await expect(detail).toHaveCount(0);

    // Offline, after a cold start: the list counts the same, and its end says the older tasks need a connection.
    await expectServiceWorkerInControl(page);
    await goOffline(context);
    await page.reload();
    await expect(page.getByRole('status', { name: 'Sync status' })).toHaveText('Offline', { useInnerText: true });
    await expect(page.getByText(shownText, { exact: true })).toBeVisible();
    const offlineLine = page.getByRole('status').filter({ hasText: olderTasksOffline });
    await expect(offlineLine).toBeVisible();
    await expect(page.getByText('No tasks found')).toHaveCount(0);
    await expectCleanScreen(page);
    await saveScreen(page, `history-tasks-completed-offline-${width}`, { fullPage: false });

    // All tasks: the open ones the device holds, then the same end line; online again, the button loads more.
    await page.getByRole('combobox', { name: 'Filter by status' }).selectOption('');
    await expect(page.getByText(`${expected['Total Tasks']} tasks`, { exact: true })).toBeVisible();
    await expect(offlineLine).toBeVisible();
    await goOnline(context);
    await expect(
      page.getByRole('button', { name: 'Load older completed tasks' }).or(list.getByText(/^Done /).first()),
    ).toBeVisible({ timeout: 15_000 });
    await context.close();
  });
}

for (const [width, viewport] of widths) {
  test(`at ${width} px, an employee's My Tasks loads their completed tasks before the window from the server online, and says they need a connection offline`, async ({
    browser,
  }) => {
    test.setTimeout(300_000);
    const mine = (await serverTasks(manager)).filter((task) => task.assignedTo?.name === checkedEmployee.name);
    const completed = mine.filter((task) => task.status === 'completed');
    expect(completed.length).toBeGreaterThan(mine.length / 2);

    const [context, page] = await openDevice(browser, viewport, checkedEmployee.email);
    await page.goto('/my-tasks?status=completed');
    const overview = page.getByRole('region', { name: 'My task overview' });
    await expect(overview.locator(`[aria-label="Completed: ${completed.length}"]`)).toHaveCount(1, { timeout: 30_000 });
    expect((await heldTasks(page)).completed).toBe(0);
    const list = page.getByRole('list', { name: 'My tasks', exact: true });
    const titles = () => list.getByRole('listitem').getByRole('heading', { level: 3 }).allTextContents();
    await expect(list.getByRole('listitem').first()).toBeVisible({ timeout: 15_000 });
    await expect(page.getByText('No tasks found')).toHaveCount(0);
    await expectCleanScreen(page);
    await saveScreen(page, `history-tasks-my-tasks-completed-${width}`, { fullPage: false });
    await expect
      .poll(
        async () => {
          await loadOlderOnce(page);
          return (await titles()).length;
        },
        { timeout: 120_000 },
      )
      .toBe(completed.length);
    expect((await titles()).sort((a, b) => a.localeCompare(b))).toEqual(
      completed.map((task) => task.title).sort((a, b) => a.localeCompare(b)),
    );
    expect((await heldTasks(page)).completed).toBe(0);

    await expectServiceWorkerInControl(page);
    await goOffline(context);
    await page.reload();
    await expect(page.getByRole('status', { name: 'Sync status' })).toHaveText('Offline', { useInnerText: true });
    await expect(overview.locator(`[aria-label="Completed: ${completed.length}"]`)).toHaveCount(1);
    await expect(page.getByRole('status').filter({ hasText: olderTasksOffline })).toBeVisible();
    await expect(page.getByText('No tasks found')).toHaveCount(0);
    await expectCleanScreen(page);
    await saveScreen(page, `history-tasks-my-tasks-offline-${width}`, { fullPage: false });
    await context.close();
  });
}
