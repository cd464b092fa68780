import type { Locator, Page, Request, Route } from '@playwright/test';
import {
  demoUsers,
  expect,
  goOffline,
  goOnline,
  phoneViewport,
  registerPerson,
  saveScreen,
  sessionKeys,
  signIn,
  skipSplash,
  test,
  type ApiClient,
  expectServiceWorkerInControl,
} from './fixtures';
import { unique } from './api-helpers';

// The local-first sync layer: the installable app shell, offline edits kept in the outbox and shown
// as pending, their replay when the network (or the session) returns, live changes over Socket.IO,
// refused changes with Retry/Discard, and logout with unsynced changes (ARCHITECTURE.md, "Sync
// protocol" and "Client rules"). The writes go through the profile's Basic Information form.
//
// Tests whose edit reaches the server work on an account of their own, registered over HTTP: the
// seeded Alice is shared with every other spec file running in parallel, and renaming her on the
// server would break their "Alice Johnson" assertions. Tests where nothing may reach the server
// use the seeded Alice and put her back if the app wrote to the server after all.

const desktopViewport = { width: 1280, height: 800 } as const;
/** How long a sync call may take to go out once the app has a reason to send it. */
const syncCallWait = { timeout: 10_000 } as const;

/** A user as GET /api/auth/all-users lists it. */
interface ServerUser {
  id: string;
  name: string;
  email: string;
  /** Presence: "online" while a socket of the user is connected. */
  status?: string;
}

/** What GET /manifest.webmanifest must hold for the browser to offer installation. */
interface WebManifest {
  name?: string;
  short_name?: string;
  description?: string;
  start_url?: string;
  display?: string;
  theme_color?: string;
  background_color?: string;
  icons?: { src: string; sizes?: string; type?: string; purpose?: string }[];
}

async function serverUsers(api: ApiClient): Promise<ServerUser[]> {
  const answer = await api.get<{ users: ServerUser[] }>('/api/auth/all-users');
  expect(answer.status).toBe(200);
  return answer.body.users;
}

async function serverUser(api: ApiClient, id: string): Promise<ServerUser | undefined> {
  return (await serverUsers(api)).find((user) => user.id === id);
}

const pathIs =
  (pathname: string) =>
  (url: URL): boolean =>
    url.pathname === pathname;

const sidebar = (page: Page): Locator => page.getByRole('complementary', { name: 'Sidebar' });
/** The header indicator (desktop content header, or the mobile top bar on a phone). */
const syncStatus = (page: Page): Locator => page.getByRole('status', { name: 'Sync status' });
const basicInformation = (page: Page): Locator => page.getByRole('region', { name: 'Basic Information' });
/** The value shown next to a label of the read-only Basic Information list ("Full Name", "Email"). */
const detail = (page: Page, label: 'Full Name' | 'Email'): Locator =>
  basicInformation(page)
    .locator('div')
    .filter({ has: page.getByRole('term').filter({ hasText: label }) })
    .getByRole('definition');
const pendingMarks = (page: Page): Locator => basicInformation(page).getByRole('img', { name: 'Pending sync' });

const isSyncCall = (path: 'push' | 'pull') => (request: Request) =>
  new URL(request.url()).pathname === `/api/sync/${path}`;

/** Waits until the service worker is active and controls the page (so a reload works offline). */

/** Opens Profile Settings through the sidebar (no page load) and waits for the profile. */
async function openProfileFromSidebar(page: Page, name: string): Promise<void> {
  await sidebar(page).getByRole('button', { name: 'Settings' }).click();
  await expect(page).toHaveURL(pathIs('/profile-settings'));
  await expect(detail(page, 'Full Name')).toHaveText(name);
}

/** What the profile says after a save: the server accepted it, it waits on the device, or it was refused. */
const savedFlash = {
  accepted: 'Profile updated successfully!',
  offline: 'Saved on this device — will sync when online',
  refused: 'Failed to update profile',
} as const;

/**
 * Edits Basic Information and saves; the save is a local write, so the form closes at once, online or
 * not, and the flash says how it went (success only once the server has accepted it).
 */
