import type { Locator, Page } from '@playwright/test';
import {
  demoUsers,
  expect,
  goOffline,
  goOnline,
  phoneViewport,
  saveScreen,
  sessionKeys,
  signIn,
  test,
} from './fixtures';

// Issue 2, the foundation: splash, login, signup, route guards, the shell (sidebar, mobile menu),
// session restore and logout (spec sections 2, 4, 5, 8 and 9).

/** Signed-in routes and the title their screen shows (spec section 2); the dashboard's greeting varies. */
const screenTitles = {
  '/tasks': /Task Management/i,
  '/employees': /Employee Management/i,
  '/my-tasks': /My Tasks & Projects/i,
  '/team-members': /Team Members/i,
  '/chat': /Team Chat/i,
  '/direct-messages': /Direct Messages/i,
  '/profile-settings': /Profile Settings/i,
} as const;

const guardedRoutes = ['/dashboard', ...Object.keys(screenTitles), '/tasks?filter=overdue'];

const pathIs =
  (pathname: string) =>
  (url: URL): boolean =>
    url.pathname === pathname;

const sidebar = (page: Page): Locator => page.getByRole('complementary', { name: 'Sidebar' });
const mainNav = (page: Page): Locator => page.getByRole('navigation', { name: 'Main navigation' });
const signInButton = (page: Page): Locator => page.getByRole('button', { name: 'Sign in', exact: true });

/** Opens a signed-in route and checks its screen is showing there (not redirected away). */
async function expectScreenAt(page: Page, path: keyof typeof screenTitles): Promise<void> {
  await page.goto(path);
  await expect(page.getByRole('heading', { name: screenTitles[path] }).first()).toBeVisible();
  await expect(page).toHaveURL(pathIs(path));
}

async function expectRedirect(page: Page, from: string, to: string): Promise<void> {
  await page.goto(from);
  await expect(page, `${from} should redirect to ${to}`).toHaveURL(pathIs(to));
}

/** The three storage keys of spec section 9, as the page holds them now. */
function readSessionKeys(page: Page): Promise<{ user: string | null; token: string | null; flag: string | null }> {
  return page.evaluate(
    (keys) => ({
      user: localStorage.getItem(keys.user),
      token: localStorage.getItem(keys.token),
      flag: sessionStorage.getItem(keys.hasActiveSession),
    }),
    sessionKeys,
  );
}

/** Whether a CSS colour is clearly red (the banner's text), as a person would see it. */
function isRed(color: string): boolean {
  const [r = 0, g = 0, b = 0] = (color.match(/\d+(\.\d+)?/g) ?? []).map(Number);
  return r > 120 && r > g + 60 && r > b + 60;
}

test.describe('splash', () => {
  test.use({ showSplash: true });

  test('a new visitor sees the splash with the tagline and the three features, then the login screen', async ({
    page,
  }) => {
    // The splash runs on timers (spec section 9: 3000 ms, stages at 100, 800, 1600, 2400, hand-over 100 ms):
    // a paused clock makes its timeline exact however slow the machine is.
    await page.clock.install();
    await page.clock.pauseAt(Date.now() + 60_000);
    await page.goto('/');
    const splash = page.getByRole('status', { name: 'Loading Office Workspace' });
    await expect(splash).toBeVisible();
    await expect(splash.getByRole('heading', { name: 'Office Workspace' })).toBeVisible();
    await expect(splash.getByText('Your office workspace', { exact: true })).toBeVisible();
    const features = splash.getByRole('listitem');
    await expect(features).toHaveCount(3);
    await expect(features.nth(0)).toContainText('Task Management');
    await expect(features.nth(1)).toContainText('Team Communication');
    await expect(features.nth(2)).toContainText('Team Management');
    await expect(splash.getByRole('progressbar')).toBeVisible();

    // 1.7 s: the third stage has shown everything; the fade-out starts at 2.4 s.
    await page.clock.runFor(1_700);
    await saveScreen(page, 'splash');
    // 2.9 s: still on the splash.
    await page.clock.runFor(1_200);
    await expect(splash).toBeVisible();
    await expect(page).toHaveURL(pathIs('/'));
    // 3.2 s: completed at 3 s, and the app took over 100 ms later.
    await page.clock.runFor(300);
    await expect(signInButton(page)).toBeVisible();
    await expect(page).toHaveURL(pathIs('/login'));
    await expect(splash).toHaveCount(0);
  });

  test('the splash shows once per tab: a reload opens the app at once', async ({ page }) => {
    await page.clock.install();
    await page.clock.pauseAt(Date.now() + 60_000);
    await page.goto('/login');
    await page.clock.runFor(3_200);
    await expect(signInButton(page)).toBeVisible();
    // The clock stays paused: a splash playing again would never hand over to the login form.
    await page.reload();
    await expect(signInButton(page)).toBeVisible();
    await expect(page.getByRole('status', { name: 'Loading Office Workspace' })).toHaveCount(0);
  });
});

