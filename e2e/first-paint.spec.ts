import { get } from 'node:http';
import type { Locator, Page } from '@playwright/test';
import {
  baseUrl,
  demoUsers,
  desktopViewport,
  expect,
  expectServiceWorkerInControl,
  expectUpToDate,
  goOffline,
  phoneViewport,
  type ApiClient,
  saveScreen,
  signIn,
  skipSplash,
  test,
} from './fixtures';

// Issue 16, "Quick to first paint": the first paint needs a small script sent compressed, each screen is
// a chunk of its own (precached, so every route opens offline), a chunk that cannot be loaded says so in
// the spec's words, and no screen moves under the reader while it loads.

/** The most script the page may need before its first paint, as sent over the wire (compressed). */
const entryBudgetBytes = 200_000;
/** The most layout shift a screen may show while it loads (Core Web Vitals' "good"). */
const layoutShiftBudget = 0.1;

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes as they came over the connection, not decoded. */
  bytes: number;
  body: string;
}

/** A GET that keeps the answer as sent: Node's http client does not decode compressed bodies. */
function rawGet(path: string, acceptEncoding: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    get(new URL(path, baseUrl()), { headers: { 'Accept-Encoding': acceptEncoding } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          bytes: body.length,
          body: body.toString('utf8'),
        });
      });
      response.on('error', reject);
    }).on('error', reject);
  });
}

test.describe('what the first paint costs', () => {
  test('the page needs at most 200 kB of script to paint, sent as brotli and cached for a year', async () => {
    const html = await rawGet('/login', 'identity');
    expect(html.status).toBe(200);
    expect(html.headers['cache-control']).toBe('no-cache');
    // The entry script and the chunks the browser must load with it before it can run.
    const scripts = [
      ...html.body.matchAll(/<script type="module"[^>]* src="([^"]+)"/g),
      ...html.body.matchAll(/<link rel="modulepreload"[^>]* href="([^"]+)"/g),
    ].map((match) => match[1] ?? '');
    expect(scripts.length).toBeGreaterThan(0);
    let sent = 0;
    for (const script of scripts) {
      const answer = await rawGet(script, 'gzip, deflate, br, zstd');
      expect(answer.status, script).toBe(200);
      expect(answer.headers['content-encoding'], script).toBe('br');
      expect(answer.headers['cache-control'], script).toBe('public, max-age=31536000, immutable');
      sent += answer.bytes;
    }
    expect(sent).toBeLessThanOrEqual(entryBudgetBytes);

    const gzipped = await rawGet('/login', 'gzip');
    expect(gzipped.headers['content-encoding']).toBe('gzip');
  });
});

interface LayoutShift {
  value: number;
  sources: string[];
}

type ShiftWindow = Window & { __layoutShifts?: LayoutShift[] };

/** Runs in every document: records each layout shift not caused by the reader, with what moved. */
function recordLayoutShifts(): void {
  const shifts: LayoutShift[] = [];
  (window as ShiftWindow).__layoutShifts = shifts;
  const describe = (node: Node | null): string => {
    if (!(node instanceof Element)) return String(node?.nodeName ?? 'text');
    const label = node.getAttribute('aria-label') ?? node.textContent?.trim().slice(0, 40) ?? '';
    return `${node.tagName.toLowerCase()}.${Array.from(node.classList).join('.')} "${label}"`;
  };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as (PerformanceEntry & {
      value: number;
      hadRecentInput: boolean;
      sources: { node: Node | null }[];
    })[]) {
      if (!entry.hadRecentInput) {
        shifts.push({ value: entry.value, sources: entry.sources.map((source) => describe(source.node)) });
      }
    }
  }).observe({ type: 'layout-shift', buffered: true });
}

/**
 * Opens `path` as a new page load and returns how much it moved until `ready` shows, its images have
 * loaded and two more frames have been drawn. The sum of all shifts: never less than the CLS a browser
 * reports for the load.
 */
async function layoutShiftOfLoad(page: Page, path: string, ready: (page: Page) => Locator): Promise<LayoutShift[]> {
  await page.goto(path);
  await expect(ready(page).first()).toBeVisible({ timeout: 20_000 });
  await page.evaluate(async () => {
    await Promise.all(
      Array.from(document.images)
        .filter((image) => !image.complete)
        .map((image) => new Promise((resolve) => image.addEventListener('loadend', resolve, { once: true }))),
    );
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  });
  return page.evaluate(() => (window as ShiftWindow).__layoutShifts ?? []);
}

const total = (shifts: LayoutShift[]): number => shifts.reduce((sum, shift) => sum + shift.value, 0);

/**
 * Waits until the device holds every task the server lists for the person (the dashboard's Total Tasks
 * card says so): a returning user's device, whose screens load from IndexedDB. The first sync itself, on a
 * new device, is another state ("Getting your workspace ready").
 */
