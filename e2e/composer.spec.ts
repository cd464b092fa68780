import { randomUUID } from 'node:crypto';
import type { BrowserContext, Locator, Page } from '@playwright/test';
import {
  demoUsers,
  expect,
  expectServiceWorkerInControl,
  fillDeviceStorage,
  goOffline,
  goOnline,
  phoneViewport,
  registerPerson,
  saveScreen,
  signIn,
  test,
  type ApiClient,
  type RegisteredPerson,
} from './fixtures';
import { createTask, serverTasks, startConversation, unique } from './api-helpers';

// The composers never lose what a person typed (issue 21): a fast typist's messages, typed back to
// back with Enter between them and no pause, all arrive once and in order, online and offline, in
// Team Chat, in a direct conversation and in a task's comments; and each conversation's unsent
// draft lives in IndexedDB, so it survives switching conversations, a reload and a closed window.
//
// The server is shared with every other spec file: team chat texts carry a unique tag, and the
// direct conversations are between people each test registers.

/** How many messages each burst types. */
const burst = 5;

const chatComposer = (page: Page): Locator => page.getByRole('combobox', { name: 'Type your message...' });
const directComposer = (page: Page): Locator => page.getByRole('combobox', { name: 'Type a message...' });
const chatLog = (page: Page): Locator => page.getByRole('log', { name: 'Team chat messages' });
const directLog = (page: Page, other: RegisteredPerson): Locator =>
  page.getByRole('log', { name: `Messages with ${other.name}` });
/** The texts of the messages in `log` that carry `tag`, in the order shown. */
const tagged = (log: Locator, tag: string): Locator => log.locator('li[data-message-id] p').filter({ hasText: tag });
const syncStatus = (page: Page): Locator => page.getByRole('status', { name: 'Sync status' });
const sidebar = (page: Page): Locator => page.getByRole('complementary', { name: 'Conversations' });

/**
 * Texts of one burst: numbered, so their order shows, and tagged, so no other test's count. Short:
 * every character is a key press, and a shared two-core machine makes each one slow.
 */
const burstTexts = (label: string, tag: string): string[] =>
  Array.from({ length: burst }, (_, index) => `${label} ${index + 1} ${tag}`);
/** A tag short enough to type: random, so no other test's texts carry it. */
const shortTag = (): string => randomUUID().slice(0, 8);

/**
 * Types the texts into the focused composer as a fast typist does: each text, Enter, the next at once.
 * Nothing waits for the screen in between.
 */
async function typeBackToBack(page: Page, field: Locator, texts: readonly string[], submit = 'Enter'): Promise<void> {
  await field.focus();
  for (const text of texts) {
    await page.keyboard.type(text);
    await page.keyboard.press(submit);
  }
}

async function serverChatTexts(api: ApiClient, tag: string): Promise<string[]> {
  const answer = await api.get<{ messages: { text: string }[] }>('/api/messages');
  expect(answer.status, 'GET /api/messages').toBe(200);
  return answer.body.messages.map((message) => message.text).filter((text) => text.endsWith(tag));
}

async function serverDirectTexts(api: ApiClient, conversationId: string): Promise<string[]> {
  const answer = await api.get<{ messages: { text: string }[] }>(
    `/api/direct-messages/conversations/${conversationId}/messages`,
  );
  expect(answer.status, 'GET the conversation’s messages').toBe(200);
  return answer.body.messages.map((message) => message.text);
}

/** The draft this device keeps under `key` in the signed-in user's IndexedDB (null when none). */
async function storedDraft(page: Page, key: string): Promise<string | null> {
  return page.evaluate(async (draftKey) => {
    const user = JSON.parse(localStorage.getItem('user') ?? 'null') as { id: string } | null;
    if (!user) return null;
    const request = indexedDB.open(`office-workspace-${user.id}`);
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('IndexedDB did not open'));
    });
    try {
      if (!db.objectStoreNames.contains('drafts')) return null;
      const read = db.transaction('drafts').objectStore('drafts').get(draftKey);
      const row = await new Promise<{ text: string } | undefined>((resolve, reject) => {
        read.onsuccess = () => resolve(read.result as { text: string } | undefined);
        read.onerror = () => reject(read.error ?? new Error('The draft could not be read'));
      });
      return row?.text ?? null;
    } finally {
      db.close();
    }
  }, key);
}

