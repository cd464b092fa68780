import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { existsSync } from 'node:fs';
import { makePrivateFile } from '../private-files';
import { migrationsFolder } from './migrations-folder';
import * as schema from './schema-sqlite';

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };
declare const openTransaction: unique symbol;
/**
 * What a command or read runs its queries on inside a transaction (see transaction.ts); commands take this so
 * REST and sync push share them. On SQLite it is the database handle itself (there is one connection); the brand
 * keeps a handle outside any transaction from being passed where one is required.
 */
export type Tx = Db & { readonly [openTransaction]: true };

/** Prepared statements kept per connection, by SQL text (drizzle prepares every query it runs). */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * Keeps the connection's prepared statements by SQL text, so a query drizzle builds again and again (the same
 * text with other parameters) is compiled by SQLite once. A statement taken from the cache goes back to its
 * default result mode (drizzle switches some to raw rows).
 */
function cacheStatements(sqlite: Database.Database): void {
  const prepare = sqlite.prepare.bind(sqlite);
  const cache = new Map<string, Database.Statement>();
  sqlite.prepare = ((source: string) => {
    const cached = cache.get(source);
    if (cached && !cached.busy) {
      if (cached.reader) cached.raw(false).pluck(false).expand(false);
      return cached;
    }
    const statement = prepare(source);
    cache.set(source, statement);
    // Least recently added goes first: a Map iterates in insertion order.
    if (cache.size > STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value ?? '');
    return statement;
  }) as typeof sqlite.prepare;
}

/** Opens (creating if needed) the SQLite file, sets durable pragmas and applies migrations. */
export function openDatabase(file: string): Db {
  // SQLite gives its -wal and -shm files the database file's permissions.
  makePrivateFile(file);
  for (const companion of [`${file}-wal`, `${file}-shm`]) if (existsSync(companion)) makePrivateFile(companion);
  const sqlite = new Database(file);
  cacheStatements(sqlite);
  sqlite.pragma('journal_mode = WAL');
  // A commit hands its pages to the OS without waiting for the disk; an acknowledged write is on disk all
  // the same, because nothing is acknowledged before a group fsync of the WAL (see group-commit.ts).
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Every write runs in a savepoint of its batch's transaction: SQLite keeps the pages a savepoint may have to
  // restore in a statement journal, a temporary file by default, which doubled the cost of a batched write.
  sqlite.pragma('temp_store = MEMORY');
  // 64 MiB of page cache (2 MiB by default): the indexes every write descends stay in memory as the tables grow.
  sqlite.pragma('cache_size = -65536');
  const db: Db = drizzle({ client: sqlite, schema, casing: 'snake_case' });
  migrate(db, { migrationsFolder: migrationsFolder('drizzle') });
  return db;
}
