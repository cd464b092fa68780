import { eq, inArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { prepared } from '../db/prepared';
import { users } from '../db/schema';

/** Reads `ids` in slices SQLite's variable limit allows. */
export function inSlices<T>(ids: readonly string[], read: (slice: string[]) => T[]): T[] {
  const rows: T[] = [];
  for (let i = 0; i < ids.length; i += 500) rows.push(...read(ids.slice(i, i + 500)));
  return rows;
}

/** The people these ids name (deactivated ones too: history keeps their names), by id: only those, never the whole directory. */
export function usersById(db: Db | Tx, ids: readonly string[]) {
  const unique = [...new Set(ids)];
  if (unique.length === 1) {
    // The author of a message just written: the prepared query every send runs.
    const user = prepared(db, 'users.briefById', (handle) =>
      handle
        .select({ id: users.id, name: users.name, avatar: users.avatar, role: users.role })
        .from(users)
        .where(eq(users.id, sql.placeholder('id')))
        .prepare(),
    ).get({ id: unique[0] });
    return new Map(user ? [[user.id, user]] : []);
  }
  return new Map(
    inSlices(unique, (slice) =>
      db
        .select({ id: users.id, name: users.name, avatar: users.avatar, role: users.role })
        .from(users)
        .where(inArray(users.id, slice))
        .all(),
    ).map((user) => [user.id, user]),
  );
}
