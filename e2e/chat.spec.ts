import { randomUUID } from 'node:crypto';
import { serverNotifications, unique as uniqueTag, type NotificationsAnswer } from './api-helpers';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from '@playwright/test';
import {
  demoUsers,
  expect,
  goOffline,
  goOnline,
  phoneViewport,
  saveScreen,
  signIn,
  skipSplash,
  test,
  type ApiClient,
  expectServiceWorkerInControl,
  expectUpToDate,
  registerPerson,
  setMarker,
  marker,
} from './fixtures';

// Team Chat (/chat, spec sections 2, 4, 5 and 8): live messages between two people, edits and
// deletes with their permissions, file attachments, the typing indicator, offline sends that survive
// a reload and sync once, and the phone layout.
//
// The server is shared with every other spec file: the tests only add messages of their own, with
// unique texts, and compare the screens with what GET /api/messages answers.
//
// The tests of this file run one after the other in one worker: the typing indicator shows Bob's
// typing to everybody, so a test where Bob writes must not run beside the one that watches it.
test.describe.configure({ mode: 'default' });

const desktopViewport = { width: 1280, height: 800 } as const;

/** A message as GET /api/messages answers it (the fields these tests read). */
interface ServerMessage {
  id: string;
  text: string;
  userName: string;
  edited: boolean;
  attachments: { originalName: string; kind: string }[];
}

const unique = (): string => `${Date.now()}-${randomUUID().slice(0, 6)}`;

async function serverMessages(api: ApiClient): Promise<ServerMessage[]> {
  const answer = await api.get<{ messages: ServerMessage[] }>('/api/messages');
  expect(answer.status, 'GET /api/messages').toBe(200);
  return answer.body.messages;
}

const withText = async (api: ApiClient, text: string): Promise<ServerMessage[]> =>
  (await serverMessages(api)).filter((message) => message.text === text);

/** A second signed-in browser (another person's device), splash skipped, on /chat. */
async function openChatDevice(browser: Browser, email: string): Promise<[BrowserContext, Page]> {
  const context = await browser.newContext({ viewport: desktopViewport });
  await skipSplash(context);
  const page = await context.newPage();
  await signIn(page, email);
  await openChat(page);
  return [context, page];
}

/** Opens /chat and waits until the messages (the demo ones at least) are shown. */
async function openChat(page: Page): Promise<void> {
  await page.goto('/chat');
  await expect(page.getByRole('heading', { name: 'Team Chat', level: 1 })).toBeVisible();
  await expect(messages(page).first()).toBeVisible();
}

/** Waits until the service worker is active and controls the page (so a reload works offline). */

const chatLog = (page: Page): Locator => page.getByRole('log', { name: 'Team chat messages' });
/** The messages of the list (not the attachments listed inside them). */
const messages = (page: Page): Locator => chatLog(page).locator('li[data-message-id]');
const message = (page: Page, text: string): Locator => messages(page).filter({ hasText: text });
const composer = (page: Page): Locator => page.getByRole('combobox', { name: 'Type your message...' });
const pendingMarks = (scope: Page | Locator): Locator => scope.getByRole('img', { name: 'Pending sync' });
const syncStatus = (page: Page): Locator => page.getByRole('status', { name: 'Sync status' });
const typingLine = (page: Page): Locator => page.getByText(/is typing\.\.\.$/);

async function send(page: Page, text: string): Promise<void> {
  await composer(page).fill(text);
  await composer(page).press('Enter');
  await expect(composer(page)).toHaveValue('');
  await expect(message(page, text)).toHaveCount(1);
}

/** A small real PNG and a small PDF in the test's output folder, with unique names. */
function sampleFiles(tag: string): { png: string; pdf: string; pngName: string; pdfName: string } {
  const pngName = `chart-${tag}.png`;
  const pdfName = `minutes-${tag}.pdf`;
  const png = test.info().outputPath(pngName);
  const pdf = test.info().outputPath(pdfName);
  copyFileSync(resolve(import.meta.dirname, '../pwa/public/icons/icon-192.png'), png);
  writeFileSync(
    pdf,
    '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
  );
  return { png, pdf, pngName, pdfName };
}

