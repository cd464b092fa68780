import type { Locator, Page } from '@playwright/test';
import {
  expect,
  goOffline,
  goOnline,
  openDevice,
  phoneViewport,
  registerPerson,
  saveScreen,
  saveViewport,
  seriousAxeProblems,
  signIn,
  test,
  type ApiClient,
} from './fixtures';
import { serverNotifications, startConversation, unique } from './api-helpers';

// @mentions (issue 18): typing @ in the team chat or direct-message composer offers people from the device's
// directory (a combobox with a listbox, chosen by keyboard); a mention shows marked in the message; the server
// reads it from the text and the mentioned person's bell lists it live, under its Mentions filter too. Offline,
// a mention waits in the outbox like any message and is noticed once it reaches the server.

const chatComposer = (page: Page): Locator => page.getByRole('combobox', { name: 'Type your message...' });
const directComposer = (page: Page): Locator => page.getByRole('combobox', { name: 'Type a message...' });
const suggestions = (page: Page): Locator => page.getByRole('listbox', { name: 'People to mention' });
/** The names the list offers, in order (each option is named by the person's name alone). */
const offered = (page: Page): Locator => suggestions(page).getByRole('option').locator('[data-name]');
const chatMessage = (page: Page, text: string): Locator =>
  page.getByRole('log', { name: 'Team chat messages' }).locator('li[data-message-id]').filter({ hasText: text });
const bell = (page: Page): Locator => page.getByRole('button', { name: /^Notifications/ });
const panel = (page: Page): Locator => page.getByRole('dialog', { name: 'Notifications' });
const mentionsToggle = (page: Page): Locator => panel(page).getByRole('button', { name: 'Mentions' });
const mentionItems = (page: Page): Locator => panel(page).getByRole('list', { name: 'Mentions' }).getByRole('button');

/** The mention notifications the server holds for `api`'s person. */
const serverMentions = async (api: ApiClient) =>
  (await serverNotifications(api)).notifications.filter((notification) => notification.type === 'mention');