async function editProfile(
  page: Page,
  change: { name?: string; email?: string },
  outcome: keyof typeof savedFlash = 'accepted',
): Promise<void> {
  const section = basicInformation(page);
  await section.getByRole('button', { name: 'Edit' }).click();
  if (change.name !== undefined) await section.getByLabel('Full Name', { exact: true }).fill(change.name);
  if (change.email !== undefined) await section.getByLabel('Email', { exact: true }).fill(change.email);
  await section.getByRole('button', { name: 'Save Changes' }).click();
  await expect(section.getByRole('button', { name: 'Save Changes' })).toHaveCount(0);
  await expect(page.getByText(savedFlash[outcome], { exact: true })).toBeVisible();
}

/** Puts the seeded Alice back if a test's write reached the server after all (the app was broken). */
async function restoreAlice(apiAs: (email: string) => Promise<ApiClient>): Promise<void> {
  const api = await apiAs(demoUsers.alice.email).catch(() => null);
  if (!api) return; // Her email changed: nothing this file can repair by signing in.
  if (api.user.name !== demoUsers.alice.name || api.user.email !== demoUsers.alice.email) {
    await api.put('/api/auth/updatedetails', { name: demoUsers.alice.name, email: demoUsers.alice.email });
  }
}

/**
 * Alice (online) changes her email to Bob's; the server refuses it. Checks the rollback and the
 * failed indicator, opens it and returns the "Failed changes" dialog.
 */
async function makeRefusedEmailChange(page: Page): Promise<Locator> {
  await signIn(page, demoUsers.alice.email);
  await openProfileFromSidebar(page, demoUsers.alice.name);
  await expect(detail(page, 'Email')).toHaveText(demoUsers.alice.email);

  const pushed = page.waitForResponse((response) => isSyncCall('push')(response.request()), syncCallWait);
  await editProfile(page, { email: demoUsers.bob.email }, 'refused');
  expect(await (await pushed).json()).toMatchObject({
    outcomes: [{ status: 'rejected', code: 'email_taken', message: 'An account with this email already exists' }],
  });

  const failedButton = syncStatus(page).getByRole('button', { name: '1 change failed' });
  await expect(failedButton).toBeVisible();
  await expect(syncStatus(page)).toHaveText('1 change failed');
  await expect(detail(page, 'Email')).toHaveText(demoUsers.alice.email);
  await expect(detail(page, 'Full Name')).toHaveText(demoUsers.alice.name);
  await expect(pendingMarks(page)).toHaveCount(0);
  // The app-wide alert names the refused write in the spec's words, with the server's reason.
  await expect(page.getByRole('region', { name: 'Refused changes' }).getByRole('alert')).toContainText(
    'Failed to update profile: An account with this email already exists',
  );

  await failedButton.click();
  const failedChanges = page.getByRole('dialog', { name: 'Failed changes' });
  await expect(failedChanges).toBeVisible();
  await expect(failedChanges).toContainText('Profile details');
  await expect(failedChanges).toContainText('An account with this email already exists');
  await expect(failedChanges.getByRole('button', { name: 'Retry' })).toBeVisible();
  await expect(failedChanges.getByRole('button', { name: 'Discard' })).toBeVisible();
  return failedChanges;
}

/** Width and height from a PNG's IHDR chunk, or null when the bytes are not a PNG. */
function pngSize(bytes: Buffer): { width: number; height: number } | null {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(signature)) return null;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

