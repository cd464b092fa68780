import { defineConfig } from 'vitest/config';

/** The API tests that go through a test server or the domain: the same files run on SQLite and on PostgreSQL. */
const apiIntegrationTests = [
  'api/src/routes/**/*.test.ts',
  'api/src/realtime/*.test.ts',
  'api/src/push/*.test.ts',
  'api/src/jobs/*.test.ts',
  'api/src/domain/**/*.test.ts',
];

export default defineConfig({
  test: {
    // Two workers on two cores (the default is one): most files wait on disk flushes, PostgreSQL, child servers and
    // sockets, so two cut the whole run from about 6 to about 4.5 minutes.
    maxWorkers: 2,
    projects: [
      { test: { name: 'sync-protocol', include: ['sync-protocol/src/**/*.test.ts'], environment: 'node' } },
      {
        test: {
          name: 'api',
          include: ['api/src/**/*.test.ts'],
          environment: 'node',
          testTimeout: 20_000,
          hookTimeout: 20_000,
        },
      },
      {
        // The API integration suite again, on one embedded PostgreSQL shared by its files (DATABASE_URL is set
        // in each file by the setup file; every test server gets a database of its own).
        test: {
          name: 'api-pg',
          include: apiIntegrationTests,
          environment: 'node',
          globalSetup: ['api/src/db/pg-global-setup.ts'],
          setupFiles: ['api/src/db/pg-test-setup.ts'],
          testTimeout: 20_000,
          hookTimeout: 20_000,
        },
      },
      { test: { name: 'pwa', include: ['pwa/src/**/*.test.{ts,tsx}'], environment: 'node' } },
      {
        // The sync fault-injection property test again, its child servers on one embedded PostgreSQL: the test file
        // reads the URL with inject and gives DATABASE_URL to the children alone (this process stays on SQLite).
        test: {
          name: 'pwa-pg',
          include: ['pwa/src/sync/faults.property.test.ts'],
          environment: 'node',
          globalSetup: ['api/src/db/pg-global-setup.ts'],
        },
      },
    ],
  },
});
