import { and, asc, eq, gt, inArray, lte, max, sql, type SQL } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type { Db, Tx } from './client';
import { dialect } from './dialect';
import { logWritersBeforeSnapshot } from './postgres-transaction';
import { prepared } from './prepared';
import { changeAudience, changeLog, meta } from './schema';

/**
 * A place in the change log: a reader there holds every change at or before it. SQLite has one writer, so its
 * sequence numbers commit in order and a place is a sequence number (`xid` 0). On PostgreSQL writers run at the same
 * time and a sequence number is taken before its commit: a place is a pair (transaction id, sequence number), and
 * changes are read in that order, only those of transactions older than the oldest one still running (the visibility
 * horizon): nothing can still appear before what a reader has read (ARCHITECTURE.md, "Scale-out").
 */
export interface LogPosition {
  readonly xid: bigint;
  readonly seq: number;
}

/** Before every change: a reader here has none. */
export const logStart: LogPosition = { xid: 0n, seq: 0 };

/** Negative when `a` comes before `b`, 0 when they are one place, positive after. */
export function comparePositions(a: LogPosition, b: LogPosition): number {
  if (a.xid !== b.xid) return a.xid < b.xid ? -1 : 1;
  return Math.sign(a.seq - b.seq);
}

/** The later of two places. */
export const laterPosition = (a: LogPosition, b: LogPosition): LogPosition => (comparePositions(a, b) >= 0 ? a : b);

/** A place as the wire (a pull's cursor) and the `meta` table carry it: `seq` on SQLite, `xid:seq` on PostgreSQL. */
export const formatPosition = (position: LogPosition): string =>
  dialect === 'postgres' ? `${position.xid}:${position.seq}` : String(position.seq);

/** A place written by formatPosition for this dialect; null for anything else (another dialect's, a malformed one). */
export function parsePosition(text: string): LogPosition | null {
  const match = dialect === 'postgres' ? /^(\d{1,20}):(\d{1,16})$/.exec(text) : /^()(\d{1,16})$/.exec(text);
  if (!match) return null;
  const seq = Number(match[2]);
  return Number.isSafeInteger(seq) ? { xid: BigInt(match[1] || 0), seq } : null;
}

/**
 * A place that can be read (readablePosition) as one number, for tokens that carry one: the sequence number on
 * SQLite, the horizon's transaction id on PostgreSQL (such a place is before that transaction's first change).
 */
export const placeNumber = (position: LogPosition): string =>
  dialect === 'postgres' ? String(position.xid) : String(position.seq);

/** The place placeNumber wrote; null for anything else. */
export function placeOfNumber(text: string): LogPosition | null {
  if (!/^\d{1,16}$/.test(text)) return null;
  return dialect === 'postgres' ? { xid: BigInt(text), seq: 0 } : { xid: 0n, seq: Number(text) };
}

/** One change-log row as a reader takes it. */
export interface LoggedChange {
  position: LogPosition;
  entity: string;
  entityId: string;
}

/** A change as a node's live feed takes it: with everyone it concerns (its principals). */
export interface FedChange extends LoggedChange {
  principals: string[];
}

/** The rows of a statement run on PostgreSQL (the handle is typed as SQLite's, see schema.ts). */
async function rowsOf<Row>(handle: Db | Tx, query: SQL): Promise<Row[]> {
  return (await (handle as unknown as NodePgDatabase).execute(query)).rows as Row[];
}

/** A place as PostgreSQL compares it with `(xid, seq)`. */
const pgPosition = (position: LogPosition): SQL => sql`(${position.xid.toString()}::xid8, ${position.seq}::bigint)`;

/**
 * The transactions that may still write this database's change log, read before the snapshot that reads the log: the
 * next transaction id then (`xmax`), and the ids (32-bit, as pg_locks has them) of the transactions holding the log's
 * write lock. Every writing transaction takes that lock first, before it has an id (postgres-transaction.ts), so one
 * with an older id either held the lock then or had ended, and one that ended has all its changes in a later snapshot.
 */
export interface LogWriters {
  xmax: string;
  writers: string[];
}