test.describe('login', () => {
  test('a wrong password shows "Invalid email or password" in a red banner and stays on /login', async ({ page }) => {
    await page.goto('/login');
    await saveScreen(page, 'login-desktop');
    await page.getByLabel('Email', { exact: true }).fill(demoUsers.carol.email);
    await page.getByLabel('Password', { exact: true }).fill('not-the-password');
    await signInButton(page).click();

    const banner = page.getByRole('main').getByRole('alert');
    await expect(banner).toHaveText('Invalid email or password');
    expect(isRed(await banner.evaluate((element) => getComputedStyle(element).color))).toBe(true);
    await saveScreen(page, 'login-error');
    await expect(page).toHaveURL(pathIs('/login'));
    await expect(signInButton(page)).toBeEnabled();
  });

  test('submitting with an empty field shows "Please fill in all fields"', async ({ page }) => {
    await page.goto('/login');
    await signInButton(page).click();
    await expect(page.getByRole('main').getByRole('alert')).toHaveText('Please fill in all fields');

    await page.getByLabel('Email', { exact: true }).fill(demoUsers.alice.email);
    await signInButton(page).click();
    await expect(page.getByRole('main').getByRole('alert')).toHaveText('Please fill in all fields');
    await expect(page).toHaveURL(pathIs('/login'));
  });

  test('the button reads "Signing in..." and is disabled while the sign-in call runs', async ({ page }) => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/auth/login', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto('/login');
    await page.getByLabel('Email', { exact: true }).fill(demoUsers.alice.email);
    await page.getByLabel('Password', { exact: true }).fill('demo1234');
    await signInButton(page).click();

    await expect(page.getByRole('button', { name: 'Signing in...' })).toBeDisabled();
    release();
    await expect(page).toHaveURL(pathIs('/dashboard'));
  });

  test('the password can be shown and hidden again', async ({ page }) => {
    await page.goto('/login');
    const password = page.getByLabel('Password', { exact: true });
    await password.fill('secret-words');
    await expect(password).toHaveAttribute('type', 'password');
    await page.getByRole('button', { name: 'Show password' }).click();
    await expect(password).toHaveAttribute('type', 'text');
    await page.getByRole('button', { name: 'Hide password' }).click();
    await expect(password).toHaveAttribute('type', 'password');
  });

  test('"Create one!" leads to the signup screen and its link leads back to login', async ({ page }) => {
    await page.goto('/login');
    await page.getByRole('link', { name: 'Create one!' }).click();
    await expect(page).toHaveURL(pathIs('/signup'));
    await expect(page.getByRole('button', { name: 'Create account' })).toBeVisible();
    await page.getByRole('link', { name: /sign in/i }).click();
    await expect(page).toHaveURL(pathIs('/login'));
    await expect(signInButton(page)).toBeVisible();
  });
});

