import type { Browser, BrowserContext, Page } from '@playwright/test';
import {
  createApiClient,
  DEMO_PASSWORD,
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
  skipSplash,
  test,
} from './fixtures';
import { startOwnServer, type OwnServer } from './own-server';

// Issue 41, points 10 and 11: who may join (an admin makes the workspace invite-only, a manager's invitation link
// admits a new person, sign-up without one is refused) and a forgotten password (a manager resets it to a one-time
// code, the person signs in with it and must choose a new password first).

const invitationOnly =
  'This workspace is by invitation only. Ask your manager or administrator for an invitation link.';
const resetNotice =
  'Your password was reset by a manager or administrator. Sign in with the one-time code they gave you.';

async function expectNoSeriousAxeProblems(page: Page): Promise<void> {
  expect(await seriousAxeProblems(page)).toEqual([]);
}

/** A fresh browser context on `baseURL` (a server of the test's own, or the shared one), the splash skipped. */
async function newDevice(
  browser: Browser,
  options: { baseURL?: string; viewport?: { width: number; height: number } } = {},
): Promise<[BrowserContext, Page]> {
  const context = await browser.newContext({
    viewport: options.viewport ?? desktopViewport,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
  });
  await skipSplash(context);
  return [context, await context.newPage()];
}

/** Screenshots of what `page` shows at the desktop and the phone width, axe-checked at both; back to `restore`. */
async function captureAtBothWidths(
  page: Page,
  name: string,
  restore: { width: number; height: number } = desktopViewport,
): Promise<void> {
  for (const [viewport, suffix] of [
    [desktopViewport, 'desktop'],
    [phoneViewport, 'phone'],
  ] as const) {
    await page.setViewportSize(viewport);
    await expectNoSeriousAxeProblems(page);
    await saveScreen(page, `${name}-${suffix}`);
  }
  await page.setViewportSize(restore);
}