async function waitForFirstSync(page: Page, api: ApiClient): Promise<void> {
  await expect
    .poll(async () => {
      const { body } = await api.get<{ tasks: unknown[] }>('/api/tasks');
      return page.getByRole('link', { name: `Total Tasks: ${body.tasks.length}` }).isVisible();
    })
    .toBe(true);
}

/** Each screen of a role, and what shows once it has its data. */
const screensOf = {
  manager: [
    ['/dashboard', (page: Page) => page.getByRole('link', { name: /^Online Now: \d+$/ })],
    ['/tasks', (page: Page) => page.getByRole('list', { name: 'Tasks', exact: true }).getByRole('listitem')],
    ['/employees', (page: Page) => page.getByRole('list', { name: 'Employees' }).getByRole('listitem')],
    ['/team-members', (page: Page) => page.getByRole('list', { name: 'Team members' }).getByRole('listitem')],
    ['/chat', (page: Page) => page.getByRole('log', { name: 'Team chat messages' }).locator('li[data-message-id]')],
    ['/direct-messages', (page: Page) => page.getByRole('list', { name: 'Conversations' }).getByRole('listitem')],
    ['/profile-settings', (page: Page) => page.getByRole('heading', { name: 'Basic Information' })],
  ],
  employee: [
    ['/dashboard', (page: Page) => page.getByRole('link', { name: /^Total Tasks: \d+$/ })],
    ['/my-tasks', (page: Page) => page.getByRole('list', { name: 'My tasks' }).getByRole('listitem')],
  ],
} as const;

const people = { manager: demoUsers.manager, employee: demoUsers.alice } as const;

for (const [width, viewport] of [
  ['phone', phoneViewport],
  ['desktop', desktopViewport],
] as const) {
  for (const role of ['manager', 'employee'] as const) {
    test(`on a ${width}, no screen of a ${role} moves by more than 0.1 while it loads`, async ({ browser, apiAs }) => {
      test.slow();
      const context = await browser.newContext({ viewport });
      await skipSplash(context);
      await context.addInitScript(recordLayoutShifts);
      const page = await context.newPage();
      await signIn(page, people[role].email);
      await waitForFirstSync(page, await apiAs(people[role].email));
      const moved: string[] = [];
      for (const [path, ready] of screensOf[role]) {
        const shifts = await layoutShiftOfLoad(page, path, ready);
        if (total(shifts) > layoutShiftBudget) {
          moved.push(`${path} ${total(shifts).toFixed(3)}: ${JSON.stringify(shifts)}`);
        }
      }
      expect(moved, 'screens whose layout shift went over 0.1').toEqual([]);
      await context.close();
    });
  }
}

test.describe('every screen in a chunk of its own', () => {
  test('the installed app opens offline on every route, each screen from the service worker’s cache', async ({
    page,
    context,
  }) => {
    await signIn(page, demoUsers.manager.email);
    await expectServiceWorkerInControl(page);
    // Offline the screens show what the device holds: its first sync must have finished.
    await expectUpToDate(page);
    await goOffline(context);
    for (const [path, ready] of screensOf.manager) {
      await page.goto(path);
      await expect(ready(page).first(), path).toBeVisible();
    }
  });

  test('a screen whose code cannot be loaded shows ChunkLoadError with the chunk, the type and the URL; Reload brings it', async ({
    browser,
  }) => {
    for (const [name, viewport] of [
      ['desktop', desktopViewport],
      ['phone', phoneViewport],
    ] as const) {
      // Without the service worker, so the screen's chunk is fetched from the server and can fail.
      const context = await browser.newContext({ viewport, serviceWorkers: 'block' });
      await skipSplash(context);
      const page = await context.newPage();
      await signIn(page, demoUsers.manager.email);
      const chunk = '**/assets/team-members-screen-*.js';
      await context.route(chunk, (route) => route.abort('failed'));

      await page.goto('/team-members');
      const alert = page.getByRole('alert').filter({ hasText: 'ChunkLoadError' });
      await expect(alert.getByRole('heading', { name: 'This screen could not be loaded' })).toBeVisible();
      await expect(alert).toContainText('ChunkLoadError: Loading chunk team-members-screen failed.');
      await expect(alert).toContainText(
        new RegExp(`\\(error: ${baseUrl().replaceAll('.', '\\.')}/assets/team-members-screen-[\\w-]+\\.js\\)`),
      );
      // The shell stays, so the person can go elsewhere: the sidebar, or on a phone the menu that opens it.
      await expect(
        name === 'phone'
          ? page.getByRole('button', { name: 'Open menu' })
          : page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Dashboard' }),
      ).toBeVisible();
      await saveScreen(page, `chunk-load-error-${name}`);

      await context.unroute(chunk);
      await alert.getByRole('button', { name: 'Reload' }).click();
      await expect(page.getByRole('list', { name: 'Team members' }).getByRole('listitem').first()).toBeVisible();
      await context.close();
    }
  });
});