/** The ids (32-bit text) of the transactions holding this database's change log write lock as pg_locks is read. */
const LOG_WRITER_IDS = sql`SELECT DISTINCT w.transactionid::text
  FROM pg_locks l JOIN pg_locks w ON w.locktype = 'transactionid' AND w.virtualtransaction = l.virtualtransaction
  WHERE l.locktype = 'relation' AND l.mode = 'RowExclusiveLock' AND l.relation = 'change_log'::regclass
    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND w.transactionid IS NOT NULL`;

export const LOG_WRITERS_QUERY = sql`SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xmax,
  ARRAY(${LOG_WRITER_IDS}) AS writers`;

/** Reads LOG_WRITERS_QUERY; its own statement, so that it comes before the snapshot of the statement that uses it. */
export async function logWritersNow(handle: Db | Tx): Promise<LogWriters> {
  const [row] = await rowsOf<LogWriters>(handle, LOG_WRITERS_QUERY);
  if (!row) throw new Error('reading the change log writers read nothing');
  return row;
}

/**
 * The visibility horizon of this database's change log, in the statement's snapshot: the oldest transaction of
 * `writers` still running in it, or the next transaction id when `writers` were read. Every change below it has
 * committed and is in the snapshot. Transactions of other databases on the same server do not hold it back, as
 * pg_snapshot_xmin would (it is the whole server's).
 */
const horizonOf = (writers: LogWriters): SQL => sql`(SELECT x FROM (
    SELECT x FROM pg_snapshot_xip(pg_current_snapshot()) AS x
    WHERE (x::text::numeric % 4294967296)::text = ANY(${`{${writers.writers.join(',')}}`}::text[])
    UNION ALL SELECT ${writers.xmax}::xid8
  ) AS candidates ORDER BY x LIMIT 1)`;

/**
 * This database's horizon in one statement, its writers read in the statement itself (after its snapshot, so the
 * snapshot may lack changes below it: a reader uses horizonOf): once the statement has run, every writer with an older
 * id has ended, and a later reader's horizon is past them. A writer keeps it back; a transaction of another database
 * does not, as pg_snapshot_xmin's would.
 */
export const LOG_HORIZON_NOW = sql`(SELECT x FROM (
    SELECT x FROM pg_snapshot_xip(pg_current_snapshot()) AS x
    WHERE (x::text::numeric % 4294967296)::text IN (${LOG_WRITER_IDS})
    UNION ALL SELECT pg_snapshot_xmax(pg_current_snapshot())
  ) AS candidates ORDER BY x LIMIT 1)`;

/** The place of a row read back from PostgreSQL (`xid` as text). */
const positionOfRow = (row: { xid: string; seq: string | number }): LogPosition => ({
  xid: BigInt(row.xid),
  seq: Number(row.seq),
});

/** The `meta` key of the change-log floor: every change at or before it has been compacted away. */
export const CHANGE_LOG_FLOOR_KEY = 'change_log_floor';

/** A place kept in `meta` (the floor, the push queue's cursor), or the log's start when none is kept. */
export async function storedPosition(handle: Db | Tx, key: string): Promise<LogPosition> {
  const [row] = await prepared(handle, `meta.position.${key}`, (builder) =>
    builder
      .select({ value: meta.value })
      .from(meta)
      .where(eq(meta.key, sql.placeholder('key')))
      .prepare(),
  ).execute({ key });
  return (row && parsePosition(row.value)) ?? logStart;
}

/** Keeps a place in `meta`. */
export async function storePosition(handle: Db | Tx, key: string, position: LogPosition): Promise<void> {
  const value = formatPosition(position);
  await handle.insert(meta).values({ key, value }).onConflictDoUpdate({ target: meta.key, set: { value } });
}

/** The oldest place the log can still serve from; a reader before it has missed compacted changes. */
export const changeLogFloor = (handle: Db | Tx): Promise<LogPosition> => storedPosition(handle, CHANGE_LOG_FLOOR_KEY);

/**
 * Up to where the log can be read now: no change at or before it can still appear. On SQLite the newest change (or
 * the floor, once compaction has emptied the log); on PostgreSQL the visibility horizon. Inside a snapshot
 * transaction it is the snapshot's, which every read of that transaction agrees with.
 */
