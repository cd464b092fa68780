import type { SQL } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type { Db, Tx } from './client';

/** Which database this process speaks to: chosen once, before any table or query is built. */
export type Dialect = 'sqlite' | 'postgres';

/**
 * DATABASE_URL selects PostgreSQL (config.ts checks it and the secrets every node shares); without it the
 * workspace is the SQLite file in DATA_DIR. Read here, at import, because the tables the domain imports are the
 * dialect's own objects (see schema.ts).
 */
export const dialect: Dialect = process.env.DATABASE_URL ? 'postgres' : 'sqlite';

/** Runs one statement whose result is not needed (a lock, a savepoint), in the dialect's own way. */
export async function runStatement(handle: Db | Tx, statement: SQL): Promise<void> {
  if (dialect === 'postgres') await (handle as unknown as NodePgDatabase).execute(statement);
  else handle.run(statement);
}
