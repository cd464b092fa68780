import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { expect, expectServiceWorkerInControl, expectUpToDate, saveScreen, signIn, skipSplash, test } from './fixtures';
import { findFreePort } from './free-port';
import { startOwnServer, type OwnServer } from './own-server';
import { unique } from './api-helpers';

// Issue 44: a backup restored in place of the server a device synced with. The device synced changes the backup
// does not hold, and queued a write while the server was being restored: it downloads the workspace again, and
// its queued write reaches the restored server once.

const composer = (page: Page): Locator => page.getByRole('combobox', { name: 'Type your message...' });

/** Runs the backup command (`npm run backup` / `npm run restore` run the same bundle) with DATA_DIR. */
function backupCommand(dataDir: string, ...args: string[]): string {
  const result = spawnSync(process.execPath, ['api/dist/backup-cli.js', ...args], {
    env: { ...process.env, DATA_DIR: dataDir },
    encoding: 'utf8',
  });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
}

async function send(page: Page, text: string): Promise<void> {
  await composer(page).fill(text);
  await page.getByRole('button', { name: 'Send message' }).click();
  await expect(page.getByText(text)).toBeVisible();
}

async function chatTexts(server: OwnServer, token: string, text: string): Promise<number> {
  const answer = await fetch(`${server.url}/api/messages`, { headers: { authorization: `Bearer ${token}` } });
  const { messages } = (await answer.json()) as { messages: { text: string }[] };
  return messages.filter((message) => message.text === text).length;
}

test('a device synced after the backup downloads the restored workspace again, and its queued write arrives once', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const folder = mkdtempSync(join(tmpdir(), 'office-restore-e2e-'));
  const original = join(folder, 'original');
  const restoredDir = join(folder, 'restored');
  const backups = join(folder, 'backups');
  const port = await findFreePort();
  let server = await startOwnServer({ dataDir: original, port });
  const context = await browser.newContext({ baseURL: server.url, serviceWorkers: 'allow' });
  try {
    await skipSplash(context);
    const page = await context.newPage();
    await signIn(page, 'alice@demo.local');
    await expectServiceWorkerInControl(page);
    await page.goto('/chat');
    const kept = `Kept by the backup ${unique()}`;
    await send(page, kept);
    await expectUpToDate(page);

    expect(backupCommand(original, 'backup', '--into', backups)).toMatch(/checked: ok/);
    const [backup] = readdirSync(backups);

    // Synced after the backup: the restore loses it.
    const lost = `Lost with the replaced server ${unique()}`;
    await send(page, lost);
    await expectUpToDate(page);
    await server.stop();

    // Written while the server is down: it waits in the outbox.
    const queued = `Queued during the restore ${unique()}`;
    await send(page, queued);
    await expect(page.getByRole('status', { name: 'Sync status' })).toContainText('1 unsynced change');

    expect(backupCommand(restoredDir, 'restore', join(backups, backup ?? ''))).toMatch(/download the workspace again/);
    server = await startOwnServer({ dataDir: restoredDir, port });

    // The device finds the server again, downloads the restored workspace and sends what it queued.
    await expectUpToDate(page);
    await expect(page.getByText(queued)).toBeVisible();
    await expect(page.getByText(kept)).toBeVisible();
    await expect(page.getByText(lost)).toHaveCount(0);
    await saveScreen(page, 'restore-chat-after-download');
    const token = await page.evaluate(() => localStorage.getItem('token') ?? '');
    expect(await chatTexts(server, token, queued)).toBe(1);
    expect(await chatTexts(server, token, lost)).toBe(0);
    await page.reload();
    await expect(page.getByText(queued)).toHaveCount(1);
  } finally {
    await context.close();
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});
