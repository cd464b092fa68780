import { join } from 'node:path';
import type { APIRequestContext, Locator, Page, Route } from '@playwright/test';
import Database from 'better-sqlite3';
import {
  createApiClient,
  demoUsers,
  expect,
  expectNoSidewaysScroll,
  goOffline,
  goOnline,
  openDevice,
  phoneViewport,
  registerPerson,
  saveScreen,
  signIn,
  skipSplash,
  test,
  type ApiClient,
  type RegisteredPerson,
} from './fixtures';
import {
  createTask,
  isoDate,
  serverTasks,
  taskPriorityLabel,
  taskStatusLabel,
  unique,
  type ServerTask,
  type TaskPriority,
  type TaskStatus,
} from './api-helpers';

// Employee Management (/employees, spec sections 2, 3, 4, 6 and 8): the manager's cards with presence,
// counts, completion rate and overdue warning; search, status filter, the Online Now tile and the
// Grid/List toggle; the detail modal; deleting an employee (their open session ends, the success alert
// clears after 3 s); failures inside the modal; the guard that keeps everyone else out.
//
// The server is shared with every other spec file, which register and sign in people of their own
// meanwhile: each test registers fresh employees with a unique tag, narrows the list to them with the
// search box, and compares the screen's totals with the server's answer at that moment (retried).

/** One card as GET /api/employees answers it (the fields these tests read). */
interface ServerSummary {
  user: { id: string; name: string };
  presence: 'online' | 'away' | 'offline';
  taskCounts: { total: number; completed: number; working: number; inProgress: number; overdue: number };
  teamChatMessages: number;
  completionRate: number;
  recentTasks: { id: string; title: string; status: TaskStatus; dueDate: string; priority: TaskPriority }[];
}

/** A due date as the detail shows it: "Jun 15, 2030". */
const shownDate = (iso: string): string => {
  const [year, month, day] = iso.split('-').map(Number) as [number, number, number];
  return new Date(year, month - 1, day).toLocaleDateString('en-US', {
    month: 'short',
    day: 'numeric',
    year: 'numeric',
  });
};

/**
 * Registers fresh employees whose names share one new tag (searching it lists exactly them); returns
 * the tag, the people in the order named, and the manager's API client for the test's setup and checks.
 */
async function registerTagged<const Names extends readonly string[]>(
  apiAs: (email: string) => Promise<ApiClient>,
  ...firstNames: Names
): Promise<{ tag: string; manager: ApiClient; people: { [K in keyof Names]: RegisteredPerson } }> {
  const tag = unique();
  const people = await Promise.all(firstNames.map((first) => registerPerson(`${first} ${tag}`)));
  const manager = await apiAs(demoUsers.manager.email);
  return { tag, manager, people: people as { [K in keyof Names]: RegisteredPerson } };
}

async function serverEmployees(api: ApiClient): Promise<ServerSummary[]> {
  const answer = await api.get<{ employees: ServerSummary[] }>('/api/employees');
  expect(answer.status, 'GET /api/employees').toBe(200);
  return answer.body.employees;
}

/** Creates a task for `assignee` as the manager; `overdue` moves its due date to yesterday afterwards. */
async function createTaskFor(
  manager: ApiClient,
  assignee: RegisteredPerson,
  {
    overdue,
    ...fields
  }: { title: string; status: TaskStatus; priority: TaskPriority; dueDate?: string; overdue?: boolean },
): Promise<ServerTask> {
  const task = await createTask(manager, { ...fields, assignedTo: assignee.id });
  if (overdue) await letADayPass(manager, task.id, fields.title);
  return task;
}

/**
 * Makes a task due yesterday, as if it had been created a day earlier. The server refuses a due date in the
 * past, on creation and on an edit that changes it, so the date is written into the database the server
 * runs on; an edit that leaves it as it is then carries the task to every device.
 */
async function letADayPass(manager: ApiClient, taskId: string, title: string): Promise<void> {
  const yesterday = isoDate(-1);
  const db = new Database(join(process.env.E2E_DATA_DIR ?? '', 'workspace.db'));
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare('UPDATE tasks SET due_date = ? WHERE id = ?').run(yesterday, taskId);
  } finally {
    db.close();
  }
  const carried = await manager.put(`/api/tasks/${taskId}`, { dueDate: yesterday });
  expect(carried.status, `making "${title}" overdue`).toBe(200);
}

