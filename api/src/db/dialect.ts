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

/** SQLite's and PostgreSQL's codes for a row that would break a unique index. */
const UNIQUE_VIOLATION_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', '23505']);

/**
 * Whether `error` is a unique index refusing a row, in either dialect. Drizzle wraps the driver's error in one of
 * its own (`cause`), so the chain is followed.
 */
export function isUniqueViolation(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    const { code } = current as Error & { code?: unknown };
    if (typeof code === 'string' && UNIQUE_VIOLATION_CODES.has(code)) return true;
  }
  return false;
}
