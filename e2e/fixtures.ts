import { mkdirSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { join } from 'node:path';
import {
  expect,
  request,
  test as base,
  type APIRequestContext,
  type Browser,
  type BrowserContext,
  type Page,
  type Route,
} from '@playwright/test';

export { expect };

/**
 * axe with the WCAG 2.1 A and AA rules. Legacy mode runs `axe.run` in the page: the default collects each frame's
 * partial results and finishes in a new blank page, which cost about 0.7 s per audit here, and our pages have no
 * cross-origin frames for it to reach.
 */
export const wcagAudit = (page: Page): AxeBuilder =>
  new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).setLegacyMode();

/** Serious and critical WCAG 2.1 A/AA problems axe finds on the page, or inside `selector` only. */
export async function seriousAxeProblems(page: Page, selector?: string): Promise<string[]> {
  const builder = wcagAudit(page);
  const audit = await (selector ? builder.include(selector) : builder).analyze();
  return audit.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/** Password of every seeded demo account. */
export const DEMO_PASSWORD = 'demo1234';

/** The seeded demo accounts (api/src/db/seed.ts). */
export const demoUsers = {
  manager: { email: 'manager@demo.local', name: 'Maya Manager', role: 'manager' },
  admin: { email: 'admin@demo.local', name: 'Adam Admin', role: 'admin' },
  alice: { email: 'alice@demo.local', name: 'Alice Johnson', role: 'employee' },
  bob: { email: 'bob@demo.local', name: 'Bob Smith', role: 'employee' },
  carol: { email: 'carol@demo.local', name: 'Carol Davis', role: 'employee' },
} as const;

/** The desktop window of the config (playwright.config.ts `use.viewport`), for extra browser contexts. */
export const desktopViewport = { width: 1280, height: 800 } as const;

/** A phone in portrait (spec section 2: the mobile layout applies at 768 px or less). */
export const phoneViewport = { width: 375, height: 812 } as const;

/** Storage keys of spec section 9 (user and token in localStorage, the flag in sessionStorage). */
export const sessionKeys = { user: 'user', token: 'token', hasActiveSession: 'hasActiveSession' } as const;

/** sessionStorage key the splash sets once it has run in a tab (pwa/src/app/splash/splash-session.ts). */
const splashShownKey = 'splashShown';

/** The server the config started (playwright.config.ts sets E2E_BASE_URL). */
export function baseUrl(): string {
  const url = process.env.E2E_BASE_URL;
  if (!url) {
    throw new Error('E2E_BASE_URL is not set: run the tests through playwright.config.ts');
  }
  return url;
}

/** Marks the splash as already shown in every tab of the context (or in the page), so the app opens at once. */
export async function skipSplash(target: Page | BrowserContext): Promise<void> {
  await target.addInitScript((key) => sessionStorage.setItem(key, 'true'), splashShownKey);
}

/** Signs in through the login form and waits for the dashboard. */
export async function signIn(page: Page, email: string, password: string = DEMO_PASSWORD): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL('**/dashboard');
}

const offlineRoutes = new WeakMap<BrowserContext, (route: Route) => Promise<void>>();

/**
 * Takes the context offline the way the project requires: `setOffline(true)` for the pages, plus a
 * route that aborts every request, because setOffline does not cut the service worker's requests.
 */
export async function goOffline(context: BrowserContext): Promise<void> {
  if (!offlineRoutes.has(context)) {
    const abort = (route: Route): Promise<void> => route.abort('internetdisconnected');
    offlineRoutes.set(context, abort);
    await context.route('**/*', abort);
  }
  await context.setOffline(true);
}

/** Undoes `goOffline`. */
export async function goOnline(context: BrowserContext): Promise<void> {
  const abort = offlineRoutes.get(context);
  if (abort) {
    offlineRoutes.delete(context);
    await context.unroute('**/*', abort);
  }
  await context.setOffline(false);
}

/** What the server answered: the status and the parsed JSON body (undefined when there is none). */
export interface ApiAnswer<T = unknown> {
  status: number;
  body: T;
}

