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

/**
 * SQLSTATE codes (and classes, by their first two characters) of failures that say nothing about the request: the
 * database is unreachable or restarting, a bound ran out (statement, lock, idle, transaction), or two transactions
 * met in a deadlock or a serialization conflict. The same request may well succeed when sent again.
 */
const TRANSIENT_SQLSTATES = new Set([
  '40001',
  '40P01',
  '55P03',
  '57014',
  '57P01',
  '57P02',
  '57P03',
  '25P03',
  '25P04',
  '53300',
]);
const TRANSIENT_SQLSTATE_CLASSES = new Set(['08']);
/** Node's codes for a connection refused, reset or unanswered, and SQLite's for a database that stayed locked. */
const TRANSIENT_SYSTEM_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'SQLITE_BUSY',
]);
/** pg's own words when a connection ends under a query, or none comes in time. */
const TRANSIENT_MESSAGES = [
  /^Connection terminated/,
  /^Query read timeout$/,
  /^timeout exceeded when trying to connect$/,
  /is not queryable$/,
];

/** Whether `error` is the database being away or out of time rather than anything about the request (see above). */
export function isTransientDatabaseError(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    const { code } = current as Error & { code?: unknown };
    if (typeof code === 'string') {
      if (TRANSIENT_SQLSTATES.has(code) || TRANSIENT_SYSTEM_CODES.has(code)) return true;
      if (code.length === 5 && TRANSIENT_SQLSTATE_CLASSES.has(code.slice(0, 2))) return true;
    }
    if (TRANSIENT_MESSAGES.some((pattern) => pattern.test(current.message))) return true;
  }
  return false;
}
