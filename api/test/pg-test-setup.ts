import { sharedPostgresUrl } from './shared-postgres';

// Runs before each test file of the `api-pg` project imports anything: the tables are chosen from DATABASE_URL
// when db/dialect.ts is first imported. Throws (the file fails, saying why) when the project's PostgreSQL did not
// start.
const url = sharedPostgresUrl();
if (url === null)
  throw new Error('The api-pg project has no PostgreSQL: its global setup (pg-global-setup.ts) is missing');
process.env.DATABASE_URL = url;
