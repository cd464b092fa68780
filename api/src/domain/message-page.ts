import { and, asc, desc, eq, gt, lt, or, type SQL } from 'drizzle-orm';
import type { AnySQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { MessagePagePlace, MessagePageQuery } from '@office/sync-protocol';
import type { Db, Tx } from '../db/client';

/** A message table as a page reads it: its time and id, and which rows the page reads (a conversation's live ones). */
export interface MessageSource {
  table: SQLiteTable;
  createdAt: AnySQLiteColumn;
  id: AnySQLiteColumn;
  where: SQL | undefined;
}

/** A message's place in (createdAt, id) order. */
interface Place {
  createdAt: string;
  id: string;
}

const older = (source: MessageSource, place: Place): SQL =>
  or(lt(source.createdAt, place.createdAt), and(eq(source.createdAt, place.createdAt), lt(source.id, place.id))) as SQL;
const newer = (source: MessageSource, place: Place): SQL =>
  or(gt(source.createdAt, place.createdAt), and(eq(source.createdAt, place.createdAt), gt(source.id, place.id))) as SQL;

const selectPlaces = (db: Db | Tx, source: MessageSource, where: SQL | undefined) =>
  db
    .select({ createdAt: source.createdAt, id: source.id })
    .from(source.table)
    .where(and(source.where, where))
    .$dynamic();

async function readPlaces(
  db: Db | Tx,
  source: MessageSource,
  where: SQL | undefined,
  direction: 'older' | 'newer',
  limit?: number,
): Promise<Place[]> {
  const order =
    direction === 'older' ? [desc(source.createdAt), desc(source.id)] : [asc(source.createdAt), asc(source.id)];
  const query = selectPlaces(db, source, where).orderBy(...order);
  const rows = limit === undefined ? await query : await query.limit(limit);
  return rows.map((row) => ({ createdAt: String(row.createdAt), id: String(row.id) }));
}

const exists = async (db: Db | Tx, source: MessageSource, where: SQL): Promise<boolean> =>
  (await selectPlaces(db, source, where).limit(1)).length > 0;

/**
 * The ids of one page of messages, oldest first, and where it sits (see `messagePageQuerySchema`): the newest,
 * before, after or around a message. A page never ends inside a run of messages of one time: it takes the rest of
 * that run, so a device that holds a page holds every message of each time it spans. Null: the message the page
 * is asked relative to is unknown.
 */
export async function readMessagePage(
  db: Db | Tx,
  source: MessageSource,
  query: MessagePageQuery,
  placeOf: (id: string) => Promise<Place | undefined>,
): Promise<({ ids: string[] } & MessagePagePlace) | null> {
  const anchorId = query.before ?? query.after ?? query.around;
  const anchor = anchorId === undefined ? undefined : await placeOf(anchorId);
  if (anchorId !== undefined && !anchor) return null;
  let olderPart: Place[] = [];
  let newerPart: Place[] = [];
  if (query.after !== undefined && anchor)
    newerPart = await readPlaces(db, source, newer(source, anchor), 'newer', query.limit);
  else if (query.around !== undefined && anchor) {
    // The message itself and the older half; a message deleted since is not found.
    const half = Math.ceil(query.limit / 2);
    const atOrOlder = or(older(source, anchor), eq(source.id, anchor.id));
    olderPart = await readPlaces(db, source, atOrOlder, 'older', half);
    if (olderPart[0]?.id !== anchor.id) return null;
    newerPart = await readPlaces(db, source, newer(source, anchor), 'newer', query.limit - half);
  } else olderPart = await readPlaces(db, source, anchor ? older(source, anchor) : undefined, 'older', query.limit);
  const places = [...olderPart.reverse(), ...newerPart];
  const oldest = places[0];
  const newest = places.at(-1);
  if (!oldest || !newest) {
    // Nothing there: before the oldest, after the newest, or an empty conversation.
    return {
      ids: [],
      nextBefore: query.after !== undefined ? (anchorId ?? null) : null,
      nextAfter: query.before !== undefined ? (anchorId ?? null) : null,
    };
  }
  // The rest of the runs of one time the page ends in.
  const olderTies = await readPlaces(
    db,
    source,
    and(eq(source.createdAt, oldest.createdAt), lt(source.id, oldest.id)),
    'older',
  );
  const newerTies = await readPlaces(
    db,
    source,
    and(eq(source.createdAt, newest.createdAt), gt(source.id, newest.id)),
    'newer',
  );
  const all = [...olderTies.reverse(), ...places, ...newerTies];
  const first = all[0] ?? oldest;
  const last = all.at(-1) ?? newest;
  return {
    ids: all.map((place) => place.id),
    nextBefore: (await exists(db, source, older(source, first))) ? first.id : null,
    nextAfter: (await exists(db, source, newer(source, last))) ? last.id : null,
  };
}
