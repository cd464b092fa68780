import type { TestProject } from 'vitest/node';
import { createMigratedTemplate, startTestPostgres, type TestPostgres } from './postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The `postgres` database of the PostgreSQL the test files of a project (`api-pg`, `pwa-pg`) share. */
    postgresServerUrl: string;
    /** Why that PostgreSQL did not start (see sharedPostgresUrl). */
    postgresStartFailure: string;
  }
}

/**
 * One PostgreSQL for every test file of a project (`api-pg`, `pwa-pg`): starting a server takes seconds, a
 * database on it (one per test server, see startTestServer) a fraction of one. The URL goes to the workers through
 * `provide`, not process.env: the other projects' workers, started by this same process, must stay on SQLite.
 * A PostgreSQL that does not start fails nothing here (a global setup that throws ends the whole vitest run): the
 * reason goes to the project's test files, which fail with it, and the other projects run on.
 */
export async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  try {
    const postgres = await startMigrated();
    project.provide('postgresServerUrl', postgres.url);
    return () => postgres.stop();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    project.provide('postgresStartFailure', `The ${project.name} project's tests need PostgreSQL. ${reason}`);
    return undefined;
  }
}

/** A test PostgreSQL with the migrated template its test servers' databases are copied from. */
async function startMigrated(): Promise<TestPostgres> {
  const postgres = await startTestPostgres();
  try {
    await createMigratedTemplate(postgres.url);
    return postgres;
  } catch (error) {
    await postgres.stop();
    throw error;
  }
}