test.describe('live chat', () => {
  test('Alice and Bob see each other’s messages without a reload', async ({ browser, page, apiAs }) => {
    const api = await apiAs(demoUsers.alice.email);
    const tag = unique();
    const hello = `Morning Bob, is the report ready? ${tag}`;
    const reply = `Yes, sending it over now ${tag}`;

    await signIn(page, demoUsers.alice.email);
    await openChat(page);
    await setMarker(page);
    const [bobContext, bobPage] = await openChatDevice(browser, demoUsers.bob.email);
    try {
      await setMarker(bobPage);

      await send(page, hello);
      await expect(message(page, hello)).toContainText(demoUsers.alice.name);
      await expect(pendingMarks(message(page, hello))).toHaveCount(0);

      await expect(message(bobPage, hello)).toHaveCount(1);
      await expect(message(bobPage, hello)).toContainText(demoUsers.alice.name);
      expect(await marker(bobPage), "Bob's page should not have reloaded").toBe('no reload');

      await send(bobPage, reply);
      await expect(message(page, reply)).toHaveCount(1);
      await expect(message(page, reply)).toContainText(demoUsers.bob.name);
      expect(await marker(page), "Alice's page should not have reloaded").toBe('no reload');

      // The newer message is below the older one on both screens.
      for (const screen of [page, bobPage]) {
        await expect(messages(screen).filter({ hasText: tag })).toContainText([hello, reply]);
      }

      expect(await withText(api, hello)).toEqual([expect.objectContaining({ userName: demoUsers.alice.name })]);
      expect(await withText(api, reply)).toEqual([expect.objectContaining({ userName: demoUsers.bob.name })]);
    } finally {
      await bobContext.close();
    }
  });

  test('a burst of messages from elsewhere shows while it arrives, not only once it is over', async ({
    page,
    apiAs,
  }) => {
    const alice = await apiAs(demoUsers.alice.email);
    const tag = unique();
    const text = (n: number) => `Burst ${n} ${tag}`;
    await signIn(page, demoUsers.bob.email);
    await openChat(page);

    // A busy team, or a device replaying its offline queue: messages as fast as the server takes them, each
    // sent to Bob live. His device stores them as they come; his screen must follow, not freeze until the end.
    const total = 120;
    let sent = 0;
    const ids: string[] = [];
    const poster = async () => {
      while (sent < total) {
        const answer = await alice.post<{ message: { id: string } }>('/api/messages', { text: text(++sent) });
        expect(answer.status, 'POST /api/messages').toBe(201);
        ids.push(answer.body.message.id);
      }
    };
    try {
      const burst = Promise.all([poster(), poster(), poster(), poster()]);
      await expect(message(page, text(10))).toBeVisible({ timeout: 30_000 });
      const sentWhenShown = sent;
      await burst;
      expect(sentWhenShown, 'the tenth message showed while the burst still ran').toBeLessThan(total - 30);
      await expect(message(page, text(total))).toBeVisible();
    } finally {
      // The team chat is shared: a hundred messages would leave other files' messages out of its newest window.
      for (const id of ids) await alice.delete(`/api/messages/${id}`);
    }
  });

  test('a link to a message opened while the first download runs shows that message once the download brings it', async ({
    page,
    context,
    apiAs,
  }) => {
    const alice = await apiAs(demoUsers.alice.email);
    const tag = unique();
    const post = async (text: string): Promise<string> => {
      const answer = await alice.post<{ message: { id: string } }>('/api/messages', { text });
      expect(answer.status, 'POST /api/messages').toBe(201);
      return answer.body.message.id;
    };
    const linkedId = await post(`Linked ${tag}`);
    const ids = [linkedId];
    try {
      // Newer messages below it: a chat opened at its newest message leaves the linked one out of view.
      for (let n = 1; n <= 30; n += 1) ids.push(await post(`After the link ${n} ${tag}`));

      // Bob's new device: its first download is held until the chat is open at the link.
      let releaseDownload = (): void => undefined;
      const downloadHeld = new Promise<void>((resolve) => {
        releaseDownload = resolve;
      });
      let pulls = 0;
      await context.route('**/api/sync/pull**', async (route) => {
        pulls += 1;
        await downloadHeld;
        // A pull of the dashboard left behind by the navigation below has no page to answer any more.
        await route.continue().catch(() => undefined);
      });
      await signIn(page, demoUsers.bob.email);
      const pullsBeforeLink = pulls;
      await page.goto(`/chat?message=${linkedId}`);
      await expect(page.getByRole('heading', { name: 'Team Chat', level: 1 })).toBeVisible();
      await expect.poll(() => pulls, 'the open chat asks for its download').toBeGreaterThan(pullsBeforeLink);
      releaseDownload();

      const linked = chatLog(page).locator(`li[data-message-id="${linkedId}"]`);
      await expect(linked).toBeInViewport();
      await expect(linked).toContainText(`Linked ${tag}`);
      await expect(page, 'the link is followed once').toHaveURL(/\/chat$/);
    } finally {
      for (const id of ids) await alice.delete(`/api/messages/${id}`);
    }
  });
});