test('in team chat, @ offers people by keyboard; the mention is marked, reaches its person live and waits offline', async ({
  page,
  context,
  browser,
  apiAs,
}) => {
  // Two devices and four steps, offline included, on a machine shared with other workers.
  test.slow();
  // A word only these two people's names hold, so the list offers exactly them.
  const word = `Qz${unique().replace(/\W/g, '').slice(-6)}`;
  const writer = await registerPerson('Wren Writer');
  const milo = await registerPerson(`Milo ${word}`);
  const mina = await registerPerson(`Mina ${word}`);
  const minaApi = await apiAs(mina.email, mina.password);
  const [minaContext, minaPage] = await openDevice(browser, mina);

  await signIn(page, writer.email, writer.password);
  await page.goto('/chat');
  await expect(chatComposer(page)).toBeVisible();
  await expect(page.getByRole('log', { name: 'Team chat messages' })).toBeVisible();
  const tag = unique();
  const sent = `please check the budget ${tag}`;

  await test.step('typing @ and part of a name opens the list; arrows move, Enter inserts the full name', async () => {
    await chatComposer(page).pressSequentially(`Hi @${word.toLowerCase()}`);
    await expect(chatComposer(page)).toHaveAttribute('aria-expanded', 'true');
    await expect(offered(page)).toHaveText([milo.name, mina.name]);
    const first = suggestions(page).getByRole('option', { name: milo.name });
    await expect(first).toHaveAttribute('aria-selected', 'true');
    await expect(chatComposer(page)).toHaveAttribute('aria-activedescendant', (await first.getAttribute('id')) ?? '');
    expect(await seriousAxeProblems(page, '[role="listbox"]')).toEqual([]);
    await saveScreen(page, 'mentions-chat-suggestions-1280');

    await chatComposer(page).press('ArrowDown');
    await expect(suggestions(page).getByRole('option', { name: mina.name })).toHaveAttribute('aria-selected', 'true');
    await chatComposer(page).press('ArrowDown');
    await expect(first).toHaveAttribute('aria-selected', 'true');
    await chatComposer(page).press('ArrowUp');
    await chatComposer(page).press('Enter');
    await expect(suggestions(page)).toHaveCount(0);
    await expect(chatComposer(page)).toHaveAttribute('aria-expanded', 'false');
    await expect(chatComposer(page)).toHaveValue(`Hi @${mina.name} `);

    // Escape closes the list and keeps the text; typing on after the name does not reopen it.
    await chatComposer(page).pressSequentially('and @mi');
    await expect(suggestions(page)).toBeVisible();
    await chatComposer(page).press('Escape');
    await expect(suggestions(page)).toHaveCount(0);
    for (let i = 0; i < 'and @mi'.length; i++) await chatComposer(page).press('Backspace');
    await chatComposer(page).pressSequentially(sent);
    await expect(chatComposer(page)).toHaveValue(`Hi @${mina.name} ${sent}`);
    await chatComposer(page).press('Enter');
    await expect(chatComposer(page)).toHaveValue('');
  });

  await test.step('the mention is marked in the message', async () => {
    const mark = chatMessage(page, sent).locator('mark[data-mention]');
    await expect(mark).toHaveText(`@${mina.name}`);
    await expect(mark).toHaveAttribute('data-mention', '');
    await saveScreen(page, 'mentions-chat-message-1280');
  });

  await test.step("Mina's bell lists it live; the Mentions filter shows it alone; it opens the message", async () => {
    await expect
      .poll(async () => (await serverMentions(minaApi)).map((n) => n.title))
      .toEqual([`${writer.name} mentioned you in Team Chat`]);
    await bell(minaPage).click();
    await expect(panel(minaPage).getByRole('list', { name: 'Notification list' })).toContainText(
      `${writer.name} mentioned you in Team Chat`,
    );
    await mentionsToggle(minaPage).click();
    await expect(mentionsToggle(minaPage)).toHaveAttribute('aria-pressed', 'true');
    await expect(mentionItems(minaPage)).toHaveCount(1);
    await expect(mentionItems(minaPage)).toContainText(`${writer.name} mentioned you in Team Chat`);
    await expect(mentionItems(minaPage)).toContainText(`Hi @${mina.name}`);
    expect(await seriousAxeProblems(minaPage, '[role="dialog"]')).toEqual([]);
    await saveViewport(minaPage, 'mentions-bell-filter-1280');

    await mentionItems(minaPage).click();
    await expect(minaPage).toHaveURL(/\/chat/);
    const mark = chatMessage(minaPage, sent).locator('mark[data-mention]');
    await expect(mark).toHaveText(`@${mina.name}`);
    // Her own mention stands out.
    await expect(mark).toHaveAttribute('data-mention', 'self');
  });

  await test.step('offline, a mention waits like any message and is noticed once it arrives', async () => {
    const offlineText = `written on the train ${tag}`;
    await goOffline(context);
    await chatComposer(page).pressSequentially(`@mina ${word.toLowerCase()}`);
    await expect(offered(page)).toHaveText([mina.name]);
    await chatComposer(page).press('Tab');
    await chatComposer(page).pressSequentially(offlineText);
    await chatComposer(page).press('Enter');
    await expect(chatMessage(page, offlineText).getByRole('img', { name: 'Pending sync' })).toBeVisible();
    await expect(chatMessage(page, offlineText).locator('mark[data-mention]')).toHaveText(`@${mina.name}`);
    expect(await serverMentions(minaApi), 'nothing reaches the server while offline').toHaveLength(1);

    await goOnline(context);
    await expect(chatMessage(page, offlineText).getByRole('img', { name: 'Pending sync' })).toHaveCount(0, {
      timeout: 15_000,
    });
    await expect.poll(async () => (await serverMentions(minaApi)).length).toBe(2);
    await bell(minaPage).click();
    await mentionsToggle(minaPage).click();
    await expect(mentionItems(minaPage)).toHaveCount(2);
    await expect(mentionItems(minaPage).first()).toContainText(offlineText.slice(0, 20));
  });

  await minaContext.close();
});

