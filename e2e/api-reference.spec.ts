import {
  demoUsers,
  desktopViewport,
  expect,
  expectNoSidewaysScroll,
  phoneViewport,
  saveScreen,
  saveViewport,
  seriousAxeProblems,
  signIn,
  test,
} from './fixtures';

test.describe('API reference at /api/docs', () => {
  test('a signed-in admin reads every group of routes, with summaries and refusals, at 1280 and 375 px', async ({
    page,
  }) => {
    // axe reads the whole reference (every route's section) once: a long page.
    test.slow();
    await signIn(page, demoUsers.admin.email);
    await page.goto('/api/docs');
    await expect(page.getByRole('heading', { level: 1, name: 'Office Workspace API' })).toBeVisible();
    const groups = page.getByRole('navigation', { name: 'Groups' });
    for (const group of ['Accounts', 'Sync', 'Tasks', 'Team chat', 'Direct messages', 'Search', 'Audit trail'])
      await expect(groups.getByRole('link', { name: group, exact: true })).toBeVisible();
    const deleteTask = page.locator('#delete-api-tasks-id');
    await expect(deleteTask).toContainText('Delete a task (its creator, managers, admins)');
    await expect(deleteTask).toContainText('task_not_found: Task not found. It may have been deleted.');
    await expect(deleteTask).toContainText('Access: Signed in (bearer token)');
    await expect(page.locator('#post-api-auth-login')).toContainText('Access: Public');
    await expect(page.locator('main')).not.toHaveAttribute('aria-busy');
    expect(await seriousAxeProblems(page)).toEqual([]);
    await groups.getByRole('link', { name: 'Tasks', exact: true }).click();
    await saveViewport(page, 'api-reference-1280');

    await page.setViewportSize(phoneViewport);
    await expectNoSidewaysScroll(page);
    expect(await seriousAxeProblems(page, '#group-tasks')).toEqual([]);
    await saveViewport(page, 'api-reference-375');
    await page.setViewportSize(desktopViewport);
  });

  test('an employee is told the reference is for admins; a signed-out visitor is asked to sign in', async ({
    page,
    browser,
  }) => {
    await signIn(page, demoUsers.alice.email);
    const refused = page.waitForResponse('**/api/openapi.json');
    await page.goto('/api/docs');
    expect((await refused).status()).toBe(403);
    await expect(page.getByRole('status')).toHaveText('Only admins can read the API reference. Back to the workspace');
    await expect(page.getByRole('heading', { name: 'Office Workspace API' })).toHaveCount(0);
    await saveScreen(page, 'api-reference-employee-1280');

    const visitor = await browser.newPage();
    await visitor.goto('/api/docs');
    await expect(visitor.getByRole('status')).toHaveText(
      'Sign in to the workspace as an admin to read the API reference. Sign in',
    );
    await expect(visitor.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/login');
    await visitor.close();
  });
});