test.describe('signup', () => {
  test('a new person signs up, lands on the dashboard as an employee, and the server has the account', async ({
    page,
    apiAs,
  }, testInfo) => {
    const email = `nina.${Date.now()}.${testInfo.workerIndex}.${testInfo.retry}@example.com`;
    const name = 'Nina Newcomer';
    await page.goto('/signup');
    await page.getByLabel('Full name', { exact: true }).fill(name);
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill('welcome-42');
    await page.getByRole('button', { name: 'Create account' }).click();

    await expect(page).toHaveURL(pathIs('/dashboard'));
    await expect(sidebar(page).getByText(name, { exact: true })).toBeVisible();
    await expect(sidebar(page).getByText('Employee', { exact: true })).toBeVisible();
    const stored = await readSessionKeys(page);
    expect(stored.token).toBeTruthy();
    expect(stored.flag).toBe('true');
    expect(stored.user).not.toContain('password');

    const manager = await apiAs(demoUsers.manager.email);
    const { status, body } = await manager.get<{ users: Record<string, unknown>[] }>('/api/auth/all-users');
    expect(status).toBe(200);
    const account = body.users.find((user) => user.email === email);
    expect(account).toMatchObject({ name, email, role: 'employee' });
    expect(Object.keys(account ?? {}).filter((key) => /password/i.test(key))).toEqual([]);

    // The password was kept: the new person can sign in with it.
    const newcomer = await apiAs(email, 'welcome-42');
    expect(newcomer.user).toMatchObject({ name, email, role: 'employee' });
  });

  test('submitting with an empty field shows "Please fill in all fields"', async ({ page }) => {
    await page.goto('/signup');
    await saveScreen(page, 'signup-desktop');
    await page.getByLabel('Full name', { exact: true }).fill('Someone');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(page.getByRole('main').getByRole('alert')).toHaveText('Please fill in all fields');
    await expect(page).toHaveURL(pathIs('/signup'));
  });

  test("an email that is already registered shows the server's message", async ({ page }) => {
    await page.goto('/signup');
    await page.getByLabel('Full name', { exact: true }).fill('Alice Again');
    await page.getByLabel('Email', { exact: true }).fill(demoUsers.alice.email);
    await page.getByLabel('Password', { exact: true }).fill('whatever-123');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(page.getByRole('main').getByRole('alert')).toHaveText('An account with this email already exists');
    await expect(page).toHaveURL(pathIs('/signup'));
  });
});

test.describe('route guards', () => {
  test('a signed-out visitor is sent to /login from every signed-in route and from /', async ({ page }) => {
    for (const path of [...guardedRoutes, '/']) {
      await test.step(path, async () => {
        await expectRedirect(page, path, '/login');
        await expect(signInButton(page)).toBeVisible();
      });
    }
    await page.goto('/signup');
    await expect(page).toHaveURL(pathIs('/signup'));
  });

  test('an employee opens /my-tasks but is sent from /employees to /dashboard', async ({ page }) => {
    await signIn(page, demoUsers.alice.email);
    await expectRedirect(page, '/employees', '/dashboard');
    for (const path of [
      '/my-tasks',
      '/tasks',
      '/team-members',
      '/chat',
      '/direct-messages',
      '/profile-settings',
    ] as const) {
      await test.step(path, () => expectScreenAt(page, path));
    }
  });

  test('a manager opens /employees but is sent from /my-tasks to /dashboard', async ({ page }) => {
    await signIn(page, demoUsers.manager.email);
    await expectRedirect(page, '/my-tasks', '/dashboard');
    for (const path of [
      '/employees',
      '/tasks',
      '/team-members',
      '/chat',
      '/direct-messages',
      '/profile-settings',
    ] as const) {
      await test.step(path, () => expectScreenAt(page, path));
    }
  });

  test('an admin is sent from both /employees and /my-tasks to /dashboard', async ({ page }) => {
    await signIn(page, demoUsers.admin.email);
    await expectRedirect(page, '/employees', '/dashboard');
    await expectRedirect(page, '/my-tasks', '/dashboard');
  });

  test('a signed-in user is sent from /, /login and /signup to /dashboard', async ({ page }) => {
    await signIn(page, demoUsers.bob.email);
    for (const path of ['/', '/login', '/signup']) {
      await test.step(path, () => expectRedirect(page, path, '/dashboard'));
    }
  });
});