export async function readablePosition(handle: Db | Tx): Promise<LogPosition> {
  if (dialect === 'postgres') {
    const writers = (await logWritersBeforeSnapshot(handle as Tx)) ?? (await logWritersNow(handle));
    const [row] = await rowsOf<{ horizon: string }>(handle, sql`SELECT ${horizonOf(writers)}::text AS horizon`);
    return { xid: BigInt(row?.horizon ?? 0), seq: 0 };
  }
  const [newest] = await prepared(handle, 'changeLog.head', (builder) =>
    builder
      .select({ v: max(changeLog.seq) })
      .from(changeLog)
      .prepare(),
  ).execute();
  return laterPosition({ xid: 0n, seq: newest?.v ?? 0 }, await changeLogFloor(handle));
}

/**
 * The changes after `after` seen by any of `principals`, in order, at most `limit`, none after `upTo` (a place from
 * readablePosition in the same transaction). A change's audience is on its own row when it is one principal, in
 * change_audience when it is several.
 */
export async function changesOf(
  tx: Tx,
  principals: string[],
  after: LogPosition,
  upTo: LogPosition,
  limit: number,
): Promise<LoggedChange[]> {
  if (dialect === 'postgres') {
    const rows = await rowsOf<{ seq: string; xid: string; entity: string; entityId: string }>(
      tx,
      sql`SELECT seq, xid::text AS xid, entity, entity_id AS "entityId" FROM (
        SELECT c.seq, c.xid, c.entity, c.entity_id FROM change_log c
        WHERE c.principal IN ${principals} AND (c.xid, c.seq) > ${pgPosition(after)} AND c.xid < ${upTo.xid.toString()}::xid8
        UNION
        SELECT c.seq, c.xid, c.entity, c.entity_id FROM change_audience a JOIN change_log c ON c.seq = a.seq
        WHERE a.principal IN ${principals} AND (a.xid, a.seq) > ${pgPosition(after)} AND a.xid < ${upTo.xid.toString()}::xid8
      ) page ORDER BY page.xid, page.seq LIMIT ${limit}`,
    );
    return rows.map((row) => ({ position: positionOfRow(row), entity: row.entity, entityId: row.entityId }));
  }
  const entry = { seq: changeLog.seq, entity: changeLog.entity, entityId: changeLog.entityId };
  const rows = await tx
    .select(entry)
    .from(changeLog)
    .where(and(gt(changeLog.seq, after.seq), lte(changeLog.seq, upTo.seq), inArray(changeLog.principal, principals)))
    .union(
      tx
        .select(entry)
        .from(changeLog)
        .innerJoin(changeAudience, eq(changeAudience.seq, changeLog.seq))
        .where(
          and(
            gt(changeAudience.seq, after.seq),
            lte(changeAudience.seq, upTo.seq),
            inArray(changeAudience.principal, principals),
          ),
        ),
    )
    .orderBy(asc(changeLog.seq))
    .limit(limit);
  return rows.map((row) => ({ position: { xid: 0n, seq: row.seq }, entity: row.entity, entityId: row.entityId }));
}

/**
 * PostgreSQL: every change after `after` below the horizon, in order, at most `limit`, with its principals; the
 * horizon; and whether committed changes wait behind it (an older transaction still runs), so that a reader looks
 * again soon. One statement: the rows and the horizon come from one snapshot.
 */
export async function everyChangeAfter(
  db: Db,
  after: LogPosition,
  limit: number,
): Promise<{ changes: FedChange[]; readable: LogPosition; waiting: boolean }> {
  if (dialect !== 'postgres') throw new Error('the live feed reads the log on PostgreSQL only');
  const writers = await logWritersNow(db);
  const [row] = await rowsOf<{
    horizon: string;
    waiting: boolean;
    changes: { seq: number; xid: string; entity: string; entityId: string; principals: string[] }[];
  }>(
    db,
    sql`WITH h AS (SELECT ${horizonOf(writers)} AS horizon),
      page AS (
        SELECT c.seq, c.xid, c.entity, c.entity_id, c.principal FROM change_log c, h
        WHERE (c.xid, c.seq) > ${pgPosition(after)} AND c.xid < h.horizon
        ORDER BY c.xid, c.seq LIMIT ${limit}
      )
      SELECT (SELECT horizon::text FROM h) AS horizon,
        EXISTS (SELECT 1 FROM change_log c, h WHERE c.xid >= h.horizon) AS waiting,
        coalesce((SELECT json_agg(json_build_object(
          'seq', page.seq, 'xid', page.xid::text, 'entity', page.entity, 'entityId', page.entity_id,
          'principals', CASE WHEN page.principal IS NOT NULL THEN json_build_array(page.principal)
            ELSE (SELECT coalesce(json_agg(a.principal), '[]'::json) FROM change_audience a WHERE a.seq = page.seq) END
        ) ORDER BY page.xid, page.seq) FROM page), '[]'::json) AS changes`,
  );
  if (!row) throw new Error('the live feed read nothing, not even the horizon');
  return {
    changes: row.changes.map((change) => ({
      position: positionOfRow(change),
      entity: change.entity,
      entityId: change.entityId,
      principals: change.principals,
    })),
    readable: { xid: BigInt(row.horizon), seq: 0 },
    waiting: row.waiting,
  };
}