/** A signed-in HTTP client for checking the server's state. */
export interface ApiClient {
  /** The user as the login answer returned it. */
  user: { id: string; name: string; email: string; role: string };
  token: string;
  request: APIRequestContext;
  get<T = unknown>(path: string): Promise<ApiAnswer<T>>;
  post<T = unknown>(path: string, data?: unknown): Promise<ApiAnswer<T>>;
  put<T = unknown>(path: string, data?: unknown): Promise<ApiAnswer<T>>;
  patch<T = unknown>(path: string, data?: unknown): Promise<ApiAnswer<T>>;
  delete<T = unknown>(path: string): Promise<ApiAnswer<T>>;
  dispose(): Promise<void>;
}

async function answerOf<T>(response: Awaited<ReturnType<APIRequestContext['get']>>): Promise<ApiAnswer<T>> {
  const text = await response.text();
  return { status: response.status(), body: (text === '' ? undefined : JSON.parse(text)) as T };
}

/**
 * Signs in over HTTP (POST /api/auth/login) and returns a client that sends the bearer token.
 * Paths are absolute (`/api/auth/all-users`). Call `dispose()` when done, or use the `apiAs` fixture. `server` is
 * the shared one unless a test started its own.
 */
export async function createApiClient(
  email: string,
  password: string = DEMO_PASSWORD,
  server: string = baseUrl(),
): Promise<ApiClient> {
  const login = await request.newContext({ baseURL: server });
  const response = await login.post('/api/auth/login', { data: { email, password } });
  const body = (await response.json()) as { user?: ApiClient['user']; token?: string; message?: string };
  await login.dispose();
  if (!response.ok() || !body.token || !body.user) {
    throw new Error(`Signing in ${email} over HTTP failed: ${response.status()} ${body.message ?? ''}`);
  }
  const token = body.token;
  const api = await request.newContext({
    baseURL: server,
    extraHTTPHeaders: { Authorization: `Bearer ${token}` },
  });
  return {
    user: body.user,
    token,
    request: api,
    get: async (path) => answerOf(await api.get(path)),
    post: async (path, data) => answerOf(await api.post(path, data === undefined ? {} : { data })),
    put: async (path, data) => answerOf(await api.put(path, data === undefined ? {} : { data })),
    patch: async (path, data) => answerOf(await api.patch(path, data === undefined ? {} : { data })),
    delete: async (path) => answerOf(await api.delete(path)),
    dispose: () => api.dispose(),
  };
}

/** A person registered by a test: no other test writes to them. */
export interface RegisteredPerson {
  id: string;
  name: string;
  email: string;
  password: string;
  /** The session token the registration answered with. */
  token: string;
}

/**
 * Registers a fresh employee over HTTP (POST /api/auth/register) with a unique name and email. A test that
 * counts the person's notices passes `{ teamChatNotices: false }`: other tests post to the team chat meanwhile,
 * and each message would be a notice of theirs (the person's notification preference turns that off).
 */
export async function registerPerson(
  name: string,
  options: { teamChatNotices?: boolean } = {},
): Promise<RegisteredPerson> {
  const tag = Math.random().toString(36).slice(2, 8);
  const person = {
    name: `${name} ${tag}`,
    email: `${name.toLowerCase().replace(/\W+/g, '.')}.${tag}@demo.local`,
    password: DEMO_PASSWORD,
  };
  const context = await request.newContext({ baseURL: baseUrl() });
  const response = await context.post('/api/auth/register', { data: person });
  const body = (await response.json()) as { user?: { id: string }; token?: string; message?: string };
  if (response.status() !== 201 || !body.user || !body.token) {
    await context.dispose();
    throw new Error(`Registering ${person.name} failed: ${response.status()} ${body.message ?? ''}`);
  }
  if (options.teamChatNotices === false) {
    const preferences = await context.put('/api/notifications/preferences', {
      data: { teamChat: 'none' },
      headers: { authorization: `Bearer ${body.token}` },
    });
    if (!preferences.ok()) throw new Error(`Turning team chat notices off failed: ${preferences.status()}`);
  }
  await context.dispose();
  return { ...person, id: body.user.id, token: body.token };
}

/** Another person's device: a new signed-in browser context (splash skipped) and its page, on the dashboard. */
export async function openDevice(
  browser: Browser,
  person: { email: string; password?: string },
  viewport: { width: number; height: number } = desktopViewport,
): Promise<[BrowserContext, Page]> {
  const context = await browser.newContext({ viewport });
  await skipSplash(context);
  const page = await context.newPage();
  await signIn(page, person.email, person.password);
  return [context, page];
}

