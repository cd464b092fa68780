import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/** The API tests that go through a test server or the domain: the same files run on SQLite and on PostgreSQL. */
const apiIntegrationTests = [
  'api/src/routes/**/*.test.ts',
  'api/src/realtime/*.test.ts',
  'api/src/push/*.test.ts',
  'api/src/jobs/*.test.ts',
  'api/src/domain/**/*.test.ts',
];

/** Tests of PostgreSQL alone (they start a PostgreSQL of their own beside the project's). */
const postgresOnlyTests = ['api/src/backup/backup-postgres.test.ts'];

/**
 * Test files that need modules of their own: they mock a module (vi.mock), choose the dialect before importing it,
 * load fake-indexeddb's globals before Dexie, or stub globals. Every other file shares its worker's modules with the
 * files before it, so the app is not imported again for each file (import time 90 s → 15 s for api and pwa).
 */
const ownModuleFiles = {
  api: ['api/src/domain/write-batcher.test.ts', 'api/src/postgres.test.ts'],
  'api-pg': ['api/src/domain/write-batcher.test.ts'],
  pwa: [
    'pwa/src/data/notification-hooks.test.ts',
    'pwa/src/sync/settled.test.ts',
    'pwa/src/realtime/presence.test.ts',
    'pwa/src/sync/transport.test.ts',
  ],
};

/** A project as two: its files that share modules, and `ownModuleFiles` isolated. */
function withSharedModules(
  name: keyof typeof ownModuleFiles,
  test: Omit<NonNullable<TestProjectInlineConfiguration['test']>, 'name'>,
): TestProjectInlineConfiguration[] {
  const own = ownModuleFiles[name];
  return [
    { test: { ...test, name, isolate: false, exclude: [...(test.exclude ?? configDefaults.exclude), ...own] } },
    { test: { ...test, name: `${name}-own-modules`, include: own } },
  ];
}

export default defineConfig({
  test: {
    // Two workers on two cores (the default is one): files wait on disk flushes, PostgreSQL, child servers and
    // sockets, which the other worker fills; with two, both cores are 87-90 % busy through the run.
    maxWorkers: 2,
    projects: [
      { test: { name: 'sync-protocol', include: ['sync-protocol/src/**/*.test.ts'], environment: 'node' } },
      ...withSharedModules('api', {
        include: ['api/src/**/*.test.ts'],
        exclude: [...configDefaults.exclude, ...postgresOnlyTests],
        environment: 'node',
        testTimeout: 20_000,
        hookTimeout: 20_000,
      }),
      // The API integration suite again, on one embedded PostgreSQL shared by its files (DATABASE_URL is set
      // in each file by the setup file; every test server gets a database of its own).
      ...withSharedModules('api-pg', {
        include: [...apiIntegrationTests, ...postgresOnlyTests],
        environment: 'node',
        globalSetup: ['api/test/pg-global-setup.ts'],
        setupFiles: ['api/test/pg-test-setup.ts'],
        testTimeout: 20_000,
        hookTimeout: 20_000,
      }),
      ...withSharedModules('pwa', { include: ['pwa/src/**/*.test.{ts,tsx}'], environment: 'node' }),
      {
        // The sync fault-injection property test again, its child servers on one embedded PostgreSQL: the test file
        // reads the URL with inject and gives DATABASE_URL to the children alone (this process stays on SQLite).
        test: {
          name: 'pwa-pg',
          include: ['pwa/src/sync/faults.property.test.ts'],
          environment: 'node',
          globalSetup: ['api/test/pg-global-setup.ts'],
        },
      },
    ],
  },
});