/**
 * Where a reader stands once it has every change after `after` up to `upTo` (a place from readablePosition in the same
 * transaction): on PostgreSQL the newest of those changes, or `after` when there is none, so that a reader's place
 * moves only when the log does (the horizon moves with every transaction of the server, of any database, and a pull
 * that brought nothing would otherwise hand back a new cursor each time); `upTo` itself on SQLite, whose places are
 * the log's own. Nothing can still appear between the place and `upTo`, so a reader there misses nothing.
 */
export async function reachedPosition(tx: Tx, after: LogPosition, upTo: LogPosition): Promise<LogPosition> {
  if (dialect !== 'postgres') return laterPosition(upTo, after);
  const [row] = await rowsOf<{ xid: string; seq: string }>(
    tx,
    sql`SELECT xid::text AS xid, seq FROM change_log
      WHERE (xid, seq) > ${pgPosition(after)} AND xid < ${upTo.xid.toString()}::xid8
      ORDER BY xid DESC, seq DESC LIMIT 1`,
  );
  return row ? positionOfRow(row) : after;
}

/** Whether any change lies after `from` and up to `upTo` (a place from readablePosition in the same transaction). */
export async function changedBetween(tx: Tx, from: LogPosition, upTo: LogPosition): Promise<boolean> {
  if (comparePositions(upTo, from) <= 0) return false;
  if (dialect !== 'postgres') return true;
  const [row] = await rowsOf<{ changed: boolean }>(
    tx,
    sql`SELECT EXISTS (SELECT 1 FROM change_log WHERE (xid, seq) > ${pgPosition(from)} AND xid < ${upTo.xid.toString()}::xid8) AS changed`,
  );
  return row?.changed ?? false;
}

/** A new team chat message's change, on SQLite (PostgreSQL's statements below spell it in SQL). */
const teamChatCreate = and(
  eq(changeLog.principal, 'team'),
  eq(changeLog.entity, 'chatMessage'),
  eq(changeLog.op, 'create'),
);

/** The team chat's new messages (their `create` changes) after `after`, readable now, in order, at most `limit`. */
export async function teamChatCreatesAfter(
  handle: Db | Tx,
  after: LogPosition,
  limit: number,
): Promise<{ created: { position: LogPosition; id: string }[]; readable: LogPosition }> {
  if (dialect === 'postgres') {
    const writers = (await logWritersBeforeSnapshot(handle as Tx)) ?? (await logWritersNow(handle));
    const [row] = await rowsOf<{ horizon: string; created: { seq: number; xid: string; id: string }[] }>(
      handle,
      sql`WITH h AS (SELECT ${horizonOf(writers)} AS horizon),
        page AS (
          SELECT c.seq, c.xid, c.entity_id FROM change_log c, h
          WHERE c.principal = 'team' AND (c.xid, c.seq) > ${pgPosition(after)} AND c.xid < h.horizon
            AND c.entity = 'chatMessage' AND c.op = 'create'
          ORDER BY c.xid, c.seq LIMIT ${limit}
        )
        SELECT (SELECT horizon::text FROM h) AS horizon,
          coalesce((SELECT json_agg(json_build_object('seq', seq, 'xid', xid::text, 'id', entity_id) ORDER BY xid, seq)
            FROM page), '[]'::json) AS created`,
    );
    if (!row) throw new Error('reading the team chat read nothing, not even the horizon');
    return {
      created: row.created.map((change) => ({ position: positionOfRow(change), id: change.id })),
      readable: { xid: BigInt(row.horizon), seq: 0 },
    };
  }
  // Read first: what commits after it is after it, and comes next time.
  const readable = await readablePosition(handle);
  const rows = await handle
    .select({ seq: changeLog.seq, id: changeLog.entityId })
    .from(changeLog)
    .where(and(teamChatCreate, gt(changeLog.seq, after.seq), lte(changeLog.seq, readable.seq)))
    .orderBy(asc(changeLog.seq))
    .limit(limit);
  return { created: rows.map((row) => ({ position: { xid: 0n, seq: row.seq }, id: row.id })), readable };
}