test.describe('installable app', () => {
  test('the manifest, its icons and the service worker make the app installable', async ({ page, request }) => {
    const response = await request.get('/manifest.webmanifest');
    expect(response.status()).toBe(200);
    const manifest = (await response.json()) as WebManifest;
    expect(manifest).toMatchObject({ name: 'Office Workspace', start_url: '/dashboard', display: 'standalone' });
    expect(manifest.short_name?.trim()).toBeTruthy();
    expect(manifest.description?.trim()).toBeTruthy();
    expect(manifest.theme_color).toMatch(/^#[0-9a-f]{3,8}$/i);
    expect(manifest.background_color).toMatch(/^#[0-9a-f]{3,8}$/i);

    // iOS home screens take their icon from the page, not the manifest.
    const home = await request.get('/');
    expect(await home.text()).toContain('<link rel="apple-touch-icon" href="/icons/apple-touch-icon.png"');
    const appleIcon = await request.get('/icons/apple-touch-icon.png');
    expect(appleIcon.headers()['content-type']).toMatch(/^image\/png/);
    expect(pngSize(await appleIcon.body())).toEqual({ width: 180, height: 180 });

    const icons = manifest.icons ?? [];
    expect(icons.map((icon) => icon.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
    expect(icons.some((icon) => icon.purpose?.split(' ').includes('maskable'))).toBe(true);
    for (const icon of icons) {
      await test.step(icon.src, async () => {
        const image = await request.get(icon.src);
        expect(image.status()).toBe(200);
        expect(image.headers()['content-type']).toMatch(/^image\/png/);
        // The file really is a PNG of the size the manifest announces.
        const [width, height] = (icon.sizes ?? '').split('x').map(Number);
        expect(pngSize(await image.body())).toEqual({ width, height });
      });
    }

    // One page load only: a second load while the new worker activates would not be claimed by it.
    await signIn(page, demoUsers.alice.email);
    await expect(page.locator('link[rel="manifest"]')).toHaveAttribute('href', '/manifest.webmanifest');
    await expectServiceWorkerInControl(page);
  });
});

test.describe('profile edits and their sync', () => {
  test('offline, the profile opens from the cache; an edit stays pending across a reload and syncs once back online', async ({
    page,
    context,
    apiAs,
  }) => {
    const me = await registerPerson('Dana Sync');
    const api = await apiAs(me.email, me.password);
    await signIn(page, me.email, me.password);
    // The first load installs the worker; the next page load is then served by it from the start.
    await expectServiceWorkerInControl(page);
    await page.goto('/profile-settings');
    await expectServiceWorkerInControl(page);
    await expect(detail(page, 'Full Name')).toHaveText(me.name);
    await expect(syncStatus(page)).toHaveText('');

    await goOffline(context);
    await page.reload();
    // The shell comes from the service worker's precache, the profile from IndexedDB.
    await expect(page.getByRole('heading', { name: 'Profile Settings' })).toBeVisible();
    await expect(detail(page, 'Full Name')).toHaveText(me.name);
    await expect(detail(page, 'Email')).toHaveText(me.email);
    await expect(sidebar(page).getByRole('navigation', { name: 'Main navigation' })).toBeVisible();
    await expect(sidebar(page).getByText(me.name, { exact: true })).toBeVisible();
    await expect(syncStatus(page)).toHaveText('Offline');

    const newName = `Dana Offline ${unique()}`;
    await editProfile(page, { name: newName }, 'offline');
    await expect(detail(page, 'Full Name')).toHaveText(newName);
    await expect(detail(page, 'Full Name').getByRole('img', { name: 'Pending sync' })).toBeVisible();
    await expect(syncStatus(page)).toHaveText('Offline · 1 unsynced change');
    expect((await serverUser(api, me.id))?.name, 'nothing reaches the server while offline').toBe(me.name);

    await saveScreen(page, 'offline-profile-pending-desktop');
    await page.setViewportSize(phoneViewport);
    await expect(syncStatus(page)).toHaveText('Offline · 1 unsynced change');
    await expect(syncStatus(page)).toBeInViewport();
    await expect(detail(page, 'Full Name').getByRole('img', { name: 'Pending sync' })).toBeInViewport();
    await saveScreen(page, 'offline-profile-pending-phone');
    await page.setViewportSize(desktopViewport);

    await page.reload();
    await expect(page.getByRole('heading', { name: 'Profile Settings' })).toBeVisible();
    await expect(detail(page, 'Full Name')).toHaveText(newName);
    await expect(detail(page, 'Full Name').getByRole('img', { name: 'Pending sync' })).toBeVisible();
    await expect(syncStatus(page)).toHaveText('Offline · 1 unsynced change');

    await goOnline(context);
    await expect(pendingMarks(page)).toHaveCount(0);
    await expect(syncStatus(page)).toHaveText('');
    await expect(detail(page, 'Full Name')).toHaveText(newName);
    await expect(sidebar(page).getByText(newName, { exact: true })).toBeVisible();

    const holders = (await serverUsers(api)).filter((user) => user.name === newName);
    expect(holders).toEqual([expect.objectContaining({ id: me.id, email: me.email })]);
  });

  test('a second device of the same person sees the change live over Socket.IO, without a reload', async ({
    browser,
    page,
    apiAs,
  }) => {
    const me = await registerPerson('Erin Sync');
    const api = await apiAs(me.email, me.password);

    const secondContext = await browser.newContext({ viewport: desktopViewport });
    try {
      await skipSplash(secondContext);
      const second = await secondContext.newPage();
      await signIn(second, me.email, me.password);
      await second.goto('/profile-settings');
      await expect(detail(second, 'Full Name')).toHaveText(me.name);
      // Presence turns "online" once a socket of this account has connected and joined its rooms:
      // the second device is the only one signed in so far.
      await expect
        .poll(async () => (await serverUser(api, me.id))?.status, {
          message: "the second device's socket should be connected",
        })
        .toBe('online');
      // From here on the second device cannot pull: the change can only arrive over the socket.
      await secondContext.route('**/api/sync/pull**', (route: Route) => route.abort('connectionrefused'));
      await second.evaluate(() => {
        (window as Window & { __marker?: number }).__marker = 1;
      });

      await signIn(page, me.email, me.password);
      await openProfileFromSidebar(page, me.name);
      const newName = `Erin Live ${unique()}`;
      await editProfile(page, { name: newName });
      await expect(syncStatus(page)).toHaveText('');
      await expect(pendingMarks(page)).toHaveCount(0);

      await expect(detail(second, 'Full Name')).toHaveText(newName);
      await expect(sidebar(second).getByText(newName, { exact: true })).toBeVisible();
      expect(
        await second.evaluate(() => (window as Window & { __marker?: number }).__marker),
        'the second device should not have reloaded',
      ).toBe(1);
      await expect(second).toHaveURL(pathIs('/profile-settings'));
      expect((await serverUser(api, me.id))?.name).toBe(newName);
    } finally {
      await secondContext.close();
    }
  });

  test('a 401 keeps the queued change, signs out, and the same user’s next sign-in replays it', async ({
    page,
    context,
    apiAs,
  }) => {
    const me = await registerPerson('Gale Sync');
    const api = await apiAs(me.email, me.password);
    await signIn(page, me.email, me.password);
    await openProfileFromSidebar(page, me.name);

    await goOffline(context);
    const newName = `Gale Queued ${unique()}`;
    await editProfile(page, { name: newName }, 'offline');
    await expect(detail(page, 'Full Name').getByRole('img', { name: 'Pending sync' })).toBeVisible();
    await expect(syncStatus(page)).toHaveText('Offline · 1 unsynced change');

    // The session ends on the server while the device is offline. Ending it there, not by spoiling the stored
    // token, means a retry already on its way with the device's token is refused as well.
    const deviceToken = await page.evaluate((key) => localStorage.getItem(key), sessionKeys.token);
    const ended = await api.request.post('/api/auth/logout', { headers: { authorization: `Bearer ${deviceToken}` } });
    expect(ended.status(), 'the device’s session should end on the server').toBe(200);
    // Back online the engine syncs (push, or a pull already on its way): the server answers 401.
    const refused = page.waitForResponse(
      (response) => new URL(response.url()).pathname.startsWith('/api/sync/'),
      syncCallWait,
    );
    await goOnline(context);
    expect((await refused).status()).toBe(401);
    await expect(page).toHaveURL(pathIs('/login'));
    await expect(sidebar(page)).toHaveCount(0);
    expect((await serverUser(api, me.id))?.name, 'the refused push wrote nothing').toBe(me.name);

    const replayed = page.waitForResponse(
      (response) => isSyncCall('push')(response.request()) && response.ok(),
      syncCallWait,
    );
    await signIn(page, me.email, me.password);
    const answer = (await (await replayed).json()) as { outcomes: { status: string }[] };
    expect(answer.outcomes).toEqual([expect.objectContaining({ status: 'applied' })]);

    await openProfileFromSidebar(page, newName);
    await expect(pendingMarks(page)).toHaveCount(0);
    await expect(syncStatus(page)).toHaveText('');
    await expect(sidebar(page).getByText(newName, { exact: true })).toBeVisible();
    const holders = (await serverUsers(api)).filter((user) => user.name === newName);
    expect(holders).toEqual([expect.objectContaining({ id: me.id })]);
  });
});

test.describe('changes that never reach the server', () => {
  test.afterEach(async ({ apiAs }) => {
    await restoreAlice(apiAs);
  });

  test('a change the server refuses is rolled back and shown as failed, with the reason, Retry and Discard', async ({
    page,
    apiAs,
  }) => {
    const api = await apiAs(demoUsers.bob.email);
    const failedChanges = await makeRefusedEmailChange(page);
    await expect(failedChanges.getByRole('button', { name: 'Retry' })).toBeVisible();

    await failedChanges.getByRole('button', { name: 'Discard' }).click();
    await expect(failedChanges).toHaveCount(0);
    await expect(syncStatus(page).getByRole('button')).toHaveCount(0);
    await expect(syncStatus(page)).toHaveText('');
    await expect(page.getByRole('region', { name: 'Refused changes' })).toHaveCount(0);
    await expect(detail(page, 'Email')).toHaveText(demoUsers.alice.email);

    // Discarded for good: a reload brings neither the failed change nor bob's email back.
    await page.reload();
    await expect(detail(page, 'Email')).toHaveText(demoUsers.alice.email);
    await expect(syncStatus(page)).toHaveText('');

    const users = await serverUsers(api);
    expect(users.filter((user) => user.email === demoUsers.bob.email).map((user) => user.name)).toEqual([
      demoUsers.bob.name,
    ]);
    expect(users.find((user) => user.name === demoUsers.alice.name)?.email).toBe(demoUsers.alice.email);
  });

  test('Retry sends a refused change to the server again, which refuses it again', async ({ page }) => {
    const failedChanges = await makeRefusedEmailChange(page);

    const retried = page.waitForResponse((response) => isSyncCall('push')(response.request()), syncCallWait);
    await failedChanges.getByRole('button', { name: 'Retry' }).click();
    const answer = await retried.catch(() => null);
    expect(answer, 'Retry should push the change to the server (no push within 10 s)').not.toBeNull();
    expect(await answer?.json()).toMatchObject({ outcomes: [{ status: 'rejected', code: 'email_taken' }] });
    await expect(syncStatus(page).getByRole('button', { name: '1 change failed' })).toBeVisible();
    await expect(detail(page, 'Email')).toHaveText(demoUsers.alice.email);
    await expect(pendingMarks(page)).toHaveCount(0);
  });

  test('logout with an unsynced change asks first; after logging out the change is gone and never replayed', async ({
    page,
    context,
    apiAs,
  }) => {
    const api = await apiAs(demoUsers.alice.email);
    await signIn(page, demoUsers.alice.email);
    await openProfileFromSidebar(page, demoUsers.alice.name);

    await goOffline(context);
    const offlineName = `Alice Unsent ${unique()}`;
    await editProfile(page, { name: offlineName }, 'offline');
    await expect(detail(page, 'Full Name').getByRole('img', { name: 'Pending sync' })).toBeVisible();
    await expect(syncStatus(page)).toHaveText('Offline · 1 unsynced change');

    await sidebar(page).getByRole('button', { name: 'Logout' }).click();
    const asked = page.getByRole('alertdialog', { name: 'Log out?' });
    await expect(asked, 'Logout should ask before dropping the change').toContainText(
      /\b1 change\b.*not reached the server/,
    );
    await asked.getByRole('button', { name: 'Cancel' }).click();
    await expect(asked).toHaveCount(0);
    await expect(page).toHaveURL(pathIs('/profile-settings'));
    await expect(sidebar(page)).toBeVisible();
    await expect(detail(page, 'Full Name')).toHaveText(offlineName);
    await expect(syncStatus(page)).toHaveText('Offline · 1 unsynced change');

    await sidebar(page).getByRole('button', { name: 'Logout' }).click();
    await page.getByRole('alertdialog', { name: 'Log out?' }).getByRole('button', { name: 'Log out anyway' }).click();
    await expect(page).toHaveURL(pathIs('/login'));

    await goOnline(context);
    const pushes: string[] = [];
    page.on('request', (request) => {
      if (isSyncCall('push')(request)) pushes.push(request.postData() ?? '');
    });
    const pulled = page.waitForResponse(
      (response) => isSyncCall('pull')(response.request()) && response.ok(),
      syncCallWait,
    );
    await signIn(page, demoUsers.alice.email);
    await pulled; // The engine pushes before it pulls: a replay would have gone out by now.
    await openProfileFromSidebar(page, demoUsers.alice.name);
    await expect(pendingMarks(page)).toHaveCount(0);
    await expect(syncStatus(page)).toHaveText('');
    expect(pushes, 'the discarded change must not be sent').toEqual([]);

    const users = await serverUsers(api);
    expect(users.find((user) => user.id === api.user.id)?.name).toBe(demoUsers.alice.name);
    expect(users.filter((user) => user.name === offlineName)).toEqual([]);
  });
});