test.describe('sidebar', () => {
  test('an employee sees the items in spec order without Employees, with name, role and the active item', async ({
    page,
  }) => {
    await signIn(page, demoUsers.alice.email);
    await expect(sidebar(page).getByText('Workspace', { exact: true })).toBeVisible();
    const links = mainNav(page).getByRole('link');
    await expect(links).toHaveText(['Dashboard', 'Tasks', 'My Tasks', 'Team Members', 'Chat', 'Direct Messages']);
    await expect(links.filter({ hasText: 'Dashboard' })).toHaveAttribute('aria-current', 'page');
    await expect(sidebar(page).getByText('Alice Johnson', { exact: true })).toBeVisible();
    await expect(sidebar(page).getByText('Employee', { exact: true })).toBeVisible();
    // No avatar was uploaded: the placeholder stands in for the photo.
    await expect(sidebar(page).getByRole('img', { name: 'Alice Johnson avatar' })).toBeVisible();
    await saveScreen(page, 'dashboard-desktop');

    await mainNav(page).getByRole('link', { name: 'My Tasks' }).click();
    await expect(page).toHaveURL(pathIs('/my-tasks'));
    await expect(mainNav(page).getByRole('link', { name: 'My Tasks' })).toHaveAttribute('aria-current', 'page');
    await expect(mainNav(page).getByRole('link', { name: 'Dashboard' })).not.toHaveAttribute('aria-current', 'page');
    await expect(mainNav(page).locator('[aria-current="page"]')).toHaveCount(1);
  });

  test('a manager sees Employees and no My Tasks, and the role "Manager"', async ({ page }) => {
    await signIn(page, demoUsers.manager.email);
    const links = mainNav(page).getByRole('link');
    await expect(links).toHaveText(['Dashboard', 'Tasks', 'Employees', 'Team Members', 'Chat', 'Direct Messages']);
    await expect(sidebar(page).getByText('Maya Manager', { exact: true })).toBeVisible();
    await expect(sidebar(page).getByText('Manager', { exact: true })).toBeVisible();

    await links.filter({ hasText: 'Employees' }).click();
    await expect(page).toHaveURL(pathIs('/employees'));
    await expect(links.filter({ hasText: 'Employees' })).toHaveAttribute('aria-current', 'page');
  });

  test('an admin sees neither Employees nor My Tasks but Workspace Settings, and the role "Admin"', async ({
    page,
  }) => {
    await signIn(page, demoUsers.admin.email);
    await expect(mainNav(page).getByRole('link')).toHaveText([
      'Dashboard',
      'Tasks',
      'Workspace Settings',
      'Team Members',
      'Chat',
      'Direct Messages',
    ]);
    await expect(sidebar(page).getByText('Admin', { exact: true })).toBeVisible();
  });

  test('Settings in the sidebar footer opens /profile-settings', async ({ page }) => {
    await signIn(page, demoUsers.bob.email);
    await sidebar(page).getByRole('button', { name: 'Settings' }).click();
    await expect(page).toHaveURL(pathIs('/profile-settings'));
    await expect(page.getByRole('heading', { name: screenTitles['/profile-settings'] }).first()).toBeVisible();
  });

  test('on a desktop there is no mobile top bar and the sidebar is always shown', async ({ page }) => {
    await signIn(page, demoUsers.bob.email);
    await expect(sidebar(page)).toBeInViewport();
    await expect(page.getByRole('button', { name: 'Open menu' })).toHaveCount(0);
  });
});

