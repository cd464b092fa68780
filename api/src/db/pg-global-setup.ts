import type { TestProject } from 'vitest/node';
import { createMigratedTemplate, startTestPostgres } from './test-postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The `postgres` database of the PostgreSQL the test files of a project (`api-pg`, `pwa-pg`) share. */
    postgresServerUrl: string;
  }
}

/**
 * One PostgreSQL for every test file of a project (`api-pg`, `pwa-pg`): starting a server takes seconds, a
 * database on it (one per test server, see startTestServer) a fraction of one. The URL goes to the workers through
 * `provide`, not process.env: the other projects' workers, started by this same process, must stay on SQLite.
 */
export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const postgres = await startTestPostgres();
  await createMigratedTemplate(postgres.url);
  project.provide('postgresServerUrl', postgres.url);
  return () => postgres.stop();
}