async function openChat(page: Page): Promise<void> {
  await page.goto('/chat');
  await expect(page.getByRole('heading', { name: 'Team Chat', level: 1 })).toBeVisible();
  await expect(chatLog(page).locator('li[data-message-id]').first()).toBeVisible();
}

async function openConversation(page: Page, other: RegisteredPerson): Promise<void> {
  await sidebar(page).getByRole('listitem').filter({ hasText: other.name }).getByRole('button').click();
  await expect(page.getByRole('region', { name: other.name }).getByRole('heading', { name: other.name })).toBeVisible();
}

/**
 * Team Chat narrowed to one test's messages with its own "Search messages..." box, after a reload: other spec files
 * post to the same team chat, and a burst of theirs (long-lists, search: 110 and more) can push this test's older
 * messages out of a new page's first window of 100.
 */
async function narrowChatTo(page: Page, tag: string): Promise<void> {
  await page.getByRole('searchbox', { name: /^Search messages/ }).fill(tag);
}

/** Goes offline, waits for the header to say so. */
async function offline(context: BrowserContext, page: Page): Promise<void> {
  await goOffline(context);
  await expect(syncStatus(page)).toContainText('Offline');
}

test.describe('messages typed back to back', () => {
  test('in Team Chat, five typed online and five offline all arrive once, in order', async ({
    page,
    context,
    apiAs,
  }) => {
    const api = await apiAs(demoUsers.alice.email);
    const tag = shortTag();
    const online = burstTexts('On', tag);
    const queued = burstTexts('Off', tag);
    const everything = [...online, ...queued];
    const mine = (): Locator => tagged(chatLog(page), tag);

    await signIn(page, demoUsers.alice.email);
    await expectServiceWorkerInControl(page);
    await openChat(page);

    await test.step('online: each Enter sends, the box is empty for the next one at once', async () => {
      await typeBackToBack(page, chatComposer(page), online);
      await expect(chatComposer(page)).toHaveValue('');
      await expect(mine()).toHaveText(online);
      await expect.poll(() => serverChatTexts(api, tag)).toEqual(online);
    });

    await test.step('offline: five more queue in order and survive a reload', async () => {
      await offline(context, page);
      await typeBackToBack(page, chatComposer(page), queued);
      await expect(chatComposer(page)).toHaveValue('');
      await expect(mine()).toHaveText(everything);
      await expect(syncStatus(page)).toContainText(`Offline · ${burst} unsynced changes`, { useInnerText: true });
      await page.reload();
      await narrowChatTo(page, tag);
      await expect(mine()).toHaveText(everything);
      expect(await serverChatTexts(api, tag), 'nothing reaches the server while offline').toEqual(online);
    });

    await test.step('back online, the server holds each once, in the order typed', async () => {
      await goOnline(context);
      await expect.poll(() => serverChatTexts(api, tag)).toEqual(everything);
      await page.reload();
      await narrowChatTo(page, tag);
      await expect(mine()).toHaveText(everything);
    });
  });

  test('in a direct conversation, five typed online and five offline all arrive once, in order', async ({
    page,
    context,
    apiAs,
  }) => {
    const alice = await registerPerson('Alice Burst');
    const bob = await registerPerson('Bob Burst');
    const aliceApi = await apiAs(alice.email, alice.password);
    const bobApi = await apiAs(bob.email, bob.password);
    const conversationId = await startConversation(aliceApi, bob);
    const tag = shortTag();
    const online = burstTexts('On', tag);
    const queued = burstTexts('Off', tag);
    const everything = [...online, ...queued];
    const mine = (): Locator => tagged(directLog(page, bob), tag);

    await signIn(page, alice.email, alice.password);
    await expectServiceWorkerInControl(page);
    await page.goto('/direct-messages');
    await openConversation(page, bob);

    await test.step('online', async () => {
      await typeBackToBack(page, directComposer(page), online);
      await expect(directComposer(page)).toHaveValue('');
      await expect(mine()).toHaveText(online);
      await expect.poll(() => serverDirectTexts(bobApi, conversationId)).toEqual(online);
    });

    await test.step('offline, then a reload', async () => {
      await offline(context, page);
      await typeBackToBack(page, directComposer(page), queued);
      await expect(directComposer(page)).toHaveValue('');
      await expect(mine()).toHaveText(everything);
      await page.reload();
      await openConversation(page, bob);
      await expect(mine()).toHaveText(everything);
    });

    await test.step('back online, Bob’s server copy holds each once, in order', async () => {
      await goOnline(context);
      await expect.poll(() => serverDirectTexts(bobApi, conversationId)).toEqual(everything);
    });
  });

  test('in a task’s comments, five typed offline with Ctrl+Enter all arrive once, in order', async ({
    page,
    context,
    apiAs,
  }) => {
    const manager = await apiAs(demoUsers.manager.email);
    const alice = await apiAs(demoUsers.alice.email);
    const title = `Comments ${shortTag()}`;
    const task = await createTask(manager, { title, assignedTo: alice.user.id });
    const comments = burstTexts('Comment', title);

    await signIn(page, demoUsers.manager.email);
    await page.goto('/tasks');
    const card = page
      .getByRole('list', { name: 'Tasks', exact: true })
      .getByRole('listitem')
      .filter({ hasText: title });
    await card.getByRole('button', { name: title, exact: true }).click();
    const detail = page.getByRole('dialog', { name: title });
    const field = detail.getByLabel('Add a comment');

    await offline(context, page);
    await typeBackToBack(page, field, comments, 'Control+Enter');
    await expect(field).toHaveValue('');
    await expect(detail.getByRole('listitem').filter({ hasText: title }).locator('p')).toHaveText(comments);
    await goOnline(context);
    await expect
      .poll(async () => (await serverTasks(manager)).find((entry) => entry.id === task.id)?.comments.map((c) => c.text))
      .toEqual(comments);
  });
});