test.describe('session', () => {
  test('a reload keeps the user signed in', async ({ page }) => {
    await signIn(page, demoUsers.alice.email);
    await page.goto('/tasks');
    await page.reload();
    await expect(page.getByRole('heading', { name: screenTitles['/tasks'] }).first()).toBeVisible();
    await expect(page).toHaveURL(pathIs('/tasks'));
    await expect(sidebar(page).getByText('Alice Johnson', { exact: true })).toBeVisible();
  });

  test('a new tab has no session flag, so it opens at /login while the first tab stays signed in', async ({
    page,
    context,
  }) => {
    await signIn(page, demoUsers.alice.email);
    const secondTab = await context.newPage();
    await secondTab.goto('/dashboard');
    await expect(secondTab).toHaveURL(pathIs('/login'));
    await expect(signInButton(secondTab)).toBeVisible();
    const stored = await readSessionKeys(secondTab);
    expect(stored.flag).toBeNull();
    // The user and token are still kept (localStorage); only the flag is per tab.
    expect(stored.token).toBeTruthy();

    await page.reload();
    await expect(page).toHaveURL(pathIs('/dashboard'));
    await expect(sidebar(page).getByText('Alice Johnson', { exact: true })).toBeVisible();
  });

  test('without the session flag the stored session is not restored', async ({ page }) => {
    await signIn(page, demoUsers.alice.email);
    await page.evaluate((key) => sessionStorage.removeItem(key), sessionKeys.hasActiveSession);
    await page.reload();
    await expect(page).toHaveURL(pathIs('/login'));
  });

  test('without the stored token the session is not restored', async ({ page }) => {
    await signIn(page, demoUsers.alice.email);
    await page.evaluate((key) => localStorage.removeItem(key), sessionKeys.token);
    await page.reload();
    await expect(page).toHaveURL(pathIs('/login'));
  });

  test('a stored user that cannot be parsed clears user, token and session flag', async ({ page }) => {
    await signIn(page, demoUsers.alice.email);
    await page.evaluate((key) => localStorage.setItem(key, '{not json'), sessionKeys.user);
    await page.reload();
    await expect(page).toHaveURL(pathIs('/login'));
    await expect(signInButton(page)).toBeVisible();
    expect(await readSessionKeys(page)).toEqual({ user: null, token: null, flag: null });
  });

  test('logout clears user, token and session flag, ends the session on the server and goes to /login', async ({
    page,
    request,
  }) => {
    await signIn(page, demoUsers.alice.email);
    const keys = await readSessionKeys(page);
    expect(keys).toEqual({
      user: expect.stringContaining('Alice Johnson') as unknown,
      token: expect.any(String) as unknown,
      flag: 'true',
    });
    const loggedOut = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/auth/logout');
    await sidebar(page).getByRole('button', { name: 'Logout' }).click();
    expect((await loggedOut).status()).toBe(200);
    // The token the device held no longer works anywhere.
    const replayed = await request.get('/api/auth/me', { headers: { authorization: `Bearer ${keys.token ?? ''}` } });
    expect(replayed.status()).toBe(401);
    await expect(page).toHaveURL(pathIs('/login'));
    await expect(signInButton(page)).toBeVisible();
    await expect(sidebar(page)).toHaveCount(0);
    expect(await readSessionKeys(page)).toEqual({ user: null, token: null, flag: null });

    await expectRedirect(page, '/dashboard', '/login');
  });
});

test.describe('offline', () => {
  test('offline, a signed-in user keeps the session, sees "Offline" and still moves between screens', async ({
    page,
    context,
  }) => {
    // Each screen is a chunk of its own; the app loads them all once it is idle after sign-in.
    const screensLoaded = page.waitForResponse((response) =>
      /\/assets\/team-members-screen-[\w-]+\.js$/.test(response.url()),
    );
    await signIn(page, demoUsers.alice.email);
    await screensLoaded;
    const syncStatus = page.getByRole('status', { name: 'Sync status' });
    await goOffline(context);
    await expect(syncStatus).toContainText('Offline');
    const healthWhileOffline = await page.evaluate(() =>
      fetch('/api/health').then(
        () => 'answered',
        () => 'failed',
      ),
    );
    expect(healthWhileOffline).toBe('failed');

    await mainNav(page).getByRole('link', { name: 'Team Members' }).click();
    await expect(page).toHaveURL(pathIs('/team-members'));
    await expect(page.getByRole('heading', { name: screenTitles['/team-members'] }).first()).toBeVisible();
    await expect(sidebar(page).getByText('Alice Johnson', { exact: true })).toBeVisible();
    expect((await readSessionKeys(page)).token).toBeTruthy();

    await goOnline(context);
    await expect(syncStatus).not.toContainText('Offline');
    const healthOnline = await page.evaluate(() => fetch('/api/health').then((response) => response.json() as unknown));
    expect(healthOnline).toEqual({ ok: true });
  });

  test('once the service worker is ready, a reload offline opens the app still signed in', async ({
    page,
    context,
  }) => {
    await signIn(page, demoUsers.alice.email);
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    await goOffline(context);
    await page.reload();
    await expect(page).toHaveURL(pathIs('/dashboard'));
    await expect(sidebar(page).getByText('Alice Johnson', { exact: true })).toBeVisible();
    await expect(page.getByRole('status', { name: 'Sync status' })).toContainText('Offline');

    await page.goto('/chat');
    await expect(page.getByRole('heading', { name: screenTitles['/chat'] }).first()).toBeVisible();
    await goOnline(context);
  });
});