/** A team chat message sent as `person`, with the token of their registration. */
async function sendChat(request: APIRequestContext, person: RegisteredPerson, text: string): Promise<void> {
  const response = await request.post('/api/messages', {
    data: { text },
    headers: { Authorization: `Bearer ${person.token}` },
  });
  expect(response.status(), 'sending a chat message').toBe(201);
}

/** /employees: the list, one card by name, the names shown. */
const employeeList = (page: Page): Locator => page.getByRole('list', { name: 'Employees', exact: true });
const cards = (page: Page): Locator => employeeList(page).getByRole('listitem');
const openButton = (scope: Page | Locator, name: string): Locator =>
  scope.getByRole('button', { name: `View details for ${name}`, exact: true });
const card = (page: Page, name: string): Locator => cards(page).filter({ has: openButton(page, name) });
const shownNames = async (page: Page): Promise<string[]> =>
  (await employeeList(page).getByRole('heading', { level: 3 }).allTextContents()).sort();
const searchBox = (page: Page): Locator => page.getByRole('searchbox', { name: 'Search employees...' });
const statusFilter = (page: Page): Locator => page.getByRole('combobox', { name: 'Filter by status' });
const onlineTile = (page: Page): Locator => page.getByRole('button', { name: /^Online Now: \d+$/ });
const totalTile = (page: Page): Locator => page.getByRole('group', { name: /^Total Employees: / });
const tileNumber = async (tile: Locator): Promise<number> =>
  Number((await tile.getAttribute('aria-label'))?.split(': ')[1]);

/** A card's counts as { label: value }, from its definition list. */
async function cardCounts(scope: Locator): Promise<Record<string, string>> {
  return scope
    .locator('dl > div')
    .evaluateAll((rows) =>
      Object.fromEntries(
        rows.map((row) => [row.querySelector('dt')?.textContent ?? '', row.querySelector('dd')?.textContent ?? '']),
      ),
    );
}

/** The labels of a card's counts that take more than one line (none should, even on a phone). */
async function wrappedCountLabels(scope: Locator): Promise<string[]> {
  return scope.locator('dl > div > dt').evaluateAll((labels) =>
    labels
      .filter((label) => {
        const range = document.createRange();
        range.selectNodeContents(label);
        return new Set(Array.from(range.getClientRects(), (rect) => Math.round(rect.top))).size > 1;
      })
      .map((label) => label.textContent ?? ''),
  );
}

/** The status counts of a card add up to its total. */
function expectStatusesMakeTotal(counts: Record<string, string>): void {
  const sum = ['Completed', 'Working', 'Pending', 'Waiting'].reduce((total, label) => total + Number(counts[label]), 0);
  expect(sum, JSON.stringify(counts)).toBe(Number(counts['Total Tasks']));
}

/** The detail's stat tiles as { label: value }, read from their "Label: value" names. */
async function statTiles(region: Locator): Promise<Record<string, string>> {
  const names = await region.getByRole('group').evaluateAll((tiles) => tiles.map((t) => t.getAttribute('aria-label')));
  return Object.fromEntries(names.map((name) => (name ?? '').split(': ') as [string, string]));
}

async function openEmployees(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Employees' }).click();
  await expect(page).toHaveURL(/\/employees$/);
  await expect(page.getByRole('heading', { name: 'Employee Management', level: 1 })).toBeVisible();
}

/** Signs the manager in on `page` and opens /employees with the list narrowed to `tag`'s employees. */
async function showTagged(page: Page, tag: string): Promise<void> {
  await signIn(page, demoUsers.manager.email);
  await openEmployees(page);
  await searchBox(page).fill(tag);
}

