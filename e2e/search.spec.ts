import type { Locator, Page } from '@playwright/test';
import { createTask, sendDirectMessage, startConversation, unique } from './api-helpers';
import {
  demoUsers,
  desktopViewport,
  expect,
  goOffline,
  goOnline,
  phoneViewport,
  registerPerson,
  saveScreen,
  seriousAxeProblems,
  setMarker,
  marker,
  signIn,
  test,
} from './fixtures';

// Issue 18, "Search everything, offline": Ctrl+K and the header's Search button open a dialog that
// searches what the device holds (IndexedDB), grouped, with matched words marked; Enter opens the item.

const dialogOf = (page: Page): Locator => page.getByRole('dialog', { name: 'Search' });
const searchBox = (page: Page): Locator => dialogOf(page).getByRole('searchbox', { name: 'Search everything' });
const results = (page: Page): Locator => dialogOf(page).getByRole('listbox', { name: 'Search results' });
const group = (page: Page, name: string | RegExp): Locator => results(page).getByRole('group', { name });

/** Opens the dialog with the keyboard shortcut and waits until its index is ready. */
async function openWithShortcut(page: Page): Promise<void> {
  // The shell (and its shortcut) is up once its header shows.
  await expect(page.getByRole('button', { name: 'Search', exact: true })).toBeVisible();
  await page.keyboard.press('Control+k');
  await expect(searchBox(page)).toBeFocused();
  await expect(dialogOf(page).getByText(/^Find tasks, comments, team chat/)).toBeVisible();
}

/** Types a query and waits until the options answer it. */
async function search(page: Page, query: string): Promise<void> {
  await searchBox(page).fill(query);
  await expect(results(page)).toHaveAttribute('data-query', query);
}

/** The text of the active option (the one aria-activedescendant names). */
async function activeOption(page: Page): Promise<string> {
  const id = await searchBox(page).getAttribute('aria-activedescendant');
  expect(id, 'an option should be active').toBeTruthy();
  return (await page.locator(`[id="${id}"]`).textContent()) ?? '';
}

/**
 * The messages list shows `text` inside its visible part, highlighted as found; only the list scrolled to it, so
 * the page around keeps its header in place.
 */
async function expectFoundInView(page: Page, list: Locator, text: string): Promise<void> {
  const item = list.locator('li[data-message-id]', { hasText: text });
  await expect(item).toHaveAttribute('data-found', '');
  await expect(item).toBeInViewport();
  const aroundScrolled = await list.evaluate((element) => {
    let scrolled = 0;
    for (let around = element.parentElement; around; around = around.parentElement) scrolled += around.scrollTop;
    return scrolled;
  });
  expect(aroundScrolled, 'pixels the page around the list scrolled').toBe(0);
}

