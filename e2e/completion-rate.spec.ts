import type { Page } from '@playwright/test';
import { createTask, unique } from './api-helpers';
import {
  demoUsers,
  desktopViewport,
  expect,
  openDevice,
  phoneViewport,
  registerPerson,
  saveScreen,
  seriousAxeProblems,
  test,
} from './fixtures';

// Someone without tasks has no completion rate (issue 41): Employees (card and detail) and My Tasks say "No tasks"
// in neutral grey where they showed a red 0%; with a task the rate comes back, coloured as the spec says.

const employeeCard = (page: Page, name: string) =>
  page
    .getByRole('list', { name: 'Employees', exact: true })
    .getByRole('listitem')
    .filter({ has: page.getByRole('button', { name: `View details for ${name}`, exact: true }) });

test('a new employee without tasks shows no rate, neutral, on Employees and My Tasks, at 1280 and 375 px', async ({
  browser,
  apiAs,
}) => {
  // Four sign-ins at two widths, with screenshots.
  test.slow();
  const manager = await apiAs(demoUsers.manager.email);
  const newcomer = await registerPerson(`Nia Notask ${unique().slice(-6)}`);

  for (const viewport of [desktopViewport, phoneViewport]) {
    const [context, page] = await openDevice(browser, demoUsers.manager, viewport);
    await page.goto('/employees');
    await page.getByRole('searchbox', { name: 'Search employees...' }).fill(newcomer.name);
    const card = employeeCard(page, newcomer.name);
    await expect(card).toHaveCount(1);
    await expect(card).toContainText('Completion RateNo tasks');
    await expect(card).not.toContainText('0%');
    await expect(card.getByRole('progressbar')).toHaveCount(0);
    const color = await card
      .getByText('No tasks', { exact: true })
      .evaluate((element) => getComputedStyle(element).color);
    // Neutral grey (the muted text colour), never the red of a poor rate.
    expect(color).toBe('rgb(91, 100, 117)');
    expect(await seriousAxeProblems(page, 'main')).toEqual([]);
    await saveScreen(page, `completion-no-tasks-card-${viewport.width}`);

    await card.getByRole('button', { name: `View details for ${newcomer.name}` }).click();
    const detail = page.getByRole('dialog', { name: newcomer.name });
    await expect(detail.getByRole('region', { name: 'Performance Overview' })).toContainText('No tasks');
    await expect(detail).not.toContainText('0%');
    await saveScreen(page, `completion-no-tasks-detail-${viewport.width}`);
    await context.close();

    const [theirContext, theirPage] = await openDevice(browser, newcomer, viewport);
    await theirPage.goto('/my-tasks');
    const rate = theirPage.getByRole('group', { name: 'Completion Rate: No tasks' });
    await expect(rate).toBeVisible();
    await expect(rate).toContainText('—');
    await expect(rate).not.toContainText('0%');
    await saveScreen(theirPage, `completion-no-tasks-my-tasks-${viewport.width}`);
    await theirContext.close();
  }

  // One task, not yet done: a rate of 0% now, in the spec's red.
  await createTask(manager, { title: `First task ${unique()}`, assignedTo: newcomer.id });
  const [context, page] = await openDevice(browser, newcomer);
  await page.goto('/my-tasks');
  await expect(page.getByRole('group', { name: 'Completion Rate: 0%' })).toBeVisible();
  await context.close();
});
