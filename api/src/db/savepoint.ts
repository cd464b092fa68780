import type Database from 'better-sqlite3';
import type { Tx } from './client';

interface SavepointStatements {
  open: Database.Statement;
  release: Database.Statement;
  rollback: Database.Statement;
}

const statementsByClient = new WeakMap<Database.Database, SavepointStatements>();

/** The better-sqlite3 connection behind a transaction handle (drizzle's session; not in its public types). */
function clientOf(tx: Tx): Database.Database {
  const { session } = tx as unknown as { session?: { client?: Database.Database } };
  if (!session?.client) throw new Error('drizzle transaction without a better-sqlite3 client');
  return session.client;
}

/**
 * Runs `run` in a savepoint of the open transaction `tx`: if it throws, its writes are undone and the
 * transaction goes on. Drizzle's nested `tx.transaction` does the same but builds a new transaction object
 * (its whole query builder) each time, a cost a batch of hundreds of writes paid once per write.
 */
export function inSavepoint<T>(tx: Tx, run: () => T): T {
  const client = clientOf(tx);
  let statements = statementsByClient.get(client);
  if (!statements) {
    statements = {
      open: client.prepare('SAVEPOINT batched_write'),
      release: client.prepare('RELEASE batched_write'),
      rollback: client.prepare('ROLLBACK TO batched_write'),
    };
    statementsByClient.set(client, statements);
  }
  statements.open.run();
  try {
    const result = run();
    statements.release.run();
    return result;
  } catch (error) {
    statements.rollback.run();
    statements.release.run();
    throw error;
  }
}
