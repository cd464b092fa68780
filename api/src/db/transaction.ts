import type Database from 'better-sqlite3';
import type { Db, Tx } from './client';
import { dialect } from './dialect';
import { forgetAllKept } from './kept-rows';
import { postgresTransaction } from './postgres-transaction';

interface TransactionStatements {
  begin: Database.Statement;
  commit: Database.Statement;
  rollback: Database.Statement;
}

interface Connection {
  statements: TransactionStatements;
  /** Settles when the transaction opened last has ended: the next one starts after it. */
  tail: Promise<void>;
}

const connections = new WeakMap<Database.Database, Connection>();

function connectionOf(db: Db): Connection {
  let connection = connections.get(db.$client);
  if (!connection) {
    connection = {
      statements: {
        begin: db.$client.prepare('BEGIN IMMEDIATE'),
        commit: db.$client.prepare('COMMIT'),
        rollback: db.$client.prepare('ROLLBACK'),
      },
      tail: Promise.resolve(),
    };
    connections.set(db.$client, connection);
  }
  return connection;
}

/**
 * Runs `work` in one transaction and resolves with its result once committed; if it throws, nothing it wrote
 * stays. Commands and reads are asynchronous so the same code runs on PostgreSQL, where the transaction has a
 * connection of the pool to itself. On SQLite every query of `work` goes to the one connection, so transactions
 * take turns (a queue per connection); work must not wait for anything but its own queries there: a statement
 * run meanwhile by other code on the connection would join this transaction.
 *
 * `snapshot`: every read of `work` sees the database as it was when the first one ran (a pull's pages and its
 * cursor agree). SQLite's one writer gives that anyway; PostgreSQL needs REPEATABLE READ for it.
 */
export async function transaction<T>(
  db: Db,
  work: (tx: Tx) => Promise<T>,
  options: { snapshot?: boolean } = {},
): Promise<T> {
  if (dialect === 'postgres') return postgresTransaction(db, work, options);
  const connection = connectionOf(db);
  const previous = connection.tail;
  let ended!: () => void;
  connection.tail = new Promise<void>((resolve) => (ended = resolve));
  await previous;
  const { begin, commit, rollback } = connection.statements;
  try {
    begin.run();
    try {
      const result = await work(db as Tx);
      commit.run();
      return result;
    } catch (error) {
      // A failed COMMIT can leave the transaction open (SQLite rolls some failures back by itself).
      if (db.$client.inTransaction) rollback.run();
      forgetAllKept(db);
      throw error;
    }
  } finally {
    ended();
  }
}