/** The notification bell's list (the header's), and one of its notices by text. */
const bellPanel = (page: Page): Locator => page.getByRole('dialog', { name: 'Notifications' });
const notice = (page: Page, text: string): Locator =>
  bellPanel(page).getByRole('list', { name: 'Notification list' }).getByRole('button').filter({ hasText: text });
const unreadDot = (scope: Locator): Locator => scope.getByTestId('unread-dot');

async function openBell(page: Page): Promise<void> {
  await page.getByRole('button', { name: /^Notifications/ }).click();
  await expect(bellPanel(page)).toBeVisible();
}

test.describe('notices in the bell', () => {
  test('a team chat message is a notice in every other member’s bell: one read here, the rest by mark all, nothing from before joining', async ({
    page,
    apiAs,
  }) => {
    const poster = await registerPerson('Paula Poster');
    const posterApi = await apiAs(poster.email, poster.password);
    const tag = uniqueTag();
    const post = async (text: string) => expect((await posterApi.post('/api/messages', { text })).status).toBe(201);
    await post(`Before Rex joined ${tag}`);
    const reader = await registerPerson('Rex Reader');
    const readerApi = await apiAs(reader.email, reader.password);
    const first = `Standup moved to 10:30 ${tag}`;
    const second = `${'Also, the quarterly review deck needs one more slide on hiring '.repeat(2)}${tag}`;
    await post(first);

    await signIn(page, reader.email, reader.password);
    await openBell(page);
    const firstNotice = notice(page, first);
    await expect(firstNotice).toContainText(`New message from ${poster.name}`);
    await expect(unreadDot(firstNotice)).toHaveCount(1);
    await expect(notice(page, `Before Rex joined ${tag}`)).toHaveCount(0);
    // Live: the next message is a notice the moment it arrives, its text cut to 50 characters.
    await post(second);
    const secondNotice = notice(page, second.slice(0, 50));
    await expect(secondNotice).toContainText(`${second.slice(0, 50)}...`);
    await expect(unreadDot(secondNotice)).toHaveCount(1);

    await firstNotice.click();
    await expect(page).toHaveURL(/\/chat$/);
    const onServer = async (text: string) => {
      const answer = await readerApi.get<NotificationsAnswer>('/api/notifications?limit=100');
      return answer.body.notifications.find((n) => n.message.startsWith(text.slice(0, 40)))?.read;
    };
    await expect.poll(() => onServer(first)).toBe(true);
    expect(await onServer(second)).toBe(false);

    await openBell(page);
    await expect(unreadDot(notice(page, first))).toHaveCount(0);
    await expect(unreadDot(notice(page, second.slice(0, 50)))).toHaveCount(1);
    await bellPanel(page).getByRole('button', { name: 'Mark all as read' }).click();
    await expect(unreadDot(notice(page, second.slice(0, 50)))).toHaveCount(0);
    await expect.poll(() => onServer(second)).toBe(true);
    // The poster has no notice of their own messages.
    expect((await serverNotifications(posterApi)).notifications.filter((n) => n.message.includes(tag))).toEqual([]);
  });
});