/** The place of the first team chat message created after `after`, if there is one (readable or not yet). */
export async function firstTeamChatCreateAfter(handle: Db | Tx, after: LogPosition): Promise<LogPosition | null> {
  if (dialect === 'postgres') {
    const [row] = await rowsOf<{ seq: string; xid: string }>(
      handle,
      sql`SELECT c.seq, c.xid::text AS xid FROM change_log c
        WHERE c.principal = 'team' AND (c.xid, c.seq) > ${pgPosition(after)} AND c.entity = 'chatMessage' AND c.op = 'create'
        ORDER BY c.xid, c.seq LIMIT 1`,
    );
    return row ? positionOfRow(row) : null;
  }
  const [row] = await handle
    .select({ seq: changeLog.seq })
    .from(changeLog)
    .where(and(teamChatCreate, gt(changeLog.seq, after.seq)))
    .orderBy(asc(changeLog.seq))
    .limit(1);
  return row ? { xid: 0n, seq: row.seq } : null;
}

/** The place just before `position`: every other place before it is at or before this one. */
export const justBefore = (position: LogPosition): LogPosition => ({ xid: position.xid, seq: position.seq - 1 });

/**
 * Drops every change at or before `upTo` and moves the floor to the last one dropped (never back): readers before it
 * bootstrap, readers at or after it miss nothing (on PostgreSQL a reader sits at the horizon of its last pull, which
 * moves with every transaction: a floor there would send every device to a bootstrap). The caller keeps `upTo`
 * readable (nothing can still appear before it).
 */
export async function compactUpTo(tx: Tx, upTo: LogPosition): Promise<void> {
  let dropped: LogPosition | null = null;
  if (dialect === 'postgres') {
    const [last] = await rowsOf<{ xid: string; seq: string }>(
      tx,
      sql`WITH gone AS (DELETE FROM change_log WHERE (xid, seq) <= ${pgPosition(upTo)} RETURNING xid, seq)
        SELECT gone.xid::text AS xid, gone.seq FROM gone ORDER BY gone.xid DESC, gone.seq DESC LIMIT 1`,
    );
    if (last) dropped = positionOfRow(last);
  } else {
    const [last] = await tx
      .select({ seq: max(changeLog.seq) })
      .from(changeLog)
      .where(lte(changeLog.seq, upTo.seq));
    if (last?.seq != null) dropped = { xid: 0n, seq: last.seq };
    await tx.delete(changeLog).where(lte(changeLog.seq, upTo.seq));
  }
  if (dropped) await storePosition(tx, CHANGE_LOG_FLOOR_KEY, laterPosition(await changeLogFloor(tx), dropped));
}

/**
 * The floor a restore sets (see moveChangeLogPast): `jump` sequence numbers past the restored history. On PostgreSQL
 * the restored changes carry the transaction ids of the cluster they were written on, which say nothing about this
 * one's: they are dropped (every device downloads the workspace again anyway), and the floor is this transaction's
 * own id, so every change after the restore comes after it.
 */
export async function restoredFloor(tx: Tx, jump: number): Promise<LogPosition> {
  if (dialect === 'postgres') {
    const [row] = await rowsOf<{ xid: string; newest: string | null }>(
      tx,
      sql`SELECT pg_current_xact_id()::text AS xid, (SELECT max(seq) FROM change_log) AS newest`,
    );
    await rowsOf(tx, sql`DELETE FROM change_log`);
    const floor = await changeLogFloor(tx);
    return { xid: BigInt(row?.xid ?? 0), seq: Math.max(Number(row?.newest ?? 0), floor.seq) + jump };
  }
  return { xid: 0n, seq: (await readablePosition(tx)).seq + jump };
}
