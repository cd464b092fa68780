import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Locator, Page } from '@playwright/test';
import {
  desktopViewport,
  expect,
  expectNoSidewaysScroll,
  expectServiceWorkerInControl,
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
import {
  sendDirectMessage,
  serverConversations,
  startConversation,
  unique,
  type ServerConversation,
} from './api-helpers';

// Direct Messages (/direct-messages, spec sections 2, 4, 5 and 8): starting a conversation from Team
// Members or the "Start New Conversation" dialog, live messages with unread badges that stay at 0 for
// the open conversation, typing, offline sends (text and a file) that survive a reload and reach the
// other person once each, deleting one's own message, and the phone layout.
//
// The server is shared with every other spec file, and the seeded people's conversations with them:
// each test registers people of its own over HTTP, so its unread counts and message lists are exact.

/** A direct message as GET /api/direct-messages/conversations/{id}/messages answers it (the fields read here). */
interface ServerDirectMessage {
  id: string;
  text: string;
  sender: { id: string; name: string };
  attachments: { originalName: string; url: string }[];
}

async function serverMessages(api: ApiClient, conversationId: string): Promise<ServerDirectMessage[]> {
  const answer = await api.get<{ messages: ServerDirectMessage[] }>(
    `/api/direct-messages/conversations/${conversationId}/messages`,
  );
  expect(answer.status, 'GET the conversation’s messages').toBe(200);
  return answer.body.messages;
}

/** The conversation of `api`'s user with `other`, as the server lists it for them. */
async function serverConversationWith(
  api: ApiClient,
  other: RegisteredPerson,
): Promise<ServerConversation | undefined> {
  return (await serverConversations(api)).find((item) => item.participants.some((p) => p.id === other.id));
}

/** Another person's device: a signed-in browser context, splash skipped, on /direct-messages. */
async function openDirectMessagesDevice(browser: Browser, person: RegisteredPerson): Promise<[BrowserContext, Page]> {
  const [context, page] = await openDevice(browser, person);
  await openDirectMessages(page);
  return [context, page];
}

async function openDirectMessages(page: Page): Promise<void> {
  await page.goto('/direct-messages');
  await expect(page.getByRole('heading', { name: 'Direct Messages', level: 1 })).toBeVisible();
  await expect(sidebar(page)).toBeVisible();
}

const sidebar = (page: Page): Locator => page.getByRole('complementary', { name: 'Conversations' });
/** The row of the conversation with `other` in the sidebar. */
const conversationItem = (page: Page, other: RegisteredPerson): Locator =>
  sidebar(page).getByRole('listitem').filter({ hasText: other.name });
const unreadBadge = (scope: Locator): Locator => scope.getByRole('img', { name: /unread messages?$/ });
/** The open conversation, named by the other participant. */
const conversation = (page: Page, other: RegisteredPerson): Locator => page.getByRole('region', { name: other.name });
const messageLog = (page: Page, other: RegisteredPerson): Locator =>
  page.getByRole('log', { name: `Messages with ${other.name}` });
const messages = (page: Page, other: RegisteredPerson): Locator =>
  messageLog(page, other).locator('li[data-message-id]');
const message = (page: Page, other: RegisteredPerson, text: string): Locator =>
  messages(page, other).filter({ hasText: text });
const composer = (page: Page): Locator => page.getByRole('combobox', { name: 'Type a message...' });
const pendingMarks = (scope: Page | Locator): Locator => scope.getByRole('img', { name: 'Pending sync' });

async function openConversation(page: Page, other: RegisteredPerson): Promise<void> {
  await conversationItem(page, other).getByRole('button').click();
  await expect(conversation(page, other)).toBeVisible();
  await expect(conversation(page, other).getByRole('heading', { name: other.name })).toBeVisible();
}

async function send(page: Page, other: RegisteredPerson, text: string): Promise<void> {
  await composer(page).fill(text);
  await composer(page).press('Enter');
  await expect(composer(page)).toHaveValue('');
  await expect(message(page, other, text)).toHaveCount(1);
}

test.describe('live conversation', () => {
  test('Alice messages Bob from Team Members; Bob gets it live with an unread badge, replies, and Alice’s count stays 0', async ({
    browser,
    page,
    apiAs,
  }) => {
    const alice = await registerPerson('Alice Direct');
    const bob = await registerPerson('Bob Direct');
    const aliceApi = await apiAs(alice.email, alice.password);
    const bobApi = await apiAs(bob.email, bob.password);
    const tag = unique();
    const hello = `Hi Bob, got a minute? ${tag}`;
    const reply = `Sure, what's up? ${tag}`;

    await signIn(page, alice.email, alice.password);
    const [bobContext, bobPage] = await openDirectMessagesDevice(browser, bob);
    try {
      await setMarker(bobPage);
      await expect(sidebar(bobPage)).toContainText('No conversations yet');
      await expect(sidebar(bobPage)).toContainText('Start a new conversation from Team Members');

      await test.step('Alice presses "Message" on Bob’s card and lands in the conversation', async () => {
        await page.goto('/team-members');
        await page.getByRole('button', { name: `Message ${bob.name}`, exact: true }).click();
        await expect(page).toHaveURL(/\/direct-messages$/);
        await expect(conversation(page, bob)).toBeVisible();
        await expect(conversation(page, bob)).toContainText('Online');
        await expect(conversationItem(page, bob)).toHaveCount(1);
        await expect(conversationItem(page, bob).getByRole('button')).toHaveAttribute('aria-current', 'true');
      });

      await test.step('Alice sends; Bob sees the conversation appear with one unread message', async () => {
        await send(page, bob, hello);
        await expect(pendingMarks(message(page, bob, hello))).toHaveCount(0);
        await expect(conversationItem(bobPage, alice)).toContainText(hello);
        await expect(unreadBadge(conversationItem(bobPage, alice))).toHaveAccessibleName('1 unread message');
        await expect(unreadBadge(conversationItem(bobPage, alice))).toHaveText('1');
        expect(await marker(bobPage), "Bob's page should not have reloaded").toBe('no reload');
        await expect.poll(async () => (await serverConversationWith(bobApi, alice))?.unreadCount).toBe(1);
      });

      await test.step('Bob opens it: the badge goes, and the server counts it read', async () => {
        await openConversation(bobPage, alice);
        await expect(message(bobPage, alice, hello)).toHaveCount(1);
        await expect(unreadBadge(sidebar(bobPage))).toHaveCount(0);
        await expect.poll(async () => (await serverConversationWith(bobApi, alice))?.unreadCount).toBe(0);
        // Alice's own message shows as read once Bob's read mark reaches her.
        await expect(message(page, bob, hello).getByRole('img', { name: 'Read' })).toBeVisible();
      });

      await test.step('Bob types: Alice sees it; Bob replies and Alice, who has it open, stays at 0 unread', async () => {
        await composer(bobPage).pressSequentially('Sure', { delay: 40 });
        await expect(conversation(page, bob).getByText(`${bob.name} is typing...`, { exact: true })).toBeVisible();
        await composer(bobPage).fill(reply);
        await composer(bobPage).press('Enter');
        await expect(message(bobPage, alice, reply)).toHaveCount(1);

        await expect(message(page, bob, reply)).toHaveCount(1);
        await expect(messages(page, bob).filter({ hasText: tag })).toContainText([hello, reply]);
        await expect(conversationItem(page, bob)).toContainText(reply);
        await expect(unreadBadge(sidebar(page))).toHaveCount(0);
        await expect.poll(async () => (await serverConversationWith(aliceApi, bob))?.unreadCount).toBe(0);
        await expect(conversation(page, bob).getByText(/is typing\.\.\.$/)).toHaveCount(0);
      });

      const conversationId = (await serverConversationWith(aliceApi, bob))?.id ?? '';
      const onServer = await serverMessages(aliceApi, conversationId);
      expect(onServer.map((item) => [item.sender.id, item.text])).toEqual([
        [alice.id, hello],
        [bob.id, reply],
      ]);
    } finally {
      await bobContext.close();
    }
  });
});

test.describe('offline', () => {
  test('a text and a file sent offline stay pending across a reload, then reach Bob once each', async ({
    browser,
    page,
    context,
    apiAs,
  }) => {
    test.slow();
    const alice = await registerPerson('Alice Offline');
    const bob = await registerPerson('Bob Offline');
    const aliceApi = await apiAs(alice.email, alice.password);
    const bobApi = await apiAs(bob.email, bob.password);
    const conversationId = await startConversation(aliceApi, bob);
    const tag = unique();
    const text = `Written on the train ${tag}`;
    const withFile = `Agenda attached ${tag}`;
    const fileName = `agenda-${tag}.txt`;
    const fileBody = `1. Budget\n2. Hiring\n${tag}\n`;

    await signIn(page, alice.email, alice.password);
    await expectServiceWorkerInControl(page);
    await openDirectMessages(page);
    await expectServiceWorkerInControl(page);
    await openConversation(page, bob);
    const [bobContext, bobPage] = await openDirectMessagesDevice(browser, bob);
    try {
      await openConversation(bobPage, alice);
      await setMarker(bobPage);
      const mine = (): Locator => messages(page, bob).filter({ hasText: tag });

      await test.step('offline, Alice sends a text, then a file with a text', async () => {
        await goOffline(context);
        await send(page, bob, text);
        await page.locator('input[type=file]').setInputFiles({
          name: fileName,
          mimeType: 'text/plain',
          buffer: Buffer.from(fileBody),
        });
        const selected = page.getByRole('list', { name: 'Selected files' });
        await expect(selected.getByRole('listitem')).toContainText([fileName]);
        await composer(page).fill(withFile);
        await page.getByRole('button', { name: 'Send message' }).click();
        await expect(selected).toBeHidden();
        await expect(composer(page)).toHaveValue('');

        await expect(mine()).toHaveCount(2);
        await expect(pendingMarks(mine())).toHaveCount(2);
        await expect(message(page, bob, withFile)).toContainText(fileName);
        await expect(message(page, bob, withFile)).toContainText('Waiting to upload');
        await expect(conversationItem(page, bob)).toContainText(`You: ${withFile}`);
        expect(await serverMessages(aliceApi, conversationId), 'nothing reaches the server offline').toEqual([]);
      });

      await test.step('a reload while offline reopens the conversation with both, still pending', async () => {
        await page.reload();
        await expect(page.getByRole('heading', { name: 'Direct Messages', level: 1 })).toBeVisible();
        await expect(conversation(page, bob)).toBeVisible();
        await expect(mine()).toHaveCount(2);
        await expect(pendingMarks(mine())).toHaveCount(2);
        await expect(message(page, bob, withFile)).toContainText('Waiting to upload');
        await saveScreen(page, 'direct-messages-offline-pending-desktop');
      });

      await test.step('back online, the marks clear and the file can be downloaded', async () => {
        await goOnline(context);
        await expect(pendingMarks(mine())).toHaveCount(0, { timeout: 20_000 });
        await expect(mine()).toHaveCount(2);
        await expect(message(page, bob, withFile).getByRole('button', { name: `Download ${fileName}` })).toBeVisible();
      });

      await test.step('Bob sees each message exactly once, without a reload, and downloads the file', async () => {
        await expect(message(bobPage, alice, text)).toHaveCount(1);
        await expect(message(bobPage, alice, withFile)).toHaveCount(1);
        await expect(messages(bobPage, alice).filter({ hasText: fileName })).toHaveCount(1);
        await expect(messages(bobPage, alice).filter({ hasText: tag })).toHaveCount(2);
        expect(await marker(bobPage), "Bob's page should not have reloaded").toBe('no reload');

        const download = bobPage.waitForEvent('download');
        await message(bobPage, alice, withFile)
          .getByRole('button', { name: `Download ${fileName}` })
          .click();
        const file = await download;
        expect(file.suggestedFilename()).toBe(fileName);
        const saved = test.info().outputPath(`downloaded-${fileName}`);
        await file.saveAs(saved);
        expect(readFileSync(saved, 'utf8')).toBe(fileBody);
      });

      const onServer = (await serverMessages(bobApi, conversationId)).filter((item) => item.text.endsWith(tag));
      expect(onServer.map((item) => item.text)).toEqual([text, withFile]);
      expect(onServer.map((item) => item.attachments.map((attachment) => attachment.originalName))).toEqual([
        [],
        [fileName],
      ]);
    } finally {
      await bobContext.close();
    }
  });
});

test.describe('deleting', () => {
  test('only one’s own messages have Delete; it asks first, and confirming removes the message for both', async ({
    browser,
    page,
    apiAs,
  }) => {
    const alice = await registerPerson('Alice Delete');
    const bob = await registerPerson('Bob Delete');
    const aliceApi = await apiAs(alice.email, alice.password);
    const bobApi = await apiAs(bob.email, bob.password);
    const conversationId = await startConversation(aliceApi, bob);
    const tag = unique();
    const fromBob = `Did you see the memo? ${tag}`;
    const mistake = `Wrong chat, sorry ${tag}`;
    await sendDirectMessage(bobApi, conversationId, fromBob);

    await signIn(page, alice.email, alice.password);
    await openDirectMessages(page);
    await openConversation(page, bob);
    const [bobContext, bobPage] = await openDirectMessagesDevice(browser, bob);
    try {
      await openConversation(bobPage, alice);
      await send(page, bob, mistake);
      await expect(message(bobPage, alice, mistake)).toHaveCount(1);
      await expect.poll(async () => (await serverMessages(aliceApi, conversationId)).length).toBe(2);

      await expect(message(page, bob, fromBob).getByRole('button', { name: 'Delete message' })).toHaveCount(0);
      await expect(message(bobPage, alice, mistake).getByRole('button', { name: 'Delete message' })).toHaveCount(0);
      await expect(message(bobPage, alice, fromBob).getByRole('button', { name: 'Delete message' })).toHaveCount(1);

      const deleteOnce = async (answer: 'Cancel' | 'Delete'): Promise<string> => {
        await message(page, bob, mistake).hover();
        await message(page, bob, mistake).getByRole('button', { name: 'Delete message' }).click();
        // The app's own dialog asks, with the focus on Cancel.
        const dialog = page.getByRole('alertdialog', { name: 'Delete Message' });
        await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
        const words = (await dialog.locator('p').textContent()) ?? '';
        await dialog.getByRole('button', { name: answer, exact: true }).click();
        await expect(dialog).toHaveCount(0);
        return words;
      };

      expect(await deleteOnce('Cancel')).toBe('Are you sure you want to delete this message?');
      await expect(message(page, bob, mistake)).toHaveCount(1);
      expect((await serverMessages(aliceApi, conversationId)).map((item) => item.text)).toContain(mistake);

      expect(await deleteOnce('Delete')).toBe('Are you sure you want to delete this message?');
      await expect(message(page, bob, mistake)).toHaveCount(0);
      await expect(message(bobPage, alice, mistake)).toHaveCount(0);
      await expect(message(page, bob, fromBob)).toHaveCount(1);
      await expect
        .poll(async () => (await serverMessages(bobApi, conversationId)).map((item) => item.text))
        .toEqual([fromBob]);
    } finally {
      await bobContext.close();
    }
  });
});

test.describe('starting a conversation', () => {
  test('"Start New Conversation" lists everyone else, searches, says when nobody matches, and starts one', async ({
    page,
    apiAs,
  }) => {
    const alice = await registerPerson('Alice Starter');
    const bob = await registerPerson('Bob Starter');
    const bobApi = await apiAs(bob.email, bob.password);
    const hello = `First message ${unique()}`;

    await signIn(page, alice.email, alice.password);
    await openDirectMessages(page);
    await expect(sidebar(page)).toContainText('No conversations yet');
    await expect(page.getByText('Select a conversation', { exact: true })).toBeVisible();

    await sidebar(page).getByRole('button', { name: 'New conversation' }).click();
    const dialog = page.getByRole('dialog', { name: 'Start New Conversation' });
    await expect(dialog).toBeVisible();
    const options = dialog.getByRole('list', { name: 'Users' }).getByRole('button');
    await expect(options.filter({ hasText: bob.name })).toHaveCount(1);
    await expect(options.filter({ hasText: alice.name }), 'oneself is not offered').toHaveCount(0);
    await expect(options.filter({ hasText: bob.name })).toContainText('Employee');
    await saveScreen(page, 'direct-messages-new-conversation');

    await dialog.getByRole('button', { name: 'Refresh users' }).click();
    await expect(options.filter({ hasText: bob.name })).toHaveCount(1);

    const search = dialog.getByRole('searchbox', { name: 'Search users...' });
    await search.fill(`nobody-${unique()}`);
    await expect(options).toHaveCount(0);
    await expect(dialog).toContainText('No users found');
    await expect(dialog).toContainText('Try adjusting your search terms');

    await search.fill(bob.name.toUpperCase());
    await expect(options).toHaveCount(1);
    await options.getByText(bob.name).click();
    await expect(dialog).toBeHidden();
    await expect(conversation(page, bob)).toBeVisible();
    await expect(conversationItem(page, bob).getByRole('button')).toHaveAttribute('aria-current', 'true');
    await expect(conversation(page, bob)).toContainText('No messages yet');

    await send(page, bob, hello);
    await expect.poll(async () => (await serverConversationWith(bobApi, alice))?.unreadCount).toBe(1);

    await test.step('the sidebar search filters by name', async () => {
      const field = sidebar(page).getByRole('searchbox', { name: 'Search conversations...' });
      await field.fill('zzz-no-match');
      await expect(conversationItem(page, bob)).toHaveCount(0);
      await field.fill(bob.name.slice(0, 8).toLowerCase());
      await expect(conversationItem(page, bob)).toHaveCount(1);
    });
  });
});

test.describe('layout and screenshots', () => {
  test('on a phone the list and the conversation take turns, with a back button; desktop shows both', async ({
    page,
    apiAs,
  }) => {
    const alice = await registerPerson('Alice Layout');
    const bob = await registerPerson('Bob Layout');
    const carol = await registerPerson('Carol Layout');
    const aliceApi = await apiAs(alice.email, alice.password);
    const bobApi = await apiAs(bob.email, bob.password);
    const carolApi = await apiAs(carol.email, carol.password);
    const withBob = await startConversation(aliceApi, bob);
    await sendDirectMessage(bobApi, withBob, 'Morning! Are we still on for the design review at 10?');
    await sendDirectMessage(aliceApi, withBob, 'Yes, I booked the small meeting room.');
    await sendDirectMessage(bobApi, withBob, 'Great, I will bring the printed mock-ups.');
    const withCarol = await startConversation(carolApi, alice);
    await sendDirectMessage(carolApi, withCarol, 'Could you review my expense report when you have a moment?');

    await page.setViewportSize(phoneViewport);
    await signIn(page, alice.email, alice.password);
    await openDirectMessages(page);

    await test.step('the list fills the phone; nothing else is shown', async () => {
      await expect(conversationItem(page, bob)).toBeVisible();
      await expect(unreadBadge(conversationItem(page, carol))).toHaveAccessibleName('1 unread message');
      await expect(unreadBadge(conversationItem(page, carol))).toBeInViewport({ ratio: 1 });
      await expect(sidebar(page).getByRole('button', { name: 'New conversation' })).toBeInViewport({ ratio: 1 });
      await expect(page.getByText('Select a conversation', { exact: true })).toHaveCount(0);
      await expect(page.getByRole('log')).toHaveCount(0);
      await expectNoSidewaysScroll(page);
      await saveScreen(page, 'direct-messages-phone-list');

      await sidebar(page).getByRole('button', { name: 'New conversation' }).click();
      const dialog = page.getByRole('dialog', { name: 'Start New Conversation' });
      await expect(dialog.getByRole('searchbox', { name: 'Search users...' })).toBeInViewport();
      await saveScreen(page, 'direct-messages-phone-new-conversation');
      await page.keyboard.press('Escape');
      await expect(dialog).toBeHidden();
    });

    await test.step('opening a conversation replaces the list, with the composer on screen', async () => {
      await openConversation(page, bob);
      await expect(sidebar(page)).toHaveCount(0);
      await expect(messages(page, bob)).toHaveCount(3);
      await expect(composer(page)).toBeInViewport();
      await expect(page.getByRole('button', { name: 'Send message' })).toBeInViewport();
      await page.getByRole('button', { name: 'Add emoji' }).click();
      const emojis = page.getByRole('group', { name: 'Emojis' }).getByRole('button');
      await expect(emojis).toHaveCount(50);
      // The grid scrolls inside itself; the grid as a whole stays on the narrow screen.
      await expect(page.getByRole('group', { name: 'Emojis' })).toBeInViewport({ ratio: 1 });
      await saveScreen(page, 'direct-messages-phone-emojis');
      // The emoji goes in at the caret, and the text box takes the keys again right after it.
      await page.getByRole('button', { name: 'Add emoji' }).click();
      await composer(page).fill('ab');
      await composer(page).evaluate((field: HTMLTextAreaElement) => field.setSelectionRange(1, 1));
      await page.getByRole('button', { name: 'Add emoji' }).click();
      const emoji = (await emojis.first().textContent()) ?? '';
      await emojis.first().click();
      await page.keyboard.type('c');
      await expect(composer(page)).toHaveValue(`a${emoji}cb`);
      await composer(page).fill('');
      await saveScreen(page, 'direct-messages-phone-conversation');
    });

    await test.step('the back button returns to the list', async () => {
      await page.getByRole('button', { name: 'Back to conversations' }).click();
      await expect(sidebar(page)).toBeVisible();
      await expect(page.getByRole('log')).toHaveCount(0);
      await expect(conversationItem(page, bob)).toBeVisible();
    });

    await test.step('on a desktop the list and the conversation sit side by side, without a back button', async () => {
      await page.setViewportSize(desktopViewport);
      await expect(page.getByText('Select a conversation', { exact: true })).toBeVisible();
      await openConversation(page, bob);
      await expect(messages(page, bob)).toHaveCount(3);
      await saveScreen(page, 'direct-messages-desktop');
      await openConversation(page, carol);
      await expect(sidebar(page)).toBeVisible();
      await expect(page.getByRole('button', { name: 'Back to conversations' })).toHaveCount(0);
      await expect(unreadBadge(sidebar(page))).toHaveCount(0);
      await page.locator('input[type=file]').setInputFiles([
        { name: 'expenses-march.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n%%EOF\n') },
        { name: 'receipts.zip', mimeType: 'application/zip', buffer: Buffer.from('PK') },
      ]);
      await expect(page.getByRole('list', { name: 'Selected files' }).getByRole('listitem')).toHaveCount(2);
      await page.getByRole('button', { name: 'Remove receipts.zip' }).click();
      await expect(page.getByRole('list', { name: 'Selected files' }).getByRole('listitem')).toHaveCount(1);
      await composer(page).fill('Sure, looking at it now.');
      await saveScreen(page, 'direct-messages-desktop-files');
      await page.getByRole('button', { name: 'Clear all' }).click();
      await expect(page.getByRole('list', { name: 'Selected files' })).toHaveCount(0);
    });
  });
});
