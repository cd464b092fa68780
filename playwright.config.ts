import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from './e2e/chromium';
import { findFreePort } from './e2e/free-port';

// End-to-end tests: the real server (built by `npm test` / `npm run build` beforehand) on a free port
// with a fresh data directory, driven through Debian's Chromium.

// Playwright loads this file again in every worker process. Workers inherit the runner's
// environment, so the port and data directory chosen here on the first load are reused there.
process.env.E2E_PORT ??= String(await findFreePort());
if (!process.env.E2E_DATA_DIR) {
  process.env.E2E_DATA_DIR = mkdtempSync(join(tmpdir(), 'office-e2e-'));
  // Ours to delete after the run (e2e/global-teardown.ts); a directory given from outside is kept.
  process.env.E2E_DATA_DIR_OWNED = '1';
}
// The server writes its process warnings (node --redirect-warnings) to this file instead of its stderr, and
// e2e/global-teardown.ts fails the run on any: a warning such as MaxListenersExceededWarning is a bug to fix.
process.env.E2E_SERVER_WARNINGS ??= join(mkdtempSync(join(tmpdir(), 'office-e2e-warnings-')), 'server-warnings.log');
const port = Number(process.env.E2E_PORT);
const dataDir = process.env.E2E_DATA_DIR;
const baseURL = `http://127.0.0.1:${port}`;
/** Read by e2e/fixtures.ts for API clients that live outside a test's own `request`. */
process.env.E2E_BASE_URL = baseURL;
// Lets routes see (and abort) the service worker's requests too: the project's offline pattern.
process.env.PW_EXPERIMENTAL_SERVICE_WORKER_NETWORK_EVENTS = '1';

// test-results/ (gitignored): screens/ for people to look at (e2e/fixtures.ts saveScreen), and one
// run-<pid>/ folder per run for failure screenshots and traces. Playwright empties its output folder
// when a run starts, so a shared one would let a second run in the same checkout delete the first
// run's artifacts mid-test; e2e/global-setup.ts removes the folders of runs that have ended.
const resultsDir = resolve(import.meta.dirname, 'test-results');
process.env.E2E_RESULTS_DIR = resultsDir;
process.env.E2E_RUN_DIR ??= join(resultsDir, `run-${process.pid}`);

const jsonReport = process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ?? join(resultsDir, 'e2e-report.json');

export default defineConfig({
  testDir: 'e2e',
  outputDir: process.env.E2E_RUN_DIR,
  globalSetup: './e2e/global-setup.ts',
  globalTeardown: './e2e/global-teardown.ts',
  fullyParallel: true,
  forbidOnly: Boolean(process.env.CI),
  // Two cores: more workers than that only makes the server and the browsers fight.
  workers: 2,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list'], ['json', { outputFile: jsonReport }]],
  use: {
    baseURL,
    serviceWorkers: 'allow',
    viewport: { width: 1280, height: 800 },
    screenshot: 'only-on-failure',
    // A trace records the screen and the DOM all through a test: a fifth of the suite's CPU on this 2-core
    // machine. The retry of a failed test records one, which is where a flaky failure gets read.
    trace: 'on-first-retry',
    launchOptions: chromiumLaunchOptions,
  },
  projects: [{ name: 'chromium' }],
  webServer: {
    command: `node --redirect-warnings=${process.env.E2E_SERVER_WARNINGS} api/dist/main.js`,
    url: `${baseURL}/api/health`,
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      // The suite is dozens of people on one IP sharing the demo accounts, far beyond one office's
      // pace; the limits themselves are proven by api/src/faults/abuse.test.ts.
      RATE_LIMIT_PER_USER: '5000',
      RATE_LIMIT_PER_IP: '5000',
      // Requests from loopback may name their address (X-Forwarded-For): e2e/device-trust.spec.ts puts its browsers
      // behind an office address of their own, whose failed sign-ins slow nobody else's.
      TRUST_PROXY: 'loopback',
      // The push tests stand in for a push service with a server of their own on loopback.
      PUSH_ALLOW_LOOPBACK: '1',
      // The digest test waits for the job's next look; in the product it looks once a minute.
      DIGEST_CHECK_SECONDS: '2',
    },
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
