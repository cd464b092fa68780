import { crc32, deflateSync } from 'node:zlib';
import type { BrowserContext, Locator, Page, Request, Route } from '@playwright/test';
import {
  expect,
  goOffline,
  goOnline,
  marker,
  openDevice,
  phoneViewport,
  registerPerson,
  saveScreen,
  setMarker,
  signIn,
  test,
  type ApiClient,
  type RegisteredPerson,
} from './fixtures';
import { unique } from './api-helpers';

// Profile Settings (/profile-settings, spec sections 2, 4, 5, 7, 8 and 9): the photo upload with its
// instant preview, the sidebar and a teammate's open chat picking the new photo up live; the checks
// made before anything is sent; a name edited offline that syncs once back online; the password form
// with its rules, its offline refusal, the server's refusal and a change that ends the other sessions.
//
// Every test that changes a user works on accounts it registers itself: the seeded demo users are
// shared with the other spec files running in parallel.

/** The user as GET /api/auth/me answers it (the fields these tests read). */
interface ServerUser {
  id: string;
  name: string;
  email: string;
  avatar: string | null;
}

async function serverMe(api: ApiClient): Promise<ServerUser> {
  const answer = await api.get<{ user: ServerUser }>('/api/auth/me');
  expect(answer.status, 'GET /api/auth/me').toBe(200);
  return answer.body.user;
}

