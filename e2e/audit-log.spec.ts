import { request as playwrightRequest, type Page } from '@playwright/test';
import {
  baseUrl,
  createApiClient,
  demoUsers,
  desktopViewport,
  expect,
  expectServiceWorkerInControl,
  goOffline,
  goOnline,
  phoneViewport,
  registerPerson,
  saveScreen,
  seriousAxeProblems,
  signIn,
  test,
  type RegisteredPerson,
} from './fixtures';

// Issue 44, "Audit trail": an admin reads who did what, when and from which address in Employee Management's Audit
// log tab: newest first, a page at a time, by person and by kind; the pages read stay readable offline.

/** Axe-checked screenshots of what `page` shows at the desktop and the phone width, then back to the desktop. */
async function captureAtBothWidths(page: Page, name: string): Promise<void> {
  for (const [viewport, suffix] of [
    [desktopViewport, 'desktop'],
    [phoneViewport, 'phone'],
  ] as const) {
    await page.setViewportSize(viewport);
    expect(await seriousAxeProblems(page)).toEqual([]);
    await saveScreen(page, `${name}-${suffix}`, { fullPage: false });
  }
  await page.setViewportSize(desktopViewport);
}

const records = (page: Page) => page.getByRole('list', { name: 'Audit records' }).getByRole('listitem');

test.describe('the audit log', () => {
  let subject: RegisteredPerson;
  let leaver: RegisteredPerson;

  test.beforeAll(async () => {
    const request = await playwrightRequest.newContext({ baseURL: baseUrl() });
    subject = await registerPerson('Audit Subject');
    leaver = await registerPerson('Audit Leaver');
    // More sign-ins of the subject than a page holds (50), then a refused one and a reset by the manager.
    for (let i = 0; i < 51; i++) {
      const signedIn = await request.post('/api/auth/login', {
        data: { email: subject.email, password: subject.password },
      });
      expect(signedIn.status()).toBe(200);
    }
    const refused = await request.post('/api/auth/login', { data: { email: subject.email, password: 'not-the-one' } });
    expect(refused.status()).toBe(401);
    await request.dispose();
    const manager = await createApiClient(demoUsers.manager.email);
    expect((await manager.post(`/api/auth/users/${subject.id}/reset-password`)).status).toBe(200);
    expect((await manager.delete(`/api/auth/users/${leaver.id}`)).status).toBe(200);
    await manager.dispose();
  });

  test('an admin reads it by person and by kind, a page at a time, and offline what was read', async ({
    page,
    context,
  }) => {
    test.setTimeout(120_000);
    await page.setViewportSize(desktopViewport);
    await signIn(page, demoUsers.admin.email);
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Workspace Settings' })
      .click();
    const tabs = page.getByRole('navigation', { name: 'Employee Management' });
    // An admin's tabs: the workspace's Settings and the audit log (no Employees: admins do not manage them).
    await expect(tabs.getByRole('link')).toHaveText(['Settings', 'Audit log']);
    await expect(page.getByRole('group', { name: 'Who may create an account' })).toBeVisible();
    await captureAtBothWidths(page, 'audit-settings-tab-admin');
    await tabs.getByRole('link', { name: 'Audit log' }).click();
    await expect(page).toHaveURL(/\/employees\/audit$/);
    await expect(tabs.getByRole('link', { name: 'Audit log' })).toHaveAttribute('aria-current', 'page');
    // The newest first: the manager's deletion of the leaver is among the first records.
    await expect(records(page).first()).toBeVisible();
    await captureAtBothWidths(page, 'audit-log');

    // By person: what the subject did and what was done to them, newest first.
    await page.getByLabel('Filter by person').selectOption({ label: subject.name });
    const newest = records(page).first();
    await expect(newest).toContainText('Password reset');
    await expect(newest).toContainText(`By:${demoUsers.manager.name}`);
    await expect(newest).toContainText(`About:${subject.name}`);
    await expect(newest).toContainText('Sessions ended:');
    await expect(records(page).nth(1)).toContainText('Sign-in refused');
    await expect(records(page).nth(1)).toContainText('By:Not signed in');
    await expect(records(page).nth(1)).toContainText('Reason:wrong password');
    await expect(records(page).nth(1)).toContainText('From:127.0.0.1');
    await expect(records(page)).toHaveCount(50);
    await expect(page.getByText('Page 1', { exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Newer' })).toBeDisabled();
    await captureAtBothWidths(page, 'audit-log-person');

    // The next page holds the rest of the subject's sign-ins.
    await page.getByRole('button', { name: 'Older' }).click();
    await expect(page.getByText('Page 2', { exact: true })).toBeVisible();
    await expect(records(page)).toHaveCount(3);
    await expect(records(page).first()).toContainText('Signed in');
    await expect(records(page).first()).toContainText('Method:password');
    await expect(page.getByRole('button', { name: 'Older' })).toBeDisabled();
    await page.getByRole('button', { name: 'Newer' }).click();
    await expect(page.getByText('Page 1', { exact: true })).toBeVisible();

    // By kind: the deletion, naming who deleted whom.
    await page.getByLabel('Filter by person').selectOption({ label: 'Everyone' });
    await page.getByLabel('Filter by kind').selectOption({ label: 'Employee deleted' });
    const deletion = records(page).filter({ hasText: leaver.name });
    await expect(deletion).toHaveCount(1);
    await expect(deletion).toContainText(`By:${demoUsers.manager.name}`);
    for (const shown of await records(page).all()) await expect(shown).toContainText('Employee deleted');
    // A deleted person is still found: the records name them, and the filter offers them.
    await page.getByLabel('Filter by person').selectOption({ label: `${leaver.name} (no longer here)` });
    await expect(records(page)).toHaveCount(1);
    await expect(records(page).first()).toContainText(`About:${leaver.name}`);
    await page.getByLabel('Filter by person').selectOption({ label: 'Everyone' });
    await page.getByLabel('Filter by kind').selectOption({ label: 'All kinds' });
    await expect(records(page).first()).toBeVisible();

    // Offline: the pages read on this device are there, after a reload too; one never read says so.
    await expectServiceWorkerInControl(page);
    await goOffline(context);
    await page.reload();
    await page.getByLabel('Filter by person').selectOption({ label: subject.name });
    await expect(page.getByText(/You are offline\. Showing this device's copy of the page, read/)).toBeVisible();
    await expect(records(page).first()).toContainText('Password reset');
    await expect(records(page)).toHaveCount(50);
    await captureAtBothWidths(page, 'audit-log-offline');
    await page.getByLabel('Filter by kind').selectOption({ label: 'Invitation withdrawn' });
    await expect(page.getByRole('heading', { name: 'Not on this device' })).toBeVisible();
    await captureAtBothWidths(page, 'audit-log-offline-unread');
    await goOnline(context);
    await expect(page.getByRole('heading', { name: 'Not on this device' })).toHaveCount(0);
  });
});

test('managers and employees have no audit log', async ({ page }) => {
  await signIn(page, demoUsers.manager.email);
  await page.goto('/employees');
  const tabs = page.getByRole('navigation', { name: 'Employee Management' });
  await expect(tabs.getByRole('link', { name: 'Settings' })).toBeVisible();
  await expect(tabs.getByRole('link', { name: 'Audit log' })).toHaveCount(0);
  await page.goto('/employees/audit');
  await expect(page).toHaveURL(/\/dashboard$/);
});
