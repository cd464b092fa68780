// Seeds an organisation into the PostgreSQL of DATABASE_URL, in a process of its own: dialect.ts picks the tables
// from DATABASE_URL once, when the api modules load, and the bench process speaks SQLite. Started by
// seedOnPostgres (postgres.ts) with the organisation's size as its argument; sends the seeded organisation back.
import { seedOrganisation, type OrgSize } from './seed-org';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('bench/seed-process.ts seeds the PostgreSQL of DATABASE_URL, and none is set');
const size = JSON.parse(process.argv[2] ?? '') as OrgSize;
// DATA_DIR holds only the SQLite file, which there is none of on PostgreSQL.
const org = await seedOrganisation({ dataDir: '', databaseUrl }, size);
// The pool's sockets may linger a moment after it ends; the parent has all it needs once the message is sent.
process.send?.(org, () => process.exit(0));