test.describe('editing and deleting', () => {
  test('Alice edits her message by double-clicking it; Escape aborts; only she and the manager have its menu', async ({
    browser,
    page,
    apiAs,
  }) => {
    const api = await apiAs(demoUsers.alice.email);
    const tag = unique();
    const original = `Lunch at noon ${tag}`;
    const edited = `Lunch moved to one o'clock ${tag}`;
    const abandoned = `Lunch cancelled ${tag}`;

    await signIn(page, demoUsers.alice.email);
    await openChat(page);
    const [bobContext, bobPage] = await openChatDevice(browser, demoUsers.bob.email);
    try {
      await send(page, original);
      await expect(message(bobPage, original)).toHaveCount(1);
      await expect(message(bobPage, original)).not.toContainText('(edited)');

      await test.step('double-click, change, Enter saves', async () => {
        await message(page, original).getByTitle('Double-click to edit').dblclick();
        const box = page.getByRole('textbox', { name: 'Edit message' });
        await expect(box).toBeVisible();
        await expect(box).toHaveValue(original);
        await expect(box).toBeFocused();
        await box.fill(edited);
        await box.press('Enter');
        await expect(page.getByRole('textbox', { name: 'Edit message' })).toHaveCount(0);
        await expect(message(page, edited)).toContainText('(edited)');
        await expect(message(page, original)).toHaveCount(0);
      });

      await test.step('Bob sees the new text marked (edited)', async () => {
        await expect(message(bobPage, edited)).toHaveCount(1);
        await expect(message(bobPage, edited)).toContainText('(edited)');
        await expect(message(bobPage, original)).toHaveCount(0);
      });
      await expect
        .poll(async () => (await serverMessages(api)).filter((entry) => entry.text.endsWith(tag)))
        .toEqual([expect.objectContaining({ text: edited, edited: true })]);

      await test.step('Escape aborts another edit', async () => {
        await message(page, edited).getByTitle('Double-click to edit').dblclick();
        const box = page.getByRole('textbox', { name: 'Edit message' });
        await expect(box).toHaveValue(edited);
        await box.fill(abandoned);
        await box.press('Escape');
        await expect(page.getByRole('textbox', { name: 'Edit message' })).toHaveCount(0);
        await expect(message(page, edited)).toHaveCount(1);
        await expect(message(page, abandoned)).toHaveCount(0);
      });

      await test.step('Alice has the menu on her message; Bob has none on it', async () => {
        await message(page, edited).getByRole('button', { name: 'Message actions' }).click();
        const menu = page.getByRole('menu', { name: 'Message actions' });
        await expect(menu.getByRole('menuitem')).toHaveText(['Edit', 'Delete']);
        await page.keyboard.press('Escape');
        await expect(menu).toBeHidden();
        await expect(message(bobPage, edited).getByRole('button', { name: 'Message actions' })).toHaveCount(0);
        // Bob's own bubble would open the editor on a double-click; Alice's does not.
        await message(bobPage, edited).getByText(edited).dblclick();
        await expect(bobPage.getByRole('textbox', { name: 'Edit message' })).toHaveCount(0);
      });
    } finally {
      await bobContext.close();
    }

    await test.step('the manager has the menu on Alice’s message, with Edit and Delete', async () => {
      const [managerContext, managerPage] = await openChatDevice(browser, demoUsers.manager.email);
      try {
        await message(managerPage, edited).getByRole('button', { name: 'Message actions' }).click();
        const menu = managerPage.getByRole('menu', { name: 'Message actions' });
        await expect(menu.getByRole('menuitem')).toHaveText(['Edit', 'Delete']);
        await menu.getByRole('menuitem', { name: 'Edit' }).click();
        await expect(managerPage.getByRole('textbox', { name: 'Edit message' })).toHaveValue(edited);
        await managerPage.getByRole('button', { name: 'Cancel', exact: true }).click();
        await expect(managerPage.getByRole('textbox', { name: 'Edit message' })).toHaveCount(0);
      } finally {
        await managerContext.close();
      }
    });

    expect(await withText(api, edited)).toEqual([expect.objectContaining({ edited: true })]);
    expect(await withText(api, abandoned)).toEqual([]);
  });

  test('deleting asks first: dismissing keeps the message, confirming removes it everywhere', async ({
    browser,
    page,
    apiAs,
  }) => {
    const api = await apiAs(demoUsers.alice.email);
    const text = `Typo, please ignore ${unique()}`;

    await signIn(page, demoUsers.alice.email);
    await openChat(page);
    const [bobContext, bobPage] = await openChatDevice(browser, demoUsers.bob.email);
    try {
      await send(page, text);
      await expect(message(bobPage, text)).toHaveCount(1);
      await expect.poll(async () => (await withText(api, text)).length).toBe(1);

      const deleteOnce = async (answer: 'Cancel' | 'Delete'): Promise<string> => {
        await message(page, text).getByRole('button', { name: 'Message actions' }).click();
        await page.getByRole('menu', { name: 'Message actions' }).getByRole('menuitem', { name: 'Delete' }).click();
        // The app's own dialog asks, with the focus on Cancel.
        const dialog = page.getByRole('alertdialog', { name: 'Delete Message' });
        await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
        const words = (await dialog.locator('p').textContent()) ?? '';
        await dialog.getByRole('button', { name: answer, exact: true }).click();
        await expect(dialog).toHaveCount(0);
        return words;
      };

      expect(await deleteOnce('Cancel')).toBe('Are you sure you want to delete this message?');
      await expect(message(page, text)).toHaveCount(1);
      await expect(message(bobPage, text)).toHaveCount(1);
      expect(await withText(api, text), 'dismissing deletes nothing').toHaveLength(1);

      expect(await deleteOnce('Delete')).toBe('Are you sure you want to delete this message?');
      await expect(message(page, text)).toHaveCount(0);
      await expect(message(bobPage, text)).toHaveCount(0);
      await expect.poll(async () => (await withText(api, text)).length).toBe(0);
    } finally {
      await bobContext.close();
    }
  });
});