test.describe('Employee Management', () => {
  test('the manager searches, filters by status and by the Online Now tile, and switches between grid and list', async ({
    browser,
    page,
    apiAs,
  }) => {
    const { tag, manager, people } = await registerTagged(apiAs, 'Olivia', 'Oscar');
    const [online, offline] = people;

    // Olivia keeps the app open; Oscar signs in and leaves, so the server has seen him just now.
    const [oliviaContext] = await openDevice(browser, online);
    const [oscarContext] = await openDevice(browser, offline);
    await expect
      .poll(async () => (await serverEmployees(manager)).find((e) => e.user.id === offline.id)?.presence)
      .toBe('online');
    await oscarContext.close();

    await showTagged(page, tag);

    await test.step('the header tiles count the employees and those online, as the server does', async () => {
      await expect(async () => {
        const employees = await serverEmployees(manager);
        expect(await tileNumber(totalTile(page))).toBe(employees.length);
        expect(await tileNumber(onlineTile(page))).toBe(employees.filter((e) => e.presence !== 'offline').length);
      }).toPass();
    });

    await test.step('search matches the name and the email; the cards show presence and last seen', async () => {
      await expect(cards(page)).toHaveCount(2);
      await expect.poll(() => shownNames(page)).toEqual([online.name, offline.name].sort());
      await expect(card(page, online.name).getByText('Online', { exact: true })).toBeVisible();
      await expect(card(page, offline.name).getByText('Offline', { exact: true })).toBeVisible();
      await expect(card(page, offline.name).getByText('Last seen less than a minute ago')).toBeVisible();
      await expect(card(page, online.name).getByText(/^Last seen/)).toHaveCount(0);
      await expect(page.getByText('Showing 2 of')).toBeVisible();

      await searchBox(page).fill(offline.email.toUpperCase());
      await expect.poll(() => shownNames(page)).toEqual([offline.name]);
      await searchBox(page).fill(tag);
    });

    await test.step('the status filter keeps the online or the offline ones', async () => {
      await statusFilter(page).selectOption({ label: 'Online' });
      await expect(cards(page)).toHaveCount(1);
      await expect.poll(() => shownNames(page)).toEqual([online.name]);
      await statusFilter(page).selectOption({ label: 'Offline' });
      await expect(cards(page)).toHaveCount(1);
      await expect.poll(() => shownNames(page)).toEqual([offline.name]);
      await statusFilter(page).selectOption({ label: 'All Status' });
      await expect(cards(page)).toHaveCount(2);
    });

    await test.step('the Online Now tile toggles the online filter', async () => {
      await expect(onlineTile(page)).toHaveAttribute('aria-pressed', 'false');
      await onlineTile(page).click();
      await expect(onlineTile(page)).toHaveAttribute('aria-pressed', 'true');
      await expect(statusFilter(page)).toHaveValue('online');
      await expect(cards(page)).toHaveCount(1);
      await expect.poll(() => shownNames(page)).toEqual([online.name]);
      await onlineTile(page).click();
      await expect(onlineTile(page)).toHaveAttribute('aria-pressed', 'false');
      await expect(statusFilter(page)).toHaveValue('all');
      await expect(cards(page)).toHaveCount(2);
    });

    await test.step('Olivia leaving shows live: she moves to the offline side', async () => {
      await oliviaContext.close();
      await expect(card(page, online.name).getByText('Offline', { exact: true })).toBeVisible();
      await expect(card(page, online.name).getByText(/^Last seen/)).toBeVisible();
      await onlineTile(page).click();
      await expect(page.getByRole('heading', { name: 'No employees found' })).toBeVisible();
      await expect(page.getByText(`No online employees match "${tag}".`)).toBeVisible();
      await onlineTile(page).click();
      await expect(cards(page)).toHaveCount(2);
    });

    await test.step('Grid shows the cards side by side, List one row per employee across the width', async () => {
      const gridButton = page.getByRole('button', { name: 'Grid view' });
      const listButton = page.getByRole('button', { name: 'List view' });
      await expect(gridButton).toHaveAttribute('aria-pressed', 'true');
      await expect(listButton).toHaveAttribute('aria-pressed', 'false');
      const [first, second] = [cards(page).nth(0), cards(page).nth(1)];
      const gridBoxes = [await first.boundingBox(), await second.boundingBox()];
      expect(gridBoxes[0]?.y, 'two cards in one row').toBe(gridBoxes[1]?.y);
      await saveScreen(page, 'employees-desktop-grid');

      await listButton.click();
      await expect(listButton).toHaveAttribute('aria-pressed', 'true');
      await expect(gridButton).toHaveAttribute('aria-pressed', 'false');
      const listBoxes = [await first.boundingBox(), await second.boundingBox()];
      expect(listBoxes[0]?.x, 'rows stacked').toBe(listBoxes[1]?.x);
      expect(listBoxes[1]?.y ?? 0).toBeGreaterThan((listBoxes[0]?.y ?? 0) + (listBoxes[0]?.height ?? 0) - 1);
      expect(listBoxes[0]?.width ?? 0, 'a row spans the list').toBeGreaterThan(900);
      // The counts stay readable in a row.
      expect(await cardCounts(card(page, offline.name))).toEqual({
        'Total Tasks': '0',
        Completed: '0',
        Working: '0',
        Pending: '0',
        Waiting: '0',
        Messages: '0',
      });
      await saveScreen(page, 'employees-desktop-list');
    });

    await test.step('a search that matches nothing names the search text', async () => {
      await searchBox(page).fill(`nobody-${tag}`);
      await expect(cards(page)).toHaveCount(0);
      await expect(page.getByRole('heading', { name: 'No employees found' })).toBeVisible();
      await expect(page.getByText(`No employees match "nobody-${tag}".`)).toBeVisible();
    });
  });

  test("the card and the detail show the employee's counts, completion rate, overdue warning and recent tasks", async ({
    page,
    request,
    apiAs,
  }) => {
    const { tag, manager, people } = await registerTagged(apiAs, 'Dana', 'Ivan');
    const [busy, idle] = people;

    // Six tasks: 2 completed, 1 working, 3 open (one of them overdue); rate round(2 / 6) = 33 %.
    const plan: { status: TaskStatus; priority: TaskPriority; overdue?: boolean }[] = [
      { status: 'completed', priority: 'low' },
      { status: 'completed', priority: 'medium' },
      { status: 'working', priority: 'high' },
      { status: 'pending', priority: 'critical', overdue: true },
      { status: 'pending', priority: 'medium' },
      { status: 'waiting', priority: 'low' },
    ];
    for (const [index, task] of plan.entries()) {
      await createTaskFor(manager, busy, {
        ...task,
        title: `Dana task ${index + 1} ${tag}`,
        dueDate: isoDate(index + 2),
      });
    }
    for (const text of ['Morning all', 'Report is up', 'Thanks!']) await sendChat(request, busy, `${text} ${tag}`);

    const summary = (await serverEmployees(manager)).find((e) => e.user.id === busy.id);
    expect(summary?.taskCounts).toEqual({
      total: 6,
      completed: 2,
      working: 1,
      pending: 2,
      waiting: 1,
      inProgress: 4,
      overdue: 1,
    });
    expect(summary?.completionRate).toBe(33);
    expect(summary?.recentTasks).toHaveLength(5);

    await showTagged(page, tag);
    await expect(cards(page)).toHaveCount(2);

    await test.step('the card', async () => {
      const dana = card(page, busy.name);
      await expect(dana.getByText(busy.email)).toBeVisible();
      await expect(dana.getByRole('img', { name: `${busy.name} avatar` })).toBeVisible();
      // One count per status, adding up to the total; overdue is the warning under the rate.
      await expect
        .poll(() => cardCounts(dana))
        .toEqual({ 'Total Tasks': '6', Completed: '2', Working: '1', Pending: '2', Waiting: '1', Messages: '3' });
      expectStatusesMakeTotal(await cardCounts(dana));
      await expect(dana.getByRole('progressbar', { name: 'Completion rate' })).toHaveAttribute('aria-valuenow', '33');
      await expect(dana.getByText('33%')).toBeVisible();
      await expect(dana.getByText('1 overdue task', { exact: true })).toBeVisible();
      // Red below 60 (spec section 4).
      const barColour = await dana
        .getByRole('progressbar', { name: 'Completion rate' })
        .locator('span')
        .evaluate((bar) => getComputedStyle(bar).backgroundColor);
      expect(barColour).toBe('rgb(220, 38, 38)');
      await expect(card(page, idle.name).getByText(/overdue task/)).toHaveCount(0);
    });

    await test.step('the detail: four tiles, the performance overview and the 5 most recent tasks', async () => {
      await openButton(page, busy.name).click();
      const dialog = page.getByRole('dialog', { name: busy.name });
      await expect(dialog).toBeVisible();
      expect(await statTiles(dialog.getByRole('region', { name: 'Task statistics' }))).toEqual({
        Completed: '2',
        Working: '1',
        'In Progress': '4',
        Overdue: '1',
      });
      await expect(dialog.getByRole('heading', { name: 'Performance Overview' })).toBeVisible();
      await expect(dialog.getByRole('progressbar', { name: 'Completion rate' })).toHaveAttribute('aria-valuenow', '33');
      await expect(dialog.getByText('2 of 6 tasks completed')).toBeVisible();

      const items = dialog.getByRole('list', { name: 'Recent tasks' }).getByRole('listitem');
      await expect(items).toHaveCount(5);
      const recent = summary?.recentTasks ?? [];
      for (const [index, task] of recent.entries()) {
        const item = items.nth(index);
        await expect(item.getByText(task.title, { exact: true })).toBeVisible();
        await expect(item.getByText(taskStatusLabel[task.status], { exact: true })).toBeVisible();
        await expect(item.getByText(taskPriorityLabel[task.priority], { exact: true })).toBeVisible();
        await expect(item.getByText(shownDate(task.dueDate), { exact: true })).toBeVisible();
      }
      // The overdue one carries its badge and reads "Overdue by 1 day".
      const late = items.filter({ hasText: 'Dana task 4' });
      await expect(late.getByText('Overdue', { exact: true })).toBeVisible();
      await expect(late.getByText('Overdue by 1 day', { exact: true })).toBeVisible();
      // A completed one reads when it was completed, never a due warning.
      const completed = items.filter({ hasText: 'Dana task 2' });
      await expect(completed.getByText(/^Completed .+ ago$/)).toBeVisible();
      await expect(completed.getByText(/Overdue by|Due (in|today|tomorrow)/)).toHaveCount(0);
      await saveScreen(page, 'employees-desktop-detail');
      await dialog.getByRole('button', { name: 'Close' }).click();
      await expect(dialog).toBeHidden();
    });

    await test.step('an employee without tasks: zeros, "No tasks" instead of a rate, and "no tasks"', async () => {
      // Anywhere on the card opens it, not only the name.
      await card(page, idle.name).click();
      const dialog = page.getByRole('dialog', { name: idle.name });
      expect(await statTiles(dialog.getByRole('region', { name: 'Task statistics' }))).toEqual({
        Completed: '0',
        Working: '0',
        'In Progress': '0',
        Overdue: '0',
      });
      // No rate to colour red: the bar is an empty track, and "No tasks" stands where the percentage would.
      await expect(dialog.getByRole('progressbar', { name: 'Completion rate' })).toHaveCount(0);
      await expect(dialog.getByText('No tasks', { exact: true })).toBeVisible();
      await expect(dialog.getByText('0%', { exact: true })).toHaveCount(0);
      await expect(dialog.getByText('no tasks', { exact: true })).toBeVisible();
      await page.keyboard.press('Escape');
      await expect(dialog).toBeHidden();
    });

    await test.step('a task completed elsewhere updates the card live', async () => {
      const open = (await serverTasks(manager)).find((task) => task.title === `Dana task 5 ${tag}`);
      expect(open).toBeDefined();
      const done = await manager.put(`/api/tasks/${open?.id ?? ''}`, { status: 'completed' });
      expect(done.status).toBe(200);
      const dana = card(page, busy.name);
      await expect(dana.getByRole('progressbar', { name: 'Completion rate' })).toHaveAttribute('aria-valuenow', '50');
      expect(await cardCounts(dana)).toMatchObject({ Completed: '3', Pending: '1' });
      expectStatusesMakeTotal(await cardCounts(dana));
    });
  });

  test('deleting an employee ends their open session, removes the card and shows a success alert for 3 seconds', async ({
    browser,
    page,
    context,
    apiAs,
  }) => {
    const { tag, manager, people } = await registerTagged(apiAs, 'Lena');
    const [leaver] = people;
    const openTask = await createTaskFor(manager, leaver, {
      title: `Lena open ${tag}`,
      status: 'working',
      priority: 'high',
    });
    const doneTask = await createTaskFor(manager, leaver, {
      title: `Lena done ${tag}`,
      status: 'completed',
      priority: 'low',
    });

    // Lena's own device, signed in and open on My Tasks.
    const [leaverContext, leaverPage] = await openDevice(browser, leaver);
    await leaverPage.goto('/my-tasks');
    await expect(leaverPage.getByText(openTask.title)).toBeVisible();

    await showTagged(page, tag);
    await expect(card(page, leaver.name).getByText('Online', { exact: true })).toBeVisible();

    await test.step('Cancel closes the confirmation and deletes nothing', async () => {
      await card(page, leaver.name)
        .getByRole('button', { name: `Delete ${leaver.name}`, exact: true })
        .click();
      const dialog = page.getByRole('dialog', { name: 'Delete Employee' });
      await expect(dialog).toBeVisible();
      await expect(dialog.getByText(leaver.name)).toBeVisible();
      await expect(dialog.getByText(/open tasks become unassigned/)).toBeVisible();
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect(dialog).toBeHidden();
      await expect(card(page, leaver.name)).toBeVisible();
      expect((await serverEmployees(manager)).some((e) => e.user.id === leaver.id)).toBe(true);
    });

    await test.step('"Deleting..." while the call runs, then the alert, and the card goes', async () => {
      // Hold the call until the busy state has been seen.
      let release = (): void => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      const hold = async (route: Route): Promise<void> => {
        if (route.request().method() !== 'DELETE') return route.fallback();
        await held;
        return route.fallback();
      };
      await context.route('**/api/auth/users/*', hold);

      await card(page, leaver.name)
        .getByRole('button', { name: `Delete ${leaver.name}`, exact: true })
        .click();
      const dialog = page.getByRole('dialog', { name: 'Delete Employee' });
      await dialog.getByRole('button', { name: 'Delete Employee' }).click();
      const busyButton = dialog.getByRole('button', { name: 'Deleting...' });
      await expect(busyButton).toBeDisabled();
      await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeDisabled();
      release();
      await context.unroute('**/api/auth/users/*', hold);

      const alert = page.getByRole('status').filter({ hasText: `${leaver.name} has been successfully deleted.` });
      await expect(alert).toBeVisible();
      const shownAt = Date.now();
      await expect(dialog).toBeHidden();
      await expect(card(page, leaver.name)).toHaveCount(0);
      await expect(page.getByRole('heading', { name: 'No employees found' })).toBeVisible();
      await saveScreen(page, 'employees-desktop-deleted');
      await expect(alert).toBeHidden({ timeout: 6_000 });
      const shownFor = Date.now() - shownAt;
      expect(shownFor, 'the alert stays about 3 seconds').toBeGreaterThan(2_000);
      expect(shownFor).toBeLessThan(5_000);
    });

    await test.step("Lena's open session is signed out", async () => {
      // The server dropped her socket and refuses her token from now on: her app signs out by itself.
      await expect(leaverPage).toHaveURL(/\/login$/, { timeout: 30_000 });
      await expect(leaverPage.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
      await leaverContext.close();
    });

    await test.step('the server: she cannot sign in, is no longer listed, and her history is kept', async () => {
      await expect(createApiClient(leaver.email)).rejects.toThrow(/401/);
      expect((await serverEmployees(manager)).some((e) => e.user.id === leaver.id)).toBe(false);
      const tasks = await serverTasks(manager);
      expect(tasks.find((task) => task.id === openTask.id)?.assignedTo).toBeNull();
      expect(tasks.find((task) => task.id === doneTask.id)?.assignedTo?.id).toBe(leaver.id);
    });
  });

  test('a refused or unreachable delete shows its error inside the modal and deletes nothing', async ({
    page,
    context,
    apiAs,
  }) => {
    const { tag, manager, people } = await registerTagged(apiAs, 'Sam', 'Gina');
    const [stays, gone] = people;

    await showTagged(page, tag);
    await expect(cards(page)).toHaveCount(2);
    const dialog = page.getByRole('dialog', { name: 'Delete Employee' });

    await test.step('offline: "Failed to delete employee. Please try again."', async () => {
      await goOffline(context);
      await card(page, stays.name)
        .getByRole('button', { name: `Delete ${stays.name}` })
        .click();
      await expect(dialog.getByText('You are offline. Deleting an employee needs a connection.')).toBeVisible();
      await dialog.getByRole('button', { name: 'Delete Employee' }).click();
      await expect(dialog.getByRole('alert')).toHaveText('Failed to delete employee. Please try again.');
      await expect(dialog.getByRole('button', { name: 'Delete Employee' })).toBeEnabled();
      await goOnline(context);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect(dialog).toBeHidden();
      await expect(card(page, stays.name)).toBeVisible();
      expect((await serverEmployees(manager)).some((e) => e.user.id === stays.id)).toBe(true);
    });

    await test.step("refused by the server: the server's message", async () => {
      await card(page, gone.name)
        .getByRole('button', { name: `Delete ${gone.name}` })
        .click();
      await expect(dialog).toBeVisible();
      // Someone else deletes her first; this manager's confirmation is still open.
      const first = await manager.delete(`/api/auth/users/${gone.id}`);
      expect(first.status).toBe(200);
      await expect(card(page, gone.name)).toHaveCount(0);
      await dialog.getByRole('button', { name: 'Delete Employee' }).click();
      await expect(dialog.getByRole('alert')).toHaveText('User not found.');
      await expect(page.getByRole('status').filter({ hasText: 'has been successfully deleted' })).toHaveCount(0);
      await dialog.getByRole('button', { name: 'Close' }).click();
      await expect(dialog).toBeHidden();
    });
  });

  test('on a phone the cards take one column, the list stays readable and the detail fits', async ({
    browser,
    apiAs,
  }) => {
    const { tag, manager, people } = await registerTagged(apiAs, 'Priya', 'Paul');
    const [one] = people;
    await createTaskFor(manager, one, { title: `Priya report ${tag}`, status: 'completed', priority: 'high' });
    await createTaskFor(manager, one, { title: `Priya slides ${tag}`, status: 'working', priority: 'medium' });
    await createTaskFor(manager, one, {
      title: `Priya late ${tag}`,
      status: 'pending',
      priority: 'critical',
      overdue: true,
    });

    const context = await browser.newContext({ viewport: phoneViewport, isMobile: true, hasTouch: true });
    await skipSplash(context);
    const page = await context.newPage();
    await signIn(page, demoUsers.manager.email);
    await page.goto('/employees');
    await expect(page.getByRole('heading', { name: 'Employee Management', level: 1 })).toBeVisible();
    await searchBox(page).fill(tag);
    await expect(cards(page)).toHaveCount(2);

    const [first, second] = [await cards(page).nth(0).boundingBox(), await cards(page).nth(1).boundingBox()];
    expect(first?.x, 'one column').toBe(second?.x);
    expect(first?.width ?? 0).toBeGreaterThan(300);
    await expectNoSidewaysScroll(page);
    await expect(card(page, one.name).getByText('1 overdue task')).toBeVisible();
    expect(await wrappedCountLabels(card(page, one.name)), 'count labels on one line').toEqual([]);
    await saveScreen(page, 'employees-phone-grid');

    await page.getByRole('button', { name: 'List view' }).click();
    await expect(page.getByRole('button', { name: 'List view' })).toHaveAttribute('aria-pressed', 'true');
    await expectNoSidewaysScroll(page);
    expect(await cardCounts(card(page, one.name))).toEqual({
      'Total Tasks': '3',
      Completed: '1',
      Working: '1',
      Pending: '1',
      Waiting: '0',
      Messages: '0',
    });
    expect(await wrappedCountLabels(card(page, one.name)), 'count labels on one line').toEqual([]);
    await saveScreen(page, 'employees-phone-list');

    await openButton(page, one.name).click();
    const dialog = page.getByRole('dialog', { name: one.name });
    await expect(dialog.getByRole('list', { name: 'Recent tasks' }).getByRole('listitem')).toHaveCount(3);
    await expectNoSidewaysScroll(page);
    await saveScreen(page, 'employees-phone-detail');
    await dialog.getByRole('button', { name: 'Close' }).click();

    await card(page, one.name)
      .getByRole('button', { name: `Delete ${one.name}` })
      .click();
    await expect(page.getByRole('dialog', { name: 'Delete Employee' })).toBeVisible();
    await saveScreen(page, 'employees-phone-delete');
    await context.close();
  });

  test('employees and admins cannot open /employees: the guard sends them to the dashboard', async ({
    browser,
    page,
  }) => {
    const person = await registerPerson('Eve');
    await signIn(page, person.email);
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    await expect(nav.getByRole('link', { name: 'My Tasks' })).toBeVisible();
    await expect(nav.getByRole('link', { name: 'Employees' })).toHaveCount(0);
    await page.goto('/employees');
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole('heading', { name: 'Employee Management' })).toHaveCount(0);

    const [adminContext, adminPage] = await openDevice(browser, demoUsers.admin);
    await adminPage.goto('/employees');
    await expect(adminPage).toHaveURL(/\/dashboard$/);
    await adminContext.close();
  });
});
