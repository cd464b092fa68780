import { inject } from 'vitest';

// Runs before each test file of the `api-pg` project imports anything: the tables are chosen from DATABASE_URL
// when db/dialect.ts is first imported.
process.env.DATABASE_URL = inject('postgresServerUrl');