test.describe('attachments', () => {
  /** Alice sends the two files with a text from the composer; returns once the server holds the message. */
  async function sendWithFiles(page: Page, api: ApiClient, text: string, files: ReturnType<typeof sampleFiles>) {
    await page.locator('input[type=file]').setInputFiles([files.png, files.pdf]);
    const selected = page.getByRole('list', { name: 'Selected files' });
    await expect(selected.getByRole('listitem')).toHaveCount(2);
    await expect(selected).toContainText(files.pngName);
    await expect(selected).toContainText(files.pdfName);
    await composer(page).fill(text);
    await page.getByRole('button', { name: 'Send message' }).click();
    await expect(selected).toBeHidden();
    await expect(composer(page)).toHaveValue('');
    await expect(message(page, text).getByRole('list', { name: 'Attachments' }).getByRole('listitem')).toHaveCount(2);
    await expect
      .poll(async () => (await withText(api, text)).map((entry) => entry.attachments))
      .toEqual([
        expect.arrayContaining([
          expect.objectContaining({ originalName: files.pngName, kind: 'image' }),
          expect.objectContaining({ originalName: files.pdfName, kind: 'pdf' }),
        ]),
      ]);
  }

  const expectOpenable = async (page: Page, text: string, files: ReturnType<typeof sampleFiles>): Promise<void> => {
    const item = message(page, text);
    await expect(item).toHaveCount(1);
    await expect(item.getByRole('button', { name: `View ${files.pngName}` })).toBeVisible();
    await expect(item.getByRole('button', { name: `Download ${files.pdfName}` })).toBeVisible();
    await expect(item).not.toContainText('Waiting to upload');
  };

  test('an image and a PDF sent with text: the PDF downloads under its name, the image opens in a blob: tab', async ({
    browser,
    page,
    apiAs,
  }) => {
    const api = await apiAs(demoUsers.alice.email);
    const tag = unique();
    const text = `Slides and minutes attached ${tag}`;
    const files = sampleFiles(tag);

    await signIn(page, demoUsers.alice.email);
    await openChat(page);
    await sendWithFiles(page, api, text, files);

    // Bob opens the chat afterwards, on a fresh device.
    const [bobContext, bobPage] = await openChatDevice(browser, demoUsers.bob.email);
    try {
      await expectOpenable(bobPage, text, files);
      await expect(message(bobPage, text)).toContainText(text);

      await test.step('the PDF downloads under its original name', async () => {
        const download = bobPage.waitForEvent('download');
        await message(bobPage, text)
          .getByRole('button', { name: `Download ${files.pdfName}` })
          .click();
        const file = await download;
        expect(file.suggestedFilename()).toBe(files.pdfName);
        const saved = test.info().outputPath(`downloaded-${files.pdfName}`);
        await file.saveAs(saved);
        expect(readFileSync(saved, 'latin1').startsWith('%PDF-1.4')).toBe(true);
      });

      await test.step('View opens the image in a new tab at a blob: address', async () => {
        const tab = bobContext.waitForEvent('page');
        await message(bobPage, text)
          .getByRole('button', { name: `View ${files.pngName}` })
          .click();
        const opened = await tab;
        await expect.poll(() => opened.url()).toMatch(/^blob:/);
        await opened.close();
      });
    } finally {
      await bobContext.close();
    }
  });

  test('sent while both are on /chat, the files become openable for Alice and Bob without a reload', async ({
    browser,
    page,
    apiAs,
  }) => {
    const api = await apiAs(demoUsers.alice.email);
    const tag = unique();
    const text = `Live slides and minutes ${tag}`;
    const files = sampleFiles(tag);

    await signIn(page, demoUsers.alice.email);
    await openChat(page);
    const [bobContext, bobPage] = await openChatDevice(browser, demoUsers.bob.email);
    try {
      await sendWithFiles(page, api, text, files);
      // The server holds both files: neither screen may still say they wait to upload.
      await expectOpenable(bobPage, text, files);
      await expectOpenable(page, text, files);
    } finally {
      await bobContext.close();
    }
  });
});