test.describe('search everything', () => {
  test('Ctrl+K finds a task by a title word, marks it, and arrows plus Enter open the task detail', async ({
    page,
    apiAs,
  }) => {
    const manager = await apiAs(demoUsers.manager.email);
    const bob = await apiAs(demoUsers.bob.email);
    const word = `Zephyr${unique().replace(/\W/g, '')}`;
    await createTask(manager, { title: `${word} launch checklist`, assignedTo: bob.user.id });
    await createTask(manager, {
      title: 'Printer toner order',
      description: `Ask about the ${word} discount`,
      assignedTo: bob.user.id,
    });

    await signIn(page, demoUsers.manager.email);
    await openWithShortcut(page);
    await search(page, word.slice(0, -2).toLowerCase());

    const tasks = group(page, /^Tasks/);
    await expect(tasks.getByRole('option')).toHaveCount(2);
    await expect(tasks.locator('mark', { hasText: word })).toHaveCount(2);
    // The title match ranks first and is active; the arrows move to the description match and back.
    expect(await activeOption(page)).toContain(`${word} launch checklist`);
    await page.keyboard.press('ArrowDown');
    expect(await activeOption(page)).toContain('Printer toner order');
    await expect(tasks.getByRole('option', { name: /Printer toner order/ })).toHaveAttribute('aria-selected', 'true');
    await page.keyboard.press('ArrowUp');
    expect(await activeOption(page)).toContain(`${word} launch checklist`);
    await saveScreen(page, 'search-1280-tasks');

    await page.keyboard.press('Enter');
    await expect(dialogOf(page)).toHaveCount(0);
    await expect(page).toHaveURL(/\/tasks\?task=/);
    await expect(page.getByRole('dialog', { name: `${word} launch checklist` })).toBeVisible();
  });

  test('a person’s name finds the tasks assigned to them and those they created, and a rename follows at once', async ({
    page,
    apiAs,
  }) => {
    const manager = await apiAs(demoUsers.manager.email);
    const word = `Carol${unique().replace(/\W/g, '').slice(-8)}`;
    const carol = await registerPerson(`Carol ${word}`);
    const carolApi = await apiAs(carol.email, carol.password);
    const title = `Vendor contracts ${unique()}`;
    await createTask(manager, { title, assignedTo: carol.id });

    await signIn(page, demoUsers.manager.email);
    await openWithShortcut(page);
    await search(page, word.toLowerCase());
    const option = group(page, /^Tasks/).getByRole('option');
    await expect(option).toHaveCount(1);
    await expect(option).toContainText(title);
    await expect(option).toContainText(`Assigned to ${carol.name}`);
    await expect(option.locator('mark')).toHaveText(word);
    // Every word still has to match, across the title and the names.
    await search(page, `vendor ${word.toLowerCase()}`);
    await expect(group(page, /^Tasks/).getByRole('option')).toHaveCount(1);
    await saveScreen(page, 'search-1280-assignee');

    // Carol changes her name: the task is found by the new one, without a reload.
    const renamed = `Caroline ${word}x`;
    const changed = await carolApi.put('/api/auth/updatedetails', { name: renamed, email: carol.email });
    expect(changed.status).toBe(200);
    await expect(async () => {
      await search(page, `${word.toLowerCase()}x`);
      await expect(group(page, /^Tasks/).getByRole('option')).toContainText(`Assigned to ${renamed}`, {
        timeout: 500,
      });
    }).toPass({ timeout: 10_000 });
  });

  test('Ctrl+K opens search from the moment the signed-in header shows', async ({ page }) => {
    // A press in the same moment the header's Search button appears: in the first task after the render that
    // shows it (the signed-in shell renders outside any event of the user's, once the session is restored).
    await page.addInitScript(() => {
      new MutationObserver((_, observer) => {
        if (!document.querySelector('[data-search-button]')) return;
        observer.disconnect();
        const press = { key: 'k', code: 'KeyK', ctrlKey: true, bubbles: true, cancelable: true };
        (document.activeElement ?? document.body).dispatchEvent(new KeyboardEvent('keydown', press));
      }).observe(document, { childList: true, subtree: true });
    });
    await signIn(page, demoUsers.alice.email);
    await expect(searchBox(page)).toBeFocused();
  });

  test('a team chat message opens Team Chat scrolled to it, even far back in the history', async ({ page, apiAs }) => {
    const alice = await apiAs(demoUsers.alice.email);
    const word = `Quokka${unique().replace(/\W/g, '')}`;
    const answer = await alice.post('/api/messages', { text: `The ${word} report is ready` });
    expect(answer.status).toBe(201);
    // Newer messages push it out of the chat's first window of 100.
    for (let at = 0; at < 110; at++) {
      const filler = await alice.post('/api/messages', { text: `filler ${at}` });
      expect(filler.status).toBe(201);
    }

    await signIn(page, demoUsers.bob.email);
    await openWithShortcut(page);
    await search(page, word);
    const option = group(page, /^Team Chat/).getByRole('option');
    await expect(option).toHaveCount(1);
    await expect(option.locator('mark')).toHaveText(word);
    await page.keyboard.press('Enter');

    await expect(page).toHaveURL(/\/chat$/);
    await expectFoundInView(page, page.getByRole('log', { name: 'Team chat messages' }), word);
  });

  test('a direct message opens the conversation at it, and a person opens a direct message with them', async ({
    page,
    apiAs,
  }) => {
    const stranger = await registerPerson('Searchable Person');
    const alice = await apiAs(demoUsers.alice.email);
    const carol = await apiAs(demoUsers.carol.email);
    const word = `Wombat${unique().replace(/\W/g, '')}`;
    const conversationId = await startConversation(alice, carol.user);
    await sendDirectMessage(alice, conversationId, `Did you see the ${word} numbers?`);

    await signIn(page, demoUsers.carol.email);
    await openWithShortcut(page);
    await search(page, word);
    const direct = group(page, /^Direct Messages/).getByRole('option');
    await expect(direct).toHaveCount(1);
    await expect(direct).toContainText(demoUsers.alice.name);
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { level: 2, name: demoUsers.alice.name })).toBeVisible();
    await expectFoundInView(page, page.getByRole('log', { name: `Messages with ${demoUsers.alice.name}` }), word);

    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await search(page, stranger.name.split(' ').at(-1) ?? '');
    const person = group(page, /^People/).getByRole('option');
    await expect(person).toHaveCount(1);
    // Marked in the name and in the email address.
    await expect(person.locator('mark')).toHaveText([stranger.name.split(' ').at(-1) ?? '', /.+/]);
    await person.click();
    await expect(page.getByRole('heading', { level: 2, name: stranger.name })).toBeVisible();
    await expect(page.getByText(`Say hello to ${stranger.name}.`)).toBeVisible();
  });

  test('works offline, finds what was written offline, and shows a change from another device without a reload', async ({
    page,
    context,
    apiAs,
  }) => {
    const manager = await apiAs(demoUsers.manager.email);
    const bob = await apiAs(demoUsers.bob.email);
    const word = `Narwhal${unique().replace(/\W/g, '')}`;
    await createTask(manager, { title: `${word} budget`, assignedTo: bob.user.id });

    await signIn(page, demoUsers.bob.email);
    await page.goto('/tasks');
    await expect(page.getByRole('heading', { name: `${word} budget` })).toBeVisible();
    await setMarker(page);
    await page.getByRole('link', { name: 'Chat' }).click();
    await expect(page.getByRole('log', { name: 'Team chat messages' })).toBeVisible();
    await goOffline(context);
    await page.getByRole('combobox', { name: 'Type your message...' }).fill(`Offline ${word} note`);
    await page.getByRole('button', { name: 'Send message' }).click();

    await openWithShortcut(page);
    await search(page, word);
    await expect(group(page, /^Tasks/).getByRole('option')).toHaveCount(1);
    await expect(group(page, /^Team Chat/).getByRole('option')).toContainText(`Offline ${word} note`);
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/tasks\?task=/);
    await expect(page.getByRole('dialog', { name: `${word} budget` })).toBeVisible();
    await page.keyboard.press('Escape');

    // Back online, Alice writes on her device: the open dialog lists it without a reload.
    await goOnline(context);
    await openWithShortcut(page);
    await search(page, word);
    const alice = await apiAs(demoUsers.alice.email);
    expect((await alice.post('/api/messages', { text: `From Alice: ${word} approved` })).status).toBe(201);
    await expect(group(page, /^Team Chat/).getByRole('option', { name: /From Alice/ })).toBeVisible();
    await expect(dialogOf(page).getByRole('status')).toContainText('3 results on this device.');
    expect(await marker(page)).toBe('no reload');

    await searchBox(page).fill(`${word}zzzz`);
    await expect(dialogOf(page).getByRole('status')).toHaveText(
      `No results for “${word}zzzz” on this device. Nothing older on the server.`,
    );
    await expect(results(page)).toBeHidden();
  });
});