test('on a phone, a direct message mentions its other participant only', async ({ browser, apiAs }) => {
  const word = `Qy${unique().replace(/\W/g, '').slice(-6)}`;
  const writer = await registerPerson(`Dana ${word}`);
  const other = await registerPerson(`Omar ${word}`);
  const writerApi = await apiAs(writer.email, writer.password);
  const otherApi = await apiAs(other.email, other.password);
  const conversationId = await startConversation(writerApi, other);

  const [context, page] = await openDevice(browser, writer, phoneViewport);
  await page.goto(`/direct-messages?conversation=${conversationId}`);
  await expect(directComposer(page)).toBeVisible();

  // Dana's own name holds the same word, but in a conversation only its other participant is offered.
  await directComposer(page).pressSequentially(`@${word.slice(0, 4)}`);
  await expect(offered(page)).toHaveText([other.name]);
  expect(await seriousAxeProblems(page, '[role="listbox"]')).toEqual([]);
  await saveScreen(page, 'mentions-direct-suggestions-375');
  // A busy phone draws its frames late: what is typed right after picking, while a frame is still due, must stay
  // where it was typed.
  await page.evaluate(() => {
    const nextFrame = window.requestAnimationFrame.bind(window);
    window.requestAnimationFrame = (callback) => nextFrame(() => setTimeout(() => nextFrame(callback), 200));
  });
  await directComposer(page).press('Enter');
  const text = `can you look at this ${unique()}`;
  await directComposer(page).pressSequentially(text, { delay: 20 });
  await directComposer(page).press('Enter');

  const sent = page.locator('li[data-message-id]').filter({ hasText: text });
  await expect(sent.locator('mark[data-mention]')).toHaveText(`@${other.name}`);
  await expect(sent.locator('p')).toHaveText(`@${other.name} ${text}`);
  await saveScreen(page, 'mentions-direct-message-375');
  await expect
    .poll(async () => (await serverMentions(otherApi)).map((n) => n.title))
    .toEqual([`${writer.name} mentioned you in a direct message`]);
  await context.close();
});

test('a mention is its person’s one notice of the message, previewed around the mention, at 1280 and 375 px', async ({
  browser,
  apiAs,
}) => {
  // Team chat notices stay on: a chat message is a notice of every member, and the mention must replace it.
  const writer = await registerPerson('Rhea Writer');
  const reader = await registerPerson('Theo Reader');
  const writerApi = await apiAs(writer.email, writer.password);
  const tag = unique();
  // Two messages that begin alike: 50 characters from the start would show the same words for both.
  const opening = 'Notes from the quarterly planning meeting are in the shared folder now,';
  const texts = [
    `${opening} @${reader.name} owns the hiring plan ${tag}`,
    `${opening} @${reader.name} owns the travel budget ${tag}`,
  ];
  for (const text of texts) expect((await writerApi.post('/api/messages', { text })).status).toBe(201);
  const conversationId = await startConversation(writerApi, reader);
  const direct = `Before Friday, and only if you have time, @${reader.name} could you read the contract draft ${tag}`;
  const sent = await writerApi.post(`/api/direct-messages/conversations/${conversationId}/messages`, {
    text: direct,
  });
  expect(sent.status).toBe(201);

  for (const [viewport, width] of [
    [undefined, 1280],
    [phoneViewport, 375],
  ] as const) {
    const [context, page] = await openDevice(browser, reader, viewport);
    await bell(page).click();
    // The writer is new: every notice from them is about these three messages.
    const items = panel(page).getByRole('list', { name: 'Notification list' }).getByRole('button').filter({
      hasText: writer.name,
    });
    // One notice per message: the two team chat mentions and the direct one, no "New message from" beside them.
    await expect(items).toHaveCount(3);
    await expect(items.filter({ hasText: `${writer.name} mentioned you in Team Chat` })).toHaveCount(2);
    await expect(items.filter({ hasText: `${writer.name} mentioned you in a direct message` })).toHaveCount(1);
    await expect(items.filter({ hasText: 'New message from' })).toHaveCount(0);
    await expect(items.filter({ hasText: 'New Direct Message from' })).toHaveCount(0);
    // The previews show the words around the mention, so the two read apart.
    await expect(items.filter({ hasText: `@${reader.name} owns the hiring` })).toHaveCount(1);
    await expect(items.filter({ hasText: `@${reader.name} owns the travel` })).toHaveCount(1);
    await expect(items.filter({ hasText: `@${reader.name} could you read` })).toHaveCount(1);
    await expect(items.filter({ hasText: opening.slice(0, 20) })).toHaveCount(0);
    expect(await seriousAxeProblems(page, '[role="dialog"]')).toEqual([]);
    await saveViewport(page, `mentions-one-notice-${width}`);
    await context.close();
  }
});