test.describe('typing indicator', () => {
  test('Alice sees "Bob Smith is typing..." while Bob types, and it goes away soon after he stops', async ({
    browser,
    page,
  }) => {
    await signIn(page, demoUsers.alice.email);
    await openChat(page);
    // The members panel is open beside the messages on a desktop.
    const members = page.getByRole('complementary', { name: /^Team Members \(\d+\)$/ });
    await expect(members).toBeVisible();
    const bobMember = members.getByRole('listitem').filter({ hasText: demoUsers.bob.name });
    await expect(typingLine(page)).toHaveCount(0);

    const [bobContext, bobPage] = await openChatDevice(browser, demoUsers.bob.email);
    try {
      // Typing goes over the sockets: both must be connected, or the keystrokes tell nobody.
      for (const device of [page, bobPage]) await expectUpToDate(device);
      await composer(bobPage).pressSequentially('Just a sec, checking', { delay: 40 });
      const typedAt = Date.now();
      await expect(page.getByText(`${demoUsers.bob.name} is typing...`, { exact: true })).toBeVisible();
      await expect(bobMember).toContainText('typing...');
      // Bob never sees himself typing.
      await expect(typingLine(bobPage)).toHaveCount(0);

      // Bob stops without sending: the stop (after 3 s idle) or the expiry (5 s) clears the line, not sooner.
      await expect(typingLine(page)).toHaveCount(0, { timeout: 10_000 });
      await expect(bobMember).not.toContainText('typing...');
      expect(Date.now() - typedAt).toBeGreaterThanOrEqual(2_500);
      await expect(composer(bobPage)).toHaveValue('Just a sec, checking');
    } finally {
      await bobContext.close();
    }
  });
});