test.describe('who may join', () => {
  let server: OwnServer;

  test.beforeAll(async () => {
    // The policy is the workspace's: on the shared server it would refuse the other tests' sign-ups.
    server = await startOwnServer();
  });

  test.afterAll(async () => {
    await server.stop();
  });

  test('an admin makes the workspace invite-only; an invited person signs up through the link; without one, sign-up is refused', async ({
    browser,
  }) => {
    test.setTimeout(120_000);
    // Someone who opened the sign-up screen while the workspace was open, and submits after it closed.
    const [lateContext, late] = await newDevice(browser, { baseURL: server.url });
    await late.goto('/signup');
    await expect(late.getByRole('button', { name: 'Create account' })).toBeVisible();

    const [adminContext, admin] = await newDevice(browser, { baseURL: server.url });
    await signIn(admin, demoUsers.admin.email);
    const nav = admin.getByRole('navigation', { name: 'Main navigation' });
    await nav.getByRole('link', { name: 'Workspace Settings' }).click();
    await expect(admin).toHaveURL(/\/employees\/settings$/);
    await expect(admin.getByRole('heading', { name: 'Workspace Settings', level: 1 })).toBeVisible();
    const policy = admin.getByRole('group', { name: 'Who may create an account' });
    await expect(policy.getByRole('radio', { name: /Anyone with the link/ })).toBeChecked();
    await expect(admin.getByText("The server's default (SIGNUP_POLICY)")).toBeVisible();
    await captureAtBothWidths(admin, 'access-settings');

    await policy.getByRole('radio', { name: /Invited people only/ }).check();
    await admin.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(admin.getByRole('status').filter({ hasText: 'Sign-up setting saved.' })).toBeVisible();
    await expect(admin.getByText(/^Set by Adam Admin on /)).toBeVisible();
    const options = (await (await fetch(`${server.url}/api/auth/signup-options`)).json()) as { policy: string };
    expect(options).toMatchObject({ policy: 'invite' });

    // The late visitor's form goes to the server, which refuses it with the sentence.
    await late.getByLabel('Full name').fill('Late Larry');
    await late.getByLabel('Email', { exact: true }).fill('larry@example.com');
    await late.getByLabel('Password', { exact: true }).fill('secret99');
    await late.getByRole('button', { name: 'Create account' }).click();
    await expect(late.getByRole('alert')).toHaveText(invitationOnly);
    await expect(late).toHaveURL(/\/signup$/);

    // Opened now, without an invitation, the screen says so instead of offering a form.
    await late.reload();
    await expect(late.getByText(invitationOnly)).toBeVisible();
    await expect(late.getByRole('button', { name: 'Create account' })).toHaveCount(0);
    await captureAtBothWidths(late, 'access-signup-invitation-only');
    await lateContext.close();

    // The admin invites a person by email; the link is shown once.
    await admin.getByLabel('Email (optional)').fill('newcomer@example.com');
    await admin.getByRole('button', { name: 'Create invitation link' }).click();
    await expect(admin.getByText('Invitation link for newcomer@example.com created')).toBeVisible();
    const link = await admin.getByRole('textbox', { name: 'Invitation link' }).inputValue();
    expect(link).toMatch(new RegExp(`^${server.url}/signup\\?invitation=[A-Za-z0-9_-]{43}$`));
    const invitations = admin.getByRole('list', { name: 'Invitations' });
    await expect(invitations.getByRole('listitem').filter({ hasText: 'newcomer@example.com' })).toContainText('Open');
    await captureAtBothWidths(admin, 'access-invitation-created');

    // The newcomer opens the link: the screen names whom it is for, and the account is made.
    const [newcomerContext, newcomer] = await newDevice(browser, { baseURL: server.url, viewport: phoneViewport });
    await newcomer.goto(link);
    await expect(newcomer.getByRole('heading', { name: 'Join your team' })).toBeVisible();
    await expect(newcomer.getByText('This invitation is for newcomer@example.com.')).toBeVisible();
    await expect(newcomer.getByLabel('Email', { exact: true })).toHaveValue('newcomer@example.com');
    await captureAtBothWidths(newcomer, 'access-signup-invited', phoneViewport);
    await newcomer.getByLabel('Full name').fill('Nina Newcomer');
    await newcomer.getByLabel('Password', { exact: true }).fill('secret99');
    await newcomer.getByRole('button', { name: 'Create account' }).click();
    await newcomer.waitForURL('**/dashboard');
    await expect(newcomer.getByRole('heading', { name: /Nina Newcomer/, level: 1 })).toBeVisible();
    await newcomerContext.close();

    // The link admitted once: the list says so, and it admits nobody else.
    await admin.reload();
    await expect(
      admin
        .getByRole('list', { name: 'Invitations' })
        .getByRole('listitem')
        .filter({ hasText: 'newcomer@example.com' }),
    ).toContainText('Used');
    const reused = await fetch(`${server.url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Second',
        email: 'second@example.com',
        password: 'secret99',
        invitation: new URL(link).searchParams.get('invitation'),
      }),
    });
    expect(reused.status).toBe(410);
    await adminContext.close();
  });

  test('a manager opens Settings as a tab of Employees and may invite, but not change who may join', async ({
    browser,
  }) => {
    const [context, page] = await newDevice(browser, { baseURL: server.url });
    await signIn(page, demoUsers.manager.email);
    await page.goto('/employees');
    const tabs = page.getByRole('navigation', { name: 'Employee Management' });
    await tabs.getByRole('link', { name: 'Settings' }).click();
    await expect(page).toHaveURL(/\/employees\/settings$/);
    await expect(tabs.getByRole('link', { name: 'Settings' })).toHaveAttribute('aria-current', 'page');
    await expect(page.getByText('Only an administrator can change who may join.')).toBeVisible();
    const policy = page.getByRole('group', { name: 'Who may create an account' });
    await expect(policy.getByRole('radio', { name: /Invited people only/ })).toBeDisabled();
    await expect(page.getByRole('button', { name: 'Save', exact: true })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Create invitation link' })).toBeEnabled();
    await captureAtBothWidths(page, 'access-settings-manager');

    // Offline: the settings need the server, and say so; nothing can be sent.
    await goOffline(context);
    await expect(page.getByText('You are offline. Workspace settings need a connection.')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Create invitation link' })).toBeDisabled();
    await expect(page.getByRole('button', { name: 'Reset password' })).toBeDisabled();
    await captureAtBothWidths(page, 'access-settings-offline');
    await goOnline(context);
    await context.close();
  });
});

test.describe('a forgotten password', () => {
  test('a manager resets an employee’s password; the employee signs in with the code, must choose a new password, then is in', async ({
    browser,
  }) => {
    test.setTimeout(150_000);
    const person = await registerPerson('Forgetful Fran');
    // Fran's phone has signed in before: it could open her account offline with the old password.
    const [franContext, fran] = await newDevice(browser, { viewport: phoneViewport });
    await signIn(fran, person.email);
    await expectServiceWorkerInControl(fran);

    const [managerContext, manager] = await newDevice(browser);
    await signIn(manager, demoUsers.manager.email);
    await manager.goto('/employees');
    const resetButton = manager.getByRole('button', { name: `Reset password of ${person.name}` });
    await resetButton.hover();
    await saveScreen(manager, 'access-reset-card-hover-desktop', { fullPage: false });
    await resetButton.click();
    const dialog = manager.getByRole('dialog', { name: 'Reset password' });
    await expect(dialog).toContainText(`Reset ${person.name}'s password?`);
    await captureAtBothWidths(manager, 'access-reset-confirm');
    await goOffline(managerContext);
    await expect(dialog.getByText('You are offline. Resetting a password needs a connection.')).toBeVisible();
    await saveScreen(manager, 'access-reset-confirm-offline-desktop');
    await goOnline(managerContext);
    await dialog.getByRole('button', { name: 'Reset password' }).click();
    const code = dialog.getByRole('status', { name: 'One-time code' });
    await expect(code).toHaveText(/^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    const oneTimeCode = (await code.textContent()) ?? '';
    await expect(dialog.getByRole('button', { name: 'Copy code' })).toBeVisible();
    await captureAtBothWidths(manager, 'access-reset-code');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect(dialog).toHaveCount(0);
    await managerContext.close();

    // Fran's open app hears of it: she is signed out and told why.
    await expect(fran).toHaveURL(/\/login$/, { timeout: 20_000 });
    await expect(fran.getByText(resetNotice)).toBeVisible();
    await expect(fran.getByLabel('Email', { exact: true })).toHaveValue(person.email);
    await expect(fran.getByText('Forgot password? Ask your manager or administrator')).toBeVisible();
    await captureAtBothWidths(fran, 'access-login-after-reset', phoneViewport);

    // The device heard of the reset: offline, the old password no longer opens her account.
    await goOffline(franContext);
    await fran.getByLabel('Email', { exact: true }).fill(person.email);
    await fran.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
    await fran.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(fran.getByRole('alert')).toHaveText(
      'You are offline. Sign in once with a connection on this device to use it offline.',
    );
    await goOnline(franContext);

    // With the code she may only choose a new password.
    await fran.getByLabel('Password', { exact: true }).fill(oneTimeCode.toLowerCase());
    await fran.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(fran.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();
    await expect(fran.getByRole('navigation', { name: 'Main navigation' })).toHaveCount(0);
    await captureAtBothWidths(fran, 'access-choose-password', phoneViewport);
    await fran.goto('/chat');
    await expect(fran.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();

    await fran.getByLabel('New password', { exact: true }).fill('fresh-secret');
    await fran.getByLabel('Confirm new password').fill('fresh-secrex');
    await fran.getByRole('button', { name: 'Set new password' }).click();
    await expect(fran.getByRole('alert')).toHaveText('New passwords do not match');
    await fran.getByLabel('Confirm new password').fill('fresh-secret');
    await fran.getByRole('button', { name: 'Set new password' }).click();
    await fran.waitForURL('**/dashboard');
    await expect(fran.getByRole('heading', { name: /Fran/, level: 1 })).toBeVisible();

    // The server has the new password; the code and the old one are gone.
    const withNew = await createApiClient(person.email, 'fresh-secret');
    await withNew.dispose();
    await expect(createApiClient(person.email, oneTimeCode)).rejects.toThrow(/401/);
    await expect(createApiClient(person.email, DEMO_PASSWORD)).rejects.toThrow(/401/);
    await franContext.close();
  });
});