/**
 * Makes this device's storage full for the app's writes: IndexedDB refuses every outbox entry (QuotaExceededError),
 * so each local write fails as on a full disk. Returns the function that frees the space again.
 */
export async function fillDeviceStorage(page: Page): Promise<() => Promise<void>> {
  await page.evaluate(() => {
    const descriptor = Object.getOwnPropertyDescriptor(IDBObjectStore.prototype, 'add') as PropertyDescriptor;
    const add = descriptor.value as IDBObjectStore['add'];
    (window as Window & { restoreStorage?: () => void }).restoreStorage = () => {
      Object.defineProperty(IDBObjectStore.prototype, 'add', descriptor);
    };
    IDBObjectStore.prototype.add = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['add']>) {
      if (this.name === 'outbox') throw new DOMException('The disk is full', 'QuotaExceededError');
      return add.apply(this, args);
    };
  });
  return () => page.evaluate(() => (window as Window & { restoreStorage?: () => void }).restoreStorage?.());
}

/** Asserts nothing sticks out sideways: the page does not scroll horizontally. */
export async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
  expect(scrollWidth, 'the page should not scroll sideways').toBeLessThanOrEqual(clientWidth);
}

/** Saves a full-page screenshot to test-results/screens/<name>.png for people to look at. */
export async function saveScreen(page: Page, name: string, { fullPage = true } = {}): Promise<void> {
  const dir = join(process.env.E2E_RESULTS_DIR ?? 'test-results', 'screens');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage, animations: 'disabled' });
}

/**
 * Saves the viewport only: a full-page capture can flip the layout to mobile for a moment, which re-mounts the
 * desktop header and closes the bell's list.
 */
export const saveViewport = (page: Page, name: string): Promise<void> => saveScreen(page, name, { fullPage: false });

interface Fixtures {
  /**
   * Whether the splash plays in the test's `context`; off by default so tests start at the screen
   * they are about. Turn it on with `test.use({ showSplash: true })`.
   */
  showSplash: boolean;
  /** `apiAs(email)`: a signed-in HTTP client, disposed after the test. */
  apiAs: (email: string, password?: string) => Promise<ApiClient>;
}

/** The test function of every e2e file: Playwright's, with the splash skipped and `apiAs`. */
export const test = base.extend<Fixtures>({
  showSplash: [false, { option: true }],
  context: async ({ context, showSplash }, use) => {
    if (!showSplash) {
      await skipSplash(context);
    }
    await use(context);
  },
  // Playwright reads a fixture's dependencies from its destructured first argument; this one has none.
  // eslint-disable-next-line no-empty-pattern
  apiAs: async ({}, use) => {
    const clients: ApiClient[] = [];
    await use(async (email, password) => {
      const client = await createApiClient(email, password);
      clients.push(client);
      return client;
    });
    await Promise.all(clients.map((client) => client.dispose()));
  },
});

/**
 * Waits until the service worker (/sw.js) controls the page, so a reload can be served offline. It claims the
 * pages open when it activates; one that still has no controller a few seconds later (seen once in CI, where
 * the page's document was also denied its sessionStorage) is loaded again, which an active worker controls.
 */
export async function expectServiceWorkerInControl(page: Page): Promise<void> {
  const controller = () => page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? null);
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  const claimed = await expect
    .poll(controller, { timeout: 5_000 })
    .toMatch(/\/sw\.js$/)
    .then(
      () => true,
      () => false,
    );
  if (claimed) return;
  await page.reload();
  await expect.poll(controller, { message: 'the service worker should control the page' }).toMatch(/\/sw\.js$/);
}

/** Waits until the header says "Up to date": the device finished a sync and its live connection is up. */
export async function expectUpToDate(page: Page): Promise<void> {
  await expect(page.getByRole('status', { name: 'Data freshness' })).toHaveText('Up to date', { timeout: 30_000 });
}

/** Opens a route and waits until its heading shows and nothing says it is still loading. */
export async function openRoute(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(page.getByText(/^Loading/)).toHaveCount(0);
}

/** Marks the page's window: the mark survives anything but a reload or a navigation. */
export const setMarker = (page: Page): Promise<void> =>
  page.evaluate(() => {
    (window as Window & { __marker?: string }).__marker = 'no reload';
  });

/** The mark `setMarker` left, or undefined after a reload. */
export const marker = (page: Page): Promise<string | undefined> =>
  page.evaluate(() => (window as Window & { __marker?: string }).__marker);