test.describe('offline', () => {
  test('messages and a file sent offline stay pending across a reload, then reach Bob once each, in order', async ({
    browser,
    page,
    context,
    apiAs,
  }) => {
    test.slow();
    const api = await apiAs(demoUsers.alice.email);
    const tag = unique();
    const first = `Offline note one ${tag}`;
    const second = `Offline note two ${tag}`;
    const withFile = `Offline note with a file ${tag}`;
    const files = sampleFiles(tag);
    const texts = [first, second, withFile];

    await signIn(page, demoUsers.alice.email);
    await expectServiceWorkerInControl(page);
    await openChat(page);
    await expectServiceWorkerInControl(page);
    await expect(syncStatus(page)).toHaveText('');
    const [bobContext, bobPage] = await openChatDevice(browser, demoUsers.bob.email);
    try {
      await setMarker(bobPage);
      const mine = (): Locator => messages(page).filter({ hasText: tag });

      await test.step('offline, Alice sends two messages and one with a file', async () => {
        await goOffline(context);
        await expect(syncStatus(page)).toContainText('Offline');
        // Each send empties the composer at once, so the next one follows without a pause
        // (e2e/composer.spec.ts types whole bursts that way).
        await composer(page).fill(first);
        await composer(page).press('Enter');
        await composer(page).fill(second);
        await composer(page).press('Enter');
        await expect(composer(page)).toHaveValue('');
        await page.locator('input[type=file]').setInputFiles(files.pdf);
        await composer(page).fill(withFile);
        await page.getByRole('button', { name: 'Send message' }).click();
        await expect(composer(page)).toHaveValue('');

        await expect(mine()).toHaveCount(3);
        await expect(mine()).toContainText(texts);
        await expect(pendingMarks(mine())).toHaveCount(3);
        await expect(message(page, withFile)).toContainText(files.pdfName);
        await expect(message(page, withFile)).toContainText('Waiting to upload');
        await expect(syncStatus(page)).toContainText('Offline · 3 unsynced changes', { useInnerText: true });
        const onServer = (await serverMessages(api)).filter((entry) => entry.text.endsWith(tag));
        expect(onServer, 'nothing reaches the server while offline').toEqual([]);
      });

      await test.step('a reload while offline keeps all three, pending', async () => {
        await page.reload();
        await expect(page.getByRole('heading', { name: 'Team Chat', level: 1 })).toBeVisible();
        await expect(mine()).toHaveCount(3);
        await expect(mine()).toContainText(texts);
        await expect(pendingMarks(mine())).toHaveCount(3);
        await expect(message(page, withFile)).toContainText('Waiting to upload');
        await expect(syncStatus(page)).toContainText('Offline', { useInnerText: true });
        await saveScreen(page, 'chat-offline-pending-desktop');
      });

      await test.step('back online, the marks clear', async () => {
        await goOnline(context);
        await expect(pendingMarks(page)).toHaveCount(0, { timeout: 20_000 });
        await expect(syncStatus(page)).toHaveText('');
        await expect(mine()).toHaveCount(3);
        await expect(mine()).toContainText(texts);
        await expect(message(page, withFile).getByRole('button', { name: `Download ${files.pdfName}` })).toBeVisible();
        await expect(message(page, withFile)).not.toContainText('Waiting to upload');
      });

      await test.step('Bob sees each message once, in the order written, without a reload', async () => {
        const bobs = messages(bobPage).filter({ hasText: tag });
        await expect(bobs).toHaveCount(3);
        await expect(bobs).toContainText(texts);
        await expect(
          message(bobPage, withFile).getByRole('button', { name: `Download ${files.pdfName}` }),
        ).toBeVisible();
        expect(await marker(bobPage), "Bob's page should not have reloaded").toBe('no reload');
      });

      const onServer = (await serverMessages(api)).filter((entry) => entry.text.endsWith(tag));
      expect(onServer.map((entry) => entry.text)).toEqual(texts);
      expect(onServer.map((entry) => entry.attachments.map((file) => file.originalName))).toEqual([
        [],
        [],
        [files.pdfName],
      ]);
    } finally {
      await bobContext.close();
    }
  });
});