for (const { name, viewport } of [
  { name: '1280', viewport: desktopViewport },
  { name: '375', viewport: phoneViewport },
]) {
  test.describe(`the search dialog at ${name} px`, () => {
    test.use({ viewport });

    test('opens from the header button, closes with Escape back to it, and axe finds nothing serious', async ({
      page,
    }) => {
      await signIn(page, demoUsers.manager.email);
      // The dashboard has loaded: the shell is settled and the button is the one that stays.
      await expect(page.getByRole('heading', { level: 1, name: /Maya Manager/ })).toBeVisible();
      const button = page.getByRole('button', { name: 'Search', exact: true });
      await button.click();
      await expect(searchBox(page)).toBeFocused();
      await expect(dialogOf(page).getByText(/^Find tasks, comments, team chat/)).toBeVisible();
      await saveScreen(page, `search-${name}-hint`);
      await search(page, 'al');
      await expect(results(page).getByRole('option').first()).toBeVisible();
      await saveScreen(page, `search-${name}-results`);

      const serious = await seriousAxeProblems(page, '[role="dialog"]');
      expect(serious, serious.join('\n')).toEqual([]);

      await page.keyboard.press('Escape');
      await expect(dialogOf(page)).toHaveCount(0);
      await expect(button).toBeFocused();
    });

    test('finds through the server a message the device does not hold, and opens it', async ({ page, apiAs }) => {
      const alice = await apiAs(demoUsers.alice.email);
      const word = `Pangolin${unique().replace(/\W/g, '')}`;
      const sent = await alice.post('/api/messages', { text: `The ${word} minutes from last spring` });
      expect(sent.status).toBe(201);
      const messageId = (sent.body as { message: { id: string } }).message.id;

      await signIn(page, demoUsers.bob.email);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      // Until devices hold a window of the history (issue 46's window), every message reaches the device: this one
      // is taken out of Bob's IndexedDB, as a message older than the window would never have come.
      await dropFromDevice(page, 'chatMessages', messageId);

      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await expect(dialogOf(page).getByText(/^Find tasks, comments, team chat/)).toBeVisible();
      await searchBox(page).fill(word.toLowerCase());
      const older = group(page, /^Team Chat Older history, from the server$/);
      await expect(older.getByRole('option')).toHaveCount(1);
      await expect(older.getByRole('option')).toContainText(demoUsers.alice.name);
      await expect(older.locator('mark')).toHaveText(word);
      await expect(results(page)).toHaveAttribute('data-server-query', word.toLowerCase());
      await expect(dialogOf(page).getByRole('status')).toHaveText(
        `No results for “${word.toLowerCase()}” on this device. 1 more result in older history.`,
      );
      await expect(results(page).getByText('Older history, from the server')).toBeVisible();
      await saveScreen(page, `search-${name}-server`);
      const serious = await seriousAxeProblems(page, '[role="dialog"]');
      expect(serious, serious.join('\n')).toEqual([]);

      // The arrows reach it (the only option) and Enter opens Team Chat at it.
      expect(await activeOption(page)).toContain(word);
      await page.keyboard.press('Enter');
      await expect(dialogOf(page)).toHaveCount(0);
      await expect(page).toHaveURL(new RegExp(`/chat(\\?message=${messageId})?$`));
      await expect(page.getByRole('log', { name: 'Team chat messages' })).toBeVisible();
    });

    test('offline, and with the server out of reach, the dialog says older results need it', async ({
      page,
      context,
    }) => {
      await signIn(page, demoUsers.alice.email);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      // The server cannot be reached while the browser is online: its answers never come.
      await page.route('**/api/search?*', (route) => route.abort('connectionrefused'));
      await openWithShortcut(page);
      await searchBox(page).fill('budget');
      await expect(dialogOf(page).getByRole('status')).toContainText(
        'Older results could not be loaded: the server cannot be reached.',
      );

      await page.keyboard.press('Escape');
      await goOffline(context);
      await openWithShortcut(page);
      await expect(dialogOf(page).getByRole('status')).toContainText('Older results need a connection.');
      await searchBox(page).fill('budget');
      await expect(results(page)).toHaveAttribute('data-query', 'budget');
      await expect(dialogOf(page).getByRole('status')).toHaveText(
        /on this device\. Older results need a connection\.$/,
      );
      await saveScreen(page, `search-${name}-offline`);
      const serious = await seriousAxeProblems(page, '[role="dialog"]');
      expect(serious, serious.join('\n')).toEqual([]);
    });
  });
}

