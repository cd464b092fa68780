import { eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { idsParam, inIdsParam, prepared, preparedSelect } from '../db/prepared';
import { KeptRows } from '../db/kept-rows';
import { users } from '../db/schema';

/** Reads `ids` in slices SQLite's variable limit allows. */
export async function inSlices<T>(ids: readonly string[], read: (slice: string[]) => Promise<T[]>): Promise<T[]> {
  const rows: T[] = [];
  for (let i = 0; i < ids.length; i += 500) rows.push(...(await read(ids.slice(i, i + 500))));
  return rows;
}

export type UserBrief = Pick<typeof users.$inferSelect, 'id' | 'name' | 'avatar' | 'role'>;
const briefColumns = { id: users.id, name: users.name, avatar: users.avatar, role: users.role };

/** The people these ids name (deactivated ones too: history keeps their names), by id: only those, never the whole directory. */
export async function usersById(db: Db | Tx, ids: readonly string[]): Promise<Map<string, UserBrief>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map<string, UserBrief>();
  const query = prepared(db, 'users.briefByIds', (handle) =>
    handle.select(briefColumns).from(users).where(inIdsParam(users.id)).prepare(),
  );
  return new Map((await query.execute(idsParam(unique))).map((user) => [user.id, user]));
}

/** Authors, about one per person writing: updateDetails and setAvatar drop the one they change (see KeptRows). */
const authors = new KeptRows<UserBrief>(10_000);

/** One person by id, as usersById reads them: the author of a write, read by its primary key alone, or kept. */
export async function userById(db: Db | Tx, id: string): Promise<UserBrief | undefined> {
  const nowMs = Date.now();
  const kept = authors.get(db, id, nowMs);
  if (kept) return kept;
  const [user] = await preparedSelect(db, 'users.briefById', briefColumns, (handle, fields) =>
    handle
      .select(fields)
      .from(users)
      .where(eq(users.id, sql.placeholder('id'))),
  )({ id });
  if (user) authors.set(db, id, user, nowMs);
  return user;
}

/** A person's name or photo is being changed: the next write they author reads them again. */
export const forgetAuthor = (db: Db | Tx, id: string): void => authors.forgetKey(db, id);