test.describe('layout and screenshots', () => {
  test('/chat on a desktop and on a phone, where the members panel opens over the messages', async ({
    page,
    apiAs,
  }) => {
    const api = await apiAs(demoUsers.alice.email);
    await signIn(page, demoUsers.alice.email);
    await openChat(page);

    const members = page.getByRole('complementary', { name: /^Team Members \(\d+\)$/ });
    await expect(members).toBeVisible();
    await expect(page.getByRole('button', { name: 'Hide team members' })).toBeVisible();
    // The count is the directory's (other files may register people meanwhile, so it is retried).
    await expect(async () => {
      const answer = await api.get<{ users: unknown[] }>('/api/auth/all-users');
      await expect(members.getByRole('heading', { level: 2 })).toHaveText(
        `Team Members (${answer.body.users.length})`,
        { timeout: 1_000 },
      );
    }).toPass();
    // The current user first, marked (You).
    await expect(members.getByRole('listitem').first()).toContainText(`${demoUsers.alice.name}(You)`);
    await expect(composer(page)).toBeVisible();
    await saveScreen(page, 'chat-desktop');

    await page.setViewportSize(phoneViewport);
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Team Chat', level: 1 })).toBeVisible();
    await expect(messages(page).first()).toBeVisible();
    // On a phone the panel starts closed and the composer fits on the screen.
    await expect(members).toHaveCount(0);
    await expect(composer(page)).toBeInViewport();
    await expect(page.getByRole('button', { name: 'Send message' })).toBeInViewport();
    const { scrollWidth, clientWidth } = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
    }));
    expect(scrollWidth, 'the page should not scroll sideways').toBeLessThanOrEqual(clientWidth);

    const text = `Sent from my phone ${unique()}`;
    await send(page, text);
    await expect(message(page, text)).toBeInViewport();
    await saveScreen(page, 'chat-phone');

    await page.getByRole('button', { name: 'Show team members' }).click();
    await expect(members).toBeVisible();
    await expect(members).toBeInViewport();
    // An overlay: the panel lies over the message list, which keeps its full width.
    const logBox = await chatLog(page).boundingBox();
    const panelBox = await members.boundingBox();
    expect(logBox && panelBox).toBeTruthy();
    if (logBox && panelBox) {
      expect(logBox.width, 'the messages keep the width of the screen').toBeGreaterThan(phoneViewport.width * 0.8);
      expect(panelBox.x).toBeLessThan(logBox.x + logBox.width);
      expect(panelBox.x + panelBox.width).toBeGreaterThan(logBox.x);
    }
    await expect(members.getByText('(You)')).toBeVisible();
    await saveScreen(page, 'chat-phone-members');
    await members.getByRole('button', { name: 'Close team members' }).click();
    await expect(members).toHaveCount(0);
    await expect(composer(page)).toBeInViewport();
  });
});
