import { conversationIdFor } from '@office/sync-protocol';
import {
  demoUsers,
  expect,
  goOffline,
  goOnline,
  phoneViewport,
  saveScreen,
  signIn,
  test,
  type ApiClient,
} from './fixtures';
import { serverConversations } from './api-helpers';

/** The directory as the server holds it (GET /api/auth/team-members). */
async function directory(api: ApiClient): Promise<{ id: string; name: string; role: string }[]> {
  const answer = await api.get<{ users: { id: string; name: string; role: string }[] }>('/api/auth/team-members');
  expect(answer.status).toBe(200);
  return answer.body.users;
}

test.describe('Team Members', () => {
  test('lists every member with initials, role badge, email and department; search and role filter narrow it', async ({
    page,
    apiAs,
  }) => {
    const api = await apiAs(demoUsers.alice.email);
    await signIn(page, demoUsers.alice.email);
    await page.getByRole('link', { name: 'Team Members' }).first().click();
    await expect(page).toHaveURL(/\/team-members$/);
    await expect(page.getByRole('heading', { name: 'Team Members', level: 1 })).toBeVisible();

    const members = await directory(api);
    const cards = page.getByRole('list', { name: 'Team members' }).getByRole('listitem');
    await expect(cards).toHaveCount(members.length);
    await expect(page.getByText(`${members.length} members`)).toBeVisible();

    const bob = cards.filter({ has: page.getByRole('heading', { name: demoUsers.bob.name }) });
    // Initials are the first letters of the first two words, as on every screen.
    await expect(bob.getByRole('img', { name: `${demoUsers.bob.name} avatar` })).toHaveText('BS');
    await expect(bob.getByText('Employee', { exact: true })).toBeVisible();
    await expect(bob.getByText(demoUsers.bob.email)).toBeVisible();
    await expect(bob.getByText('Design')).toBeVisible();
    await expect(bob.getByRole('button', { name: `Message ${demoUsers.bob.name}` })).toBeVisible();
    // One cannot message oneself.
    const self = cards.filter({ has: page.getByRole('heading', { name: demoUsers.alice.name }) });
    await expect(self.getByRole('button')).toHaveCount(0);
    await expect(self.getByText('This is you')).toBeVisible();

    await page.getByRole('searchbox', { name: 'Search by name or email...' }).fill('MANAGER@demo');
    await expect(cards).toHaveCount(1);
    await expect(cards.getByRole('heading')).toHaveText(demoUsers.manager.name);

    await page.getByRole('searchbox', { name: 'Search by name or email...' }).fill('');
    await page.getByRole('combobox', { name: 'Filter by role' }).selectOption('admin');
    await expect(cards).toHaveCount(members.filter((m) => m.role === 'admin').length);
    await expect(cards.filter({ hasText: demoUsers.admin.name })).toHaveCount(1);

    await page.getByRole('searchbox', { name: 'Search by name or email...' }).fill('nobody-by-this-name');
    await expect(cards).toHaveCount(0);
    await expect(page.getByText('Try adjusting your search or filter criteria.')).toBeVisible();
  });

  test('"Message" starts the conversation and opens it in Direct Messages with its id and the name', async ({
    page,
    apiAs,
  }) => {
    const carol = await apiAs(demoUsers.carol.email);
    const admin = await apiAs(demoUsers.admin.email);
    const expectedId = conversationIdFor(carol.user.id, admin.user.id);
    await signIn(page, demoUsers.carol.email);
    await page.goto('/team-members');
    await page.getByRole('button', { name: `Message ${demoUsers.admin.name}` }).click();

    await expect(page).toHaveURL(/\/direct-messages$/);
    const state = await page.evaluate(() => (history.state as { usr?: unknown } | null)?.usr);
    expect(state).toEqual({ activeConversationId: expectedId, recipientName: demoUsers.admin.name });
    // The conversation exists on the server, once, with both of them.
    await expect.poll(async () => (await serverConversations(carol)).filter((c) => c.id === expectedId).length).toBe(1);

    // Messaging the same person again reuses the conversation.
    await page.goto('/team-members');
    await page.getByRole('button', { name: `Message ${demoUsers.admin.name}` }).click();
    await expect(page).toHaveURL(/\/direct-messages$/);
    const again = await page.evaluate(() => (history.state as { usr?: { activeConversationId?: string } } | null)?.usr);
    expect(again?.activeConversationId).toBe(expectedId);
  });

  test('works offline from the device, and "Message" offline starts the conversation once back online', async ({
    page,
    context,
    apiAs,
  }) => {
    const bob = await apiAs(demoUsers.bob.email);
    const admin = await apiAs(demoUsers.admin.email);
    const expectedId = conversationIdFor(bob.user.id, admin.user.id);
    await signIn(page, demoUsers.bob.email);
    await page.goto('/team-members');
    await expect(page.getByRole('heading', { name: demoUsers.admin.name })).toBeVisible();

    await goOffline(context);
    await page.getByRole('searchbox', { name: 'Search by name or email...' }).fill('adam');
    await page.getByRole('button', { name: `Message ${demoUsers.admin.name}` }).click();
    await expect(page).toHaveURL(/\/direct-messages$/);
    await goOnline(context);
    await expect.poll(async () => (await serverConversations(admin)).some((c) => c.id === expectedId)).toBe(true);
  });

  test('on a desktop and on a phone', async ({ page }) => {
    await signIn(page, demoUsers.manager.email);
    await page.goto('/team-members');
    await expect(page.getByRole('heading', { name: demoUsers.bob.name })).toBeVisible();
    await saveScreen(page, 'team-members-desktop');
    await page.setViewportSize(phoneViewport);
    await expect(page.getByRole('heading', { name: demoUsers.bob.name })).toBeVisible();
    await saveScreen(page, 'team-members-phone');
  });
});
