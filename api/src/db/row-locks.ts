import { sql } from 'drizzle-orm';
import type { AnySQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Tx } from './client';
import { dialect } from './dialect';
import { sendAheadQuery } from './postgres-transaction';

/**
 * Locks these rows of `table` for the rest of the transaction, before the command reads them to decide what to
 * write and whom it concerns. Writers of every node run at the same time on PostgreSQL, under READ COMMITTED: two
 * writes to one row take turns here, and the later one then reads what the earlier one committed (a task's status
 * version, its assignee who must hear of a comment, a message's reactions). The rows are locked in id order, in one
 * statement sent ahead of the read that follows it (no round trip of its own). SQLite runs one writer at a time.
 */
export async function lockRows(
  tx: Tx,
  table: SQLiteTable & { id: AnySQLiteColumn },
  ids: readonly string[],
): Promise<void> {
  if (dialect !== 'postgres' || ids.length === 0) return;
  const sorted = [...new Set(ids)].sort();
  await sendAheadQuery(tx, sql`SELECT 1 FROM ${table} WHERE ${table.id} IN ${sorted} ORDER BY ${table.id} FOR UPDATE`);
}
