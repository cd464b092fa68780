import { LRUCache } from 'lru-cache';
import type { Db } from './client';
import { dialect } from './dialect';

/** How long a kept row is trusted without a read: what bounds a change made to the file behind the server's back. */
export const KEPT_ROW_MS = 60_000;

interface Kept<V> {
  value: V;
  readAtMs: number;
}

/** Every KeptRows, so that a rollback can drop what each of them keeps. */
const everyKeptRows = new Set<{ forgetAll(db: Db): void }>();

/**
 * Rows that nearly every request reads (its session, its author), kept in memory per SQLite database. One process
 * owns that file, so the commands that change or end such a row drop it here in the statement that writes it, and
 * the next request reads it again; a row read more than KEPT_ROW_MS ago is read again anyway. A row read inside a
 * transaction may be one of its own writes: when a transaction or savepoint rolls back, everything kept for its
 * database is dropped (forgetAllKept). With PostgreSQL another node may change a row, so nothing is kept there and
 * every request reads.
 */
export class KeptRows<V extends object> {
  private readonly byDatabase = new WeakMap<object, LRUCache<string, Kept<V>>>();

  constructor(private readonly max: number) {
    everyKeptRows.add(this);
  }

  /** The row kept under `key`, unless it was read too long ago (or this is PostgreSQL). */
  get(db: Db, key: string, nowMs: number): V | undefined {
    const kept = this.of(db)?.get(key);
    return kept && nowMs - kept.readAtMs < KEPT_ROW_MS ? kept.value : undefined;
  }

  /** Keeps a row just read at `nowMs`. */
  set(db: Db, key: string, value: V, nowMs: number): void {
    this.of(db)?.set(key, { value, readAtMs: nowMs });
  }

  /** Drops the rows that `ended` picks: the write that changes them is running. */
  forget(db: Db, ended: (key: string, value: V) => boolean): void {
    const rows = this.of(db);
    if (!rows) return;
    const keys = [...rows.entries()].filter(([key, { value }]) => ended(key, value)).map(([key]) => key);
    for (const key of keys) rows.delete(key);
  }

  /** Drops one row: the write that changes it is running. */
  forgetKey(db: Db, key: string): void {
    this.of(db)?.delete(key);
  }

  /** Drops every row kept for `db`. */
  forgetAll(db: Db): void {
    this.byDatabase.get(db.$client)?.clear();
  }

  private of(db: Db): LRUCache<string, Kept<V>> | null {
    if (dialect === 'postgres') return null;
    let rows = this.byDatabase.get(db.$client);
    if (!rows) {
      rows = new LRUCache({ max: this.max });
      this.byDatabase.set(db.$client, rows);
    }
    return rows;
  }
}

/** A transaction or savepoint on `db` rolled back: what was kept while it ran may never have been committed. */
export function forgetAllKept(db: Db): void {
  for (const kept of everyKeptRows) kept.forgetAll(db);
}
