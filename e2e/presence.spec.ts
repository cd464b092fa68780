import { demoUsers, expect, registerPerson, signIn, test, type ApiClient } from './fixtures';
import type { Locator, Page } from '@playwright/test';

/** The number a dashboard stat card shows, read from its accessible name ("Online Now: 3"). */
async function cardValue(page: Page, label: string): Promise<number> {
  const name = await page.getByRole('group', { name: new RegExp(`^${label}: \\d+$`) }).getAttribute('aria-label');
  return Number(name?.split(': ')[1]);
}

/** Who the server counts online right now (GET /api/messages/active-users). */
async function onlineOnServer(api: ApiClient): Promise<Set<string>> {
  const answer = await api.get<{ data: { id: string; status: string }[] }>('/api/messages/active-users');
  return new Set(answer.body.data.filter((user) => user.status === 'online').map((user) => user.id));
}

test("the manager's Team Members and Online Now cards follow people live, without a reload", async ({
  page,
  browser,
  apiAs,
}) => {
  const manager = await apiAs(demoUsers.manager.email);
  await signIn(page, demoUsers.manager.email);
  const cards: Locator = page.getByRole('region', { name: 'Task overview' });
  await expect(cards.getByRole('group', { name: /^Online Now: \d+$/ })).toBeVisible();

  // A newcomer joins the directory: Team Members counts them without a reload.
  const newcomer = await registerPerson('Newcomer');
  await expect(async () => {
    const directory = await manager.get<{ users: { id: string }[] }>('/api/auth/all-users');
    expect(directory.body.users.some((user) => user.id === newcomer.id)).toBe(true);
    expect(await cardValue(page, 'Team Members')).toBe(directory.body.users.length);
  }).toPass({ timeout: 10_000 });

  // They sign in elsewhere: Online Now agrees with the server and counts them.
  const elsewhere = await browser.newContext();
  const theirPage = await elsewhere.newPage();
  await signIn(theirPage, newcomer.email, newcomer.password);
  await expect(async () => {
    const online = await onlineOnServer(manager);
    expect(online.has(newcomer.id)).toBe(true);
    expect(await cardValue(page, 'Online Now')).toBe(online.size);
  }).toPass({ timeout: 10_000 });

  // They leave: the count drops again, still without a reload.
  await elsewhere.close();
  await expect(async () => {
    const online = await onlineOnServer(manager);
    expect(online.has(newcomer.id)).toBe(false);
    expect(await cardValue(page, 'Online Now')).toBe(online.size);
  }).toPass({ timeout: 10_000 });
});