/** A real PNG: `size` × `size` pixels, a diagonal blend from one colour to another. */
function samplePng(size: number, from: [number, number, number], to: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(2, 9); // truecolour RGB
  const rows: Buffer[] = [];
  for (let y = 0; y < size; y += 1) {
    const row = Buffer.alloc(1 + size * 3); // filter byte 0, then RGB
    for (let x = 0; x < size; x += 1) {
      const t = (x + y) / (2 * (size - 1));
      for (let c = 0; c < 3; c += 1) row[1 + x * 3 + c] = Math.round(from[c]! + (to[c]! - from[c]!) * t);
    }
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const teal = (): Buffer => samplePng(64, [20, 184, 166], [79, 70, 229]);

const pathIs =
  (pathname: string) =>
  (url: URL): boolean =>
    url.pathname === pathname;
const isCall = (pathname: string) => (request: Request) => new URL(request.url()).pathname === pathname;
const avatarPath = /^\/api\/auth\/avatars\/[0-9a-f-]{36}\.png$/;

const sidebar = (page: Page): Locator => page.getByRole('complementary', { name: 'Sidebar' });
const photoSection = (page: Page): Locator => page.getByRole('region', { name: 'Profile Photo' });
const basicInformation = (page: Page): Locator => page.getByRole('region', { name: 'Basic Information' });
const passwordSection = (page: Page): Locator => page.getByRole('region', { name: 'Password' });
const preview = (page: Page): Locator => photoSection(page).getByRole('img', { name: 'New profile photo preview' });
const photoInput = (page: Page): Locator => photoSection(page).getByLabel('Profile photo file');
const flash = (page: Page, text: string): Locator => page.getByText(text, { exact: true });
const fullName = (page: Page): Locator =>
  basicInformation(page)
    .locator('div')
    .filter({ has: page.getByRole('term').filter({ hasText: 'Full Name' }) })
    .getByRole('definition');
const chatMessage = (page: Page, text: string): Locator =>
  page.getByRole('log', { name: 'Team chat messages' }).locator('li[data-message-id]').filter({ hasText: text });

/** The src of an <img>, as a path with its query. */
async function imagePath(image: Locator): Promise<string> {
  const src = await image.getAttribute('src');
  const url = new URL(src ?? '', 'http://host');
  return url.pathname;
}

/** Whether an <img> has really loaded its picture (not a broken image). */
const imageLoaded = (image: Locator): Promise<boolean> =>
  image.evaluate((element) => element instanceof HTMLImageElement && element.complete && element.naturalWidth > 0);

/** A full-page screenshot from the top (a scrolled page would draw its sticky bars mid-page). */
async function saveScreenFromTop(page: Page, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await saveScreen(page, name);
}

/** Registers a fresh employee, signs them in on `page` and opens their Profile Settings; returns them. */
async function signInAsNewEmployee(page: Page, firstName: string): Promise<RegisteredPerson> {
  const me = await registerPerson(`${firstName} Profile`);
  await signIn(page, me.email, me.password);
  await openProfile(page, me.name);
  return me;
}

/** Opens Profile Settings and waits for the user's details. */
async function openProfile(page: Page, name: string): Promise<void> {
  await page.goto('/profile-settings');
  await expect(page.getByRole('heading', { name: 'Profile Settings', level: 1 })).toBeVisible();
  await expect(fullName(page)).toHaveText(name);
}

/** Holds the next call to `pathname` until `release()` is called, so a test can look at the busy state. */
async function holdCall(context: BrowserContext, pathname: string): Promise<{ release: () => void }> {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const handler = async (route: Route): Promise<void> => {
    await released;
    await route.continue();
  };
  await context.route((url) => url.pathname === pathname, handler, { times: 1 });
  return { release };
}

/** Counts the requests of a context to a path from now on. */
function countCalls(context: BrowserContext, pathname: string): () => number {
  let count = 0;
  context.on('request', (request) => {
    if (isCall(pathname)(request)) count += 1;
  });
  return () => count;
}

test.describe('profile photo', () => {
  test('a new photo previews at once, then shows in the sidebar and on a teammate’s open chat without a reload', async ({
    browser,
    page,
    context,
    apiAs,
  }) => {
    const me = await registerPerson('Pia Profile');
    const teammate = await registerPerson('Theo Profile');
    const api = await apiAs(me.email, me.password);
    const text = `Photo day ${unique()}`;
    expect((await api.post('/api/messages', { text })).status, 'POST /api/messages').toBe(201);

    const [teammateContext, teammatePage] = await openDevice(browser, teammate);
    try {
      await teammatePage.goto('/chat');
      const authorAvatar = chatMessage(teammatePage, text).getByRole('img', { name: `${me.name} avatar` });
      await expect(authorAvatar).toBeVisible();
      await expect(authorAvatar).not.toHaveAttribute('src', /\/api\/auth\/avatars\//);
      await setMarker(teammatePage);

      await signIn(page, me.email, me.password);
      await openProfile(page, me.name);
      const section = photoSection(page);
      await expect(section.getByRole('img', { name: `${me.name} avatar` })).toBeVisible();
      await expect(photoInput(page)).toHaveAttribute('accept', 'image/*');

      // The upload is held so the preview and the busy button can be seen before the answer.
      const upload = await holdCall(context, '/api/auth/upload-avatar');
      const answered = page.waitForResponse((response) => isCall('/api/auth/upload-avatar')(response.request()));
      const chooser = page.waitForEvent('filechooser');
      await section.getByRole('button', { name: 'Upload Photo' }).click();
      await (await chooser).setFiles({ name: 'me.png', mimeType: 'image/png', buffer: teal() });

      await expect(preview(page)).toBeVisible();
      await expect(preview(page)).toHaveAttribute('src', /^blob:/);
      expect(await imageLoaded(preview(page)), 'the preview shows the chosen picture').toBe(true);
      await expect(section.getByRole('button', { name: 'Uploading...' })).toBeDisabled();
      await saveScreenFromTop(page, 'profile-photo-uploading-desktop');

      upload.release();
      const response = await answered;
      expect(response.status()).toBe(200);
      const answer = (await response.json()) as { avatarUrl: string; user: ServerUser };
      const newPath = new URL(answer.avatarUrl, 'http://host').pathname;
      expect(newPath).toMatch(avatarPath);
      expect(answer.avatarUrl, 'the URL carries a timestamp against caches').toMatch(/\?t=\d+$/);

      const success = flash(page, 'Profile photo updated successfully!');
      await expect(success).toBeVisible();
      const shownAt = Date.now();
      // The preview gives way to the stored photo 1.5 s after the success.
      await expect(preview(page)).toHaveCount(0);
      const current = section.getByRole('img', { name: `${me.name} avatar` });
      await expect.poll(() => imagePath(current)).toBe(newPath);
      expect(await imageLoaded(current)).toBe(true);
      await expect(section.getByRole('button', { name: 'Change Photo' })).toBeEnabled();

      const sidebarAvatar = sidebar(page).getByRole('img', { name: `${me.name} avatar` });
      await expect.poll(() => imagePath(sidebarAvatar)).toBe(newPath);
      await expect.poll(() => imageLoaded(sidebarAvatar)).toBe(true);

      // The teammate's chat shows the author's new photo live.
      await expect.poll(() => imagePath(authorAvatar)).toBe(newPath);
      await expect.poll(() => imageLoaded(authorAvatar)).toBe(true);
      expect(await marker(teammatePage), "the teammate's page should not have reloaded").toBe('no reload');

      // The flash goes away by itself after 3 s.
      await expect(success).toHaveCount(0, { timeout: 6_000 });
      expect(Date.now() - shownAt).toBeGreaterThan(2_000);

      expect((await serverMe(api)).avatar).toBe(newPath);
      await saveScreenFromTop(page, 'profile-photo-updated-desktop');
    } finally {
      await teammateContext.close();
    }
  });

  test('a file that is not an image, an image over 5 MB and an offline choice are refused before anything is sent', async ({
    page,
    context,
    apiAs,
  }) => {
    const me = await signInAsNewEmployee(page, 'Quinn');
    const api = await apiAs(me.email, me.password);
    const uploads = countCalls(context, '/api/auth/upload-avatar');

    await photoInput(page).setInputFiles({
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('Not a picture at all.\n'),
    });
    await expect(page.getByRole('alert').filter({ hasText: 'Please select a valid image file' })).toBeVisible();
    await expect(preview(page)).toHaveCount(0);

    await photoInput(page).setInputFiles({
      name: 'huge.png',
      mimeType: 'image/png',
      buffer: Buffer.concat([teal(), Buffer.alloc(5_242_880)]),
    });
    await expect(page.getByRole('alert').filter({ hasText: 'Image file must be less than 5MB' })).toBeVisible();
    await expect(preview(page)).toHaveCount(0);

    await goOffline(context);
    await photoInput(page).setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: teal() });
    await expect(
      page.getByRole('alert').filter({
        hasText: 'Failed to update profile photo. Changing your profile photo needs a connection.',
      }),
    ).toBeVisible();
    await expect(preview(page)).toHaveCount(0);
    await goOnline(context);

    expect(uploads(), 'no upload was sent').toBe(0);
    expect((await serverMe(api)).avatar ?? '').not.toMatch(/\/api\/auth\/avatars\//);
  });

  test('a photo the server refuses clears the preview at once and shows the server’s sentence', async ({
    page,
    context,
    apiAs,
  }) => {
    const me = await signInAsNewEmployee(page, 'Rory');
    const api = await apiAs(me.email, me.password);

    // Declared a PNG, but the bytes are text: the browser lets it through, the server does not.
    const upload = await holdCall(context, '/api/auth/upload-avatar');
    const answered = page.waitForResponse((response) => isCall('/api/auth/upload-avatar')(response.request()));
    await photoInput(page).setInputFiles({ name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('hello') });
    await expect(preview(page)).toBeVisible();
    upload.release();
    expect((await answered).status()).toBe(415);

    await expect(page.getByRole('alert').filter({ hasText: 'Please select a valid image file' })).toBeVisible();
    await expect(preview(page)).toHaveCount(0);
    await expect(photoSection(page).getByRole('button', { name: 'Upload Photo' })).toBeEnabled();
    expect((await serverMe(api)).avatar ?? '').not.toMatch(/\/api\/auth\/avatars\//);
  });
});

test.describe('basic information', () => {
  test('a name edited offline reaches the server once back online', async ({ page, context, apiAs }) => {
    const me = await signInAsNewEmployee(page, 'Sage');
    const api = await apiAs(me.email, me.password);

    await goOffline(context);
    const newName = `Sage Offline ${unique()}`;
    const section = basicInformation(page);
    await section.getByRole('button', { name: 'Edit' }).click();
    await section.getByLabel('Full Name', { exact: true }).fill(newName);
    await section.getByRole('button', { name: 'Save Changes' }).click();
    // Honest while offline: no success claimed before the server has the change.
    await expect(flash(page, 'Saved on this device — will sync when online')).toBeVisible();
    await expect(flash(page, 'Profile updated successfully!')).toHaveCount(0);
    await expect(fullName(page)).toContainText(newName);
    expect((await serverMe(api)).name, 'nothing reaches the server while offline').toBe(me.name);

    await goOnline(context);
    // Once the server has accepted it, and only then, the success message of the spec.
    await expect(flash(page, 'Profile updated successfully!')).toBeVisible();
    await expect.poll(async () => (await serverMe(api)).name).toBe(newName);
    await expect(fullName(page)).toHaveText(newName);
    await expect(sidebar(page).getByText(newName, { exact: true })).toBeVisible();
  });
});

test.describe('password', () => {
  test('the form opens, checks its fields, shows or hides all three at once, and Cancel clears it', async ({
    page,
  }) => {
    const me = await signInAsNewEmployee(page, 'Uma');
    const section = passwordSection(page);

    await expect(section).toContainText('Password is hidden for security. Click "Change Password" to update.');
    await expect(section.getByRole('textbox')).toHaveCount(0);
    await section.getByRole('button', { name: 'Change Password' }).click();

    const current = section.getByLabel('Current Password', { exact: true });
    const next = section.getByLabel('New Password', { exact: true });
    const confirm = section.getByLabel('Confirm New Password', { exact: true });
    await expect(current).toHaveAttribute('placeholder', 'Enter current password');
    await expect(next).toHaveAttribute('placeholder', 'Enter new password');
    await expect(confirm).toHaveAttribute('placeholder', 'Confirm new password');
    for (const field of [current, next, confirm]) await expect(field).toHaveAttribute('type', 'password');

    const show = section.getByRole('button', { name: 'Show passwords' });
    await expect(show).toHaveAttribute('aria-pressed', 'false');
    await show.click();
    const hide = section.getByRole('button', { name: 'Hide passwords' });
    await expect(hide).toHaveAttribute('aria-pressed', 'true');
    for (const field of [current, next, confirm]) await expect(field).toHaveAttribute('type', 'text');
    await hide.click();
    for (const field of [current, next, confirm]) await expect(field).toHaveAttribute('type', 'password');

    const submit = section.getByRole('button', { name: 'Update Password' });
    const alert = section.getByRole('alert');
    await submit.click();
    await expect(alert).toHaveText('All password fields are required');
    await current.fill(me.password);
    await next.fill('short');
    await confirm.fill('short');
    await submit.click();
    await expect(alert).toHaveText('New password must be at least 6 characters long');
    await confirm.fill('shorter');
    await next.fill('longer1');
    await submit.click();
    await expect(alert).toHaveText('New passwords do not match');

    await section.getByRole('button', { name: 'Cancel' }).click();
    await expect(current).toHaveCount(0);
    await expect(section).toContainText('Password is hidden for security.');
    await section.getByRole('button', { name: 'Change Password' }).click();
    for (const field of [current, next, confirm]) await expect(field).toHaveValue('');
    await expect(alert).toHaveCount(0);
  });

  test('offline nothing is sent; online a wrong password is refused, a valid change signs out the other session only', async ({
    browser,
    page,
    context,
    request,
    apiAs,
  }) => {
    const me = await registerPerson('Vera Profile');
    const newPassword = `renewed-${unique()}`;
    const [otherContext, otherPage] = await openDevice(browser, me);
    try {
      await otherPage.goto('/dashboard');
      await signIn(page, me.email, me.password);
      await openProfile(page, me.name);
      const section = passwordSection(page);
      const calls = countCalls(context, '/api/auth/updatepassword');
      const bodies: unknown[] = [];
      context.on('request', (call) => {
        if (isCall('/api/auth/updatepassword')(call)) bodies.push(call.postDataJSON());
      });

      await section.getByRole('button', { name: 'Change Password' }).click();
      const fill = async (current: string): Promise<void> => {
        await section.getByLabel('Current Password', { exact: true }).fill(current);
        await section.getByLabel('New Password', { exact: true }).fill(newPassword);
        await section.getByLabel('Confirm New Password', { exact: true }).fill(newPassword);
      };
      const submit = section.getByRole('button', { name: 'Update Password' });

      // Offline: refused on the device, never queued.
      await goOffline(context);
      await fill(me.password);
      await submit.click();
      await expect(section.getByRole('alert')).toHaveText(
        'Failed to update password. Changing your password needs a connection. Please try again when you are online.',
      );
      expect(calls(), 'nothing is sent while offline').toBe(0);
      await goOnline(context);

      // A wrong current password: the server's sentence.
      await fill('not-my-password');
      await submit.click();
      await expect(section.getByRole('alert')).toHaveText('Current password is incorrect');
      expect(calls()).toBe(1);

      // The valid change, held to see the busy state.
      const tokenBefore = await page.evaluate(() => localStorage.getItem('token'));
      await fill(me.password);
      const held = await holdCall(context, '/api/auth/updatepassword');
      const answered = page.waitForResponse((response) => isCall('/api/auth/updatepassword')(response.request()));
      await submit.click();
      await expect(section.getByRole('button', { name: 'Updating...' })).toBeDisabled();
      await expect(section.getByRole('button', { name: 'Cancel' })).toBeDisabled();
      held.release();
      expect((await answered).status()).toBe(200);
      expect(bodies.at(-1), 'only the current and the new password travel').toEqual({
        currentPassword: me.password,
        newPassword,
      });

      await expect(flash(page, 'Password updated successfully!')).toBeVisible();
      await expect(section.getByLabel('Current Password', { exact: true })).toHaveCount(0);
      await expect(section).toContainText('Password is hidden for security.');

      // The server now takes the new password only.
      const oldLogin = await request.post('/api/auth/login', { data: { email: me.email, password: me.password } });
      expect(oldLogin.status()).toBe(401);
      const api = await apiAs(me.email, newPassword);
      // Back online, this device's socket reconnects after its backoff (1–5 s); the other session's socket is
      // gone now, so the server counts me online once this one is back.
      await expect
        .poll(
          async () =>
            (await api.get<{ data: { id: string; status: string }[] }>('/api/messages/active-users')).body.data.find(
              (user) => user.id === me.id,
            )?.status,
          { timeout: 15_000 },
        )
        .not.toBe('offline');

      // This session goes on with the token it had (the server kept its session), live: with pulls cut, a
      // rename elsewhere arrives over its socket, which stayed connected.
      expect(await page.evaluate(() => localStorage.getItem('token'))).toBe(tokenBefore);
      await setMarker(page);
      await context.route('**/api/sync/pull**', (route) => route.abort('connectionrefused'));
      const renamed = `Vera Renamed ${unique()}`;
      expect((await api.put('/api/auth/updatedetails', { name: renamed, email: me.email })).status).toBe(200);
      await expect(fullName(page)).toHaveText(renamed);
      expect(await marker(page), 'the session should not have reloaded').toBe('no reload');
      await context.unrouteAll({ behavior: 'ignoreErrors' });

      await page.reload();
      await expect(page).toHaveURL(pathIs('/profile-settings'));
      await expect(fullName(page)).toHaveText(renamed);

      // The other session is over: its next load ends on the login screen.
      await otherPage.reload();
      await expect(otherPage).toHaveURL(pathIs('/login'));
      await expect(otherPage.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
    } finally {
      await otherContext.close();
    }
  });
});

test.describe('layout', () => {
  test('desktop and phone screenshots with a photo and the password form open', async ({ page, apiAs }) => {
    const me = await registerPerson('Wren Profile');
    const api = await apiAs(me.email, me.password);
    const uploaded = await api.request.post('/api/auth/upload-avatar', {
      multipart: { avatar: { name: 'me.png', mimeType: 'image/png', buffer: teal() } },
    });
    expect(uploaded.status()).toBe(200);

    await signIn(page, me.email, me.password);
    await openProfile(page, me.name);
    const current = photoSection(page).getByRole('img', { name: `${me.name} avatar` });
    await expect.poll(() => imageLoaded(current)).toBe(true);
    await expect(photoSection(page).getByRole('button', { name: 'Change Photo' })).toBeVisible();
    await saveScreenFromTop(page, 'profile-settings-desktop');

    await passwordSection(page).getByRole('button', { name: 'Change Password' }).click();
    await passwordSection(page).getByRole('button', { name: 'Update Password' }).click();
    await expect(passwordSection(page).getByRole('alert')).toHaveText('All password fields are required');
    await saveScreenFromTop(page, 'profile-settings-password-desktop');

    await page.setViewportSize(phoneViewport);
    await expect(page.getByRole('button', { name: 'Open menu' })).toBeVisible();
    for (const name of ['Change Photo', 'Edit', 'Update Password', 'Cancel']) {
      const button = page.getByRole('button', { name, exact: true });
      const box = await button.boundingBox();
      expect(box, `${name} is laid out`).not.toBeNull();
      expect(box!.x, `${name} starts inside the screen`).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width, `${name} ends inside the screen`).toBeLessThanOrEqual(phoneViewport.width);
    }
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, 'nothing scrolls sideways').toBeLessThanOrEqual(0);
    await saveScreenFromTop(page, 'profile-settings-phone');

    // A success flash stays in view under the top bar wherever the page is scrolled.
    await passwordSection(page).getByRole('button', { name: 'Cancel' }).click();
    await photoInput(page).setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: teal() });
    const success = flash(page, 'Profile photo updated successfully!');
    await expect(success).toBeVisible();
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await expect(success).toBeInViewport();
    await page.screenshot({ path: test.info().outputPath('flash-scrolled.png') });
    await saveScreenFromTop(page, 'profile-settings-photo-flash-phone');
  });
});