test.describe('a send that cannot be stored', () => {
  test('puts the text back with the reason; sent again, it arrives once', async ({ page, apiAs }) => {
    const api = await apiAs(demoUsers.alice.email);
    const tag = unique();
    const text = `Kept through a full disk ${tag}`;

    await signIn(page, demoUsers.alice.email);
    await openChat(page);
    // The device's storage is full: IndexedDB refuses the outbox entry, so the local write fails.
    const freeStorage = await fillDeviceStorage(page);
    await typeBackToBack(page, chatComposer(page), [text]);
    await expect(page.getByRole('alert')).toHaveText(
      'This device is out of storage space; free some space so your changes can be saved.',
    );
    await expect(chatComposer(page)).toHaveValue(text);
    await expect(tagged(chatLog(page), tag)).toHaveCount(0);

    await freeStorage();
    await chatComposer(page).press('Enter');
    await expect(chatComposer(page)).toHaveValue('');
    await expect(page.getByRole('alert')).toHaveCount(0);
    await expect(tagged(chatLog(page), tag)).toHaveText([text]);
    await expect.poll(() => serverChatTexts(api, tag)).toEqual([text]);
  });
});

test.describe('drafts', () => {
  test('each conversation keeps its own draft across switching, a reload and a new window', async ({
    page,
    context,
    apiAs,
  }) => {
    const alice = await registerPerson('Alice Draft');
    const bob = await registerPerson('Bob Draft');
    const carol = await registerPerson('Carol Draft');
    const aliceApi = await apiAs(alice.email, alice.password);
    const bobConversation = await startConversation(aliceApi, bob);
    const carolConversation = await startConversation(aliceApi, carol);
    const tag = unique();
    const chatDraft = `Half a thought for the team ${tag}`;
    const bobDraft = `Bob, about tomorrow ${tag}`;
    const carolDraft = `Carol, could you ${tag}`;

    await signIn(page, alice.email, alice.password);

    await test.step('a draft in each conversation stays there while another is open', async () => {
      await openChat(page);
      await chatComposer(page).fill(chatDraft);
      // A full page load at once, before the pause in typing that saves a draft: the page going away saves it.
      await page.goto('/direct-messages');
      await openConversation(page, bob);
      await expect(directComposer(page)).toHaveValue('');
      await directComposer(page).fill(bobDraft);
      await openConversation(page, carol);
      await expect(directComposer(page)).toHaveValue('');
      await directComposer(page).fill(carolDraft);
      await openConversation(page, bob);
      await expect(directComposer(page)).toHaveValue(bobDraft);
      await openConversation(page, carol);
      await expect(directComposer(page)).toHaveValue(carolDraft);
      await page
        .getByRole('navigation', { name: 'Main navigation' })
        .getByRole('link', { name: 'Chat', exact: true })
        .click();
      await expect(chatComposer(page)).toHaveValue(chatDraft);
    });

    await test.step('a reload keeps them', async () => {
      await page.reload();
      await expect(chatComposer(page)).toHaveValue(chatDraft);
      await page.goto('/direct-messages');
      await openConversation(page, bob);
      await expect(directComposer(page)).toHaveValue(bobDraft);
      await saveScreen(page, 'composer-draft-restored-desktop');
    });

    await test.step('sending clears the draft; a sent message never comes back as one', async () => {
      await directComposer(page).press('Enter');
      await expect(directComposer(page)).toHaveValue('');
      await expect(tagged(directLog(page, bob), tag)).toHaveText([bobDraft]);
      await expect.poll(() => storedDraft(page, `dm:${bobConversation}`)).toBeNull();
      await page.reload();
      await openConversation(page, bob);
      await expect(tagged(directLog(page, bob), tag)).toHaveCount(1);
      await expect(directComposer(page)).toHaveValue('');
    });

    await test.step('closing the window and opening a new one (sign in again) keeps the others', async () => {
      await openConversation(page, carol);
      const amended = `${carolDraft} send the slides?`;
      await directComposer(page).fill(amended);
      await expect.poll(() => storedDraft(page, `dm:${carolConversation}`)).toBe(amended);
      await page.close();

      const next = await context.newPage();
      await next.setViewportSize(phoneViewport);
      await signIn(next, alice.email, alice.password);
      await openChat(next);
      await expect(chatComposer(next)).toHaveValue(chatDraft);
      await saveScreen(next, 'composer-draft-restored-chat-phone');
      await next.goto('/direct-messages');
      await openConversation(next, carol);
      await expect(directComposer(next)).toHaveValue(amended);
      await saveScreen(next, 'composer-draft-restored-phone');
    });
  });

  test('logging out forgets the drafts, also one a page stashed as it went away', async ({ page }) => {
    const person = await registerPerson('Dana Draft');
    const draft = `Not for the next person ${unique()}`;
    await signIn(page, person.email, person.password);
    await openChat(page);
    // IndexedDB does not get the draft in time (here: it refuses it), so the page going away stashes it.
    await page.evaluate(() => {
      const descriptor = Object.getOwnPropertyDescriptor(IDBObjectStore.prototype, 'put') as PropertyDescriptor;
      const put = descriptor.value as IDBObjectStore['put'];
      IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
        if (this.name === 'drafts') throw new DOMException('Not now', 'UnknownError');
        return put.apply(this, args);
      };
    });
    await chatComposer(page).fill(draft);
    await page.goto('/dashboard');
    const stash = (): Promise<string | null> =>
      page.evaluate((id) => localStorage.getItem(`unsaved-drafts:${id}`), person.id);
    expect(await stash()).toContain(draft);

    await page.getByRole('complementary', { name: 'Sidebar' }).getByRole('button', { name: 'Logout' }).click();
    await expect(page).toHaveURL(/\/login$/);
    expect(await stash()).toBeNull();
    await signIn(page, person.email, person.password);
    await openChat(page);
    await expect(chatComposer(page)).toHaveValue('');
  });

  test('a task’s unsent comment survives closing its detail and a reload', async ({ page, apiAs }) => {
    const manager = await apiAs(demoUsers.manager.email);
    const alice = await apiAs(demoUsers.alice.email);
    const title = `Draft comment ${unique()}`;
    await createTask(manager, { title, assignedTo: alice.user.id });
    const draft = `Not finished yet, but ${title}`;

    await signIn(page, demoUsers.manager.email);
    await page.goto('/tasks');
    const open = async (): Promise<Locator> => {
      await page
        .getByRole('list', { name: 'Tasks', exact: true })
        .getByRole('listitem')
        .filter({ hasText: title })
        .getByRole('button', { name: title, exact: true })
        .click();
      const detail = page.getByRole('dialog', { name: title });
      await expect(detail).toBeVisible();
      return detail;
    };
    let detail = await open();
    await detail.getByLabel('Add a comment').fill(draft);
    await detail.getByRole('button', { name: 'Close', exact: true }).last().click();
    await expect(detail).toBeHidden();
    detail = await open();
    await expect(detail.getByLabel('Add a comment')).toHaveValue(draft);
    await page.reload();
    detail = await open();
    await expect(detail.getByLabel('Add a comment')).toHaveValue(draft);
  });
});