/** Takes a row out of the signed-in person's IndexedDB once it is there (pwa/src/data/db.ts names the database). */
async function dropFromDevice(page: Page, store: string, id: string): Promise<void> {
  const run = (remove: boolean) =>
    page.evaluate(
      async ({ store, id, remove }) => {
        const user = JSON.parse(localStorage.getItem('user') ?? 'null') as { id: string } | null;
        if (!user) return false;
        const db = await new Promise<IDBDatabase>((resolve, reject) => {
          const open = indexedDB.open(`office-workspace-${user.id}`);
          open.onsuccess = () => resolve(open.result);
          open.onerror = () => reject(open.error ?? new Error('open failed'));
        });
        try {
          if (!db.objectStoreNames.contains(store)) return false;
          const tx = db.transaction(store, 'readwrite');
          const found = await new Promise<boolean>((resolve) => {
            const get = tx.objectStore(store).get(id);
            get.onsuccess = () => resolve(get.result !== undefined);
          });
          if (found && remove) tx.objectStore(store).delete(id);
          await new Promise<void>((resolve, reject) => {
            tx.oncomplete = () => resolve();
            tx.onerror = () => reject(tx.error ?? new Error('transaction failed'));
          });
          return found;
        } finally {
          db.close();
        }
      },
      { store, id, remove },
    );
  await expect.poll(() => run(false), { timeout: 15_000 }).toBe(true);
  await run(true);
  expect(await run(false)).toBe(false);
}
