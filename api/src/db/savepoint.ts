import type Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import type { Tx } from './client';
import { dialect, runStatement } from './dialect';
import { forgetAllKept } from './kept-rows';
import { answersOfSentAhead, sendAhead } from './postgres-transaction';

interface SavepointStatements {
  open: Database.Statement;
  release: Database.Statement;
  rollback: Database.Statement;
}

const statementsByClient = new WeakMap<Database.Database, SavepointStatements>();

/**
 * Runs `run` in a savepoint of the open transaction `tx` (see transaction.ts): if it throws, its writes are
 * undone and the transaction goes on. Three statements prepared once per connection: a batch of hundreds of
 * writes opens one per write.
 */
export async function inSavepoint<T>(tx: Tx, run: () => T | Promise<T>): Promise<T> {
  if (dialect === 'postgres') return inPostgresSavepoint(tx, run);
  const client = tx.$client;
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
    const result = await run();
    statements.release.run();
    return result;
  } catch (error) {
    statements.rollback.run();
    statements.release.run();
    forgetAllKept(tx);
    throw error;
  }
}

/** The savepoint and its release go ahead of the write's own statements (see postgres-transaction.ts). */
async function inPostgresSavepoint<T>(tx: Tx, run: () => T | Promise<T>): Promise<T> {
  await sendAhead(tx, 'SAVEPOINT batched_write');
  try {
    const result = await run();
    await sendAhead(tx, 'RELEASE SAVEPOINT batched_write');
    return result;
  } catch (error) {
    await answersOfSentAhead(tx);
    await runStatement(tx, sql`ROLLBACK TO SAVEPOINT batched_write`);
    await runStatement(tx, sql`RELEASE SAVEPOINT batched_write`);
    throw error;
  }
}