test.describe('phone layout', () => {
  test.use({ viewport: phoneViewport, hasTouch: true, isMobile: true });

  test('the login screen fits a phone', async ({ page }) => {
    await page.goto('/login');
    await expect(signInButton(page)).toBeInViewport();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, 'the page should not scroll sideways').toBeLessThanOrEqual(0);
    await saveScreen(page, 'login-phone');
  });

  test('the top bar has the logo, the bell and the menu toggle; the menu slides in over an overlay', async ({
    page,
  }) => {
    await signIn(page, demoUsers.alice.email);
    const topBar = page.getByRole('banner');
    await expect(topBar.getByText('Office Workspace', { exact: true })).toBeVisible();
    await expect(topBar.getByRole('button', { name: 'Notifications' })).toBeVisible();
    const toggle = topBar.getByRole('button', { name: 'Open menu' });
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await expect(sidebar(page)).toBeHidden();
    await saveScreen(page, 'dashboard-phone');

    await toggle.tap();
    await expect(sidebar(page)).toBeVisible();
    await expect(sidebar(page)).toBeInViewport({ ratio: 1 });
    await expect(topBar.getByRole('button', { name: 'Close menu' })).toHaveAttribute('aria-expanded', 'true');
    await expect(mainNav(page).getByRole('link')).toHaveText([
      'Dashboard',
      'Tasks',
      'My Tasks',
      'Team Members',
      'Chat',
      'Direct Messages',
    ]);
    await saveScreen(page, 'mobile-menu-open');

    // Tapping the dimmed area beside the sidebar (the overlay) closes the menu.
    const box = await sidebar(page).boundingBox();
    expect(box).not.toBeNull();
    const beside = { x: Math.round(((box?.width ?? 280) + phoneViewport.width) / 2), y: 500 };
    expect(beside.x).toBeGreaterThan(box?.width ?? 280);
    await page.touchscreen.tap(beside.x, beside.y);
    await expect(sidebar(page)).toBeHidden();
    await expect(topBar.getByRole('button', { name: 'Open menu' })).toHaveAttribute('aria-expanded', 'false');
    await expect(page.getByRole('button', { name: 'Close menu' })).toHaveCount(0);
    await expect(page).toHaveURL(pathIs('/dashboard'));
  });

  test('tapping a menu item navigates and closes the menu', async ({ page }) => {
    await signIn(page, demoUsers.alice.email);
    await page.getByRole('banner').getByRole('button', { name: 'Open menu' }).tap();
    await expect(sidebar(page)).toBeInViewport({ ratio: 1 });
    await mainNav(page).getByRole('link', { name: 'Tasks', exact: true }).tap();
    await expect(page).toHaveURL(pathIs('/tasks'));
    await expect(page.getByRole('heading', { name: screenTitles['/tasks'] }).first()).toBeVisible();
    await expect(sidebar(page)).toBeHidden();
    await expect(page.getByRole('button', { name: 'Close menu' })).toHaveCount(0);
  });

  test('Settings in the mobile menu opens /profile-settings and closes the menu', async ({ page }) => {
    await signIn(page, demoUsers.alice.email);
    await page.getByRole('banner').getByRole('button', { name: 'Open menu' }).tap();
    await sidebar(page).getByRole('button', { name: 'Settings' }).tap();
    await expect(page).toHaveURL(pathIs('/profile-settings'));
    await expect(sidebar(page)).toBeHidden();
  });
});
