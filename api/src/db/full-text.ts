import { and, desc, eq, exists, lt, or, sql, type SQL } from 'drizzle-orm';
import type { AnySQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { idSchema, prefixMinLength, type ServerSearchKind } from '@office/sync-protocol';
import type { Db, Tx } from './client';
import { dialect } from './dialect';
import { changeLog, chatMessages, directMessages, meta, taskComments, tasks } from './schema';
import { SEARCH_CONFIGURATION, searchDocument } from './search-document';

// Full-text search in each dialect: SQLite's FTS5 tables (drizzle/0019_full_text_search.sql), kept current in the
// background by the search indexer (domain/search/indexer.ts), and PostgreSQL's GIN indexes (schema-pg.ts), which
// PostgreSQL keeps current itself. The domain says what a person may see; this file finds the matching rows.

/** Whether the search indexes are kept by the search indexer (SQLite) rather than by the database (PostgreSQL). */
export const indexedInBackground = dialect === 'sqlite';

/** The `meta` key of the indexer's place in the change log: every change up to it is in the search indexes. */
export const SEARCH_INDEXED_THROUGH_KEY = 'search_indexed_through';

/** A person as the search indexes name them: `u` and their id's hex digits, one word for FTS5. */
export const personToken = (userId: string): string => `u${userId.replaceAll('-', '')}`;

/** One kind's rows and its FTS5 table. */
interface SearchedTable {
  table: SQLiteTable & { id: AnySQLiteColumn; createdAt: AnySQLiteColumn };
  fts: string;
  /** The columns a query's words are looked for in. */
  textColumns: string;
  /** The column of the person tokens of who may see the row, if the index holds them. */
  audienceColumn: string | null;
}

const searched: Record<ServerSearchKind, SearchedTable> = {
  chat: { table: chatMessages, fts: 'chat_messages_search', textColumns: '{text}', audienceColumn: null },
  direct: { table: directMessages, fts: 'direct_messages_search', textColumns: '{text}', audienceColumn: 'members' },
  task: { table: tasks, fts: 'tasks_search', textColumns: '{title description comments}', audienceColumn: 'audience' },
};

/** A word as an FTS5 string (no operator inside it means anything). */
const ftsString = (word: string) => `"${word.replaceAll('"', '""')}"`;

/** FTS5's query of these words: each must be there, the last also as a prefix (see prefixMinLength). */
export function ftsQuery(kind: ServerSearchKind, words: readonly string[], audience: string | null): string {
  const { textColumns, audienceColumn } = searched[kind];
  const terms = words.map((word, at) =>
    at === words.length - 1 && word.length >= prefixMinLength ? `${ftsString(word)}*` : ftsString(word),
  );
  const text = `${textColumns} : (${terms.join(' ')})`;
  return audience !== null && audienceColumn !== null ? `${text} AND ${audienceColumn} : ${ftsString(audience)}` : text;
}

/** PostgreSQL's query of these words: each must be there, the last also as a prefix. */
function tsQuery(words: readonly string[]): SQL {
  const terms = words.map((word, at) => {
    const quoted = `'${word.replaceAll("'", "''").replaceAll('\\', '\\\\')}'`;
    return at === words.length - 1 && word.length >= prefixMinLength ? `${quoted}:*` : quoted;
  });
  return sql`to_tsquery(${SEARCH_CONFIGURATION}::regconfig, ${terms.join(' & ')})`;
}

/** What a search asks of one kind. */
export interface MatchRequest {
  kind: ServerSearchKind;
  words: readonly string[];
  /** The searcher's token when the index holds who may see a row (direct messages, an employee's tasks). */
  audience: string | null;
  /** The rows the searcher may see, as a condition on the kind's table (the same rules as a pull). */
  visible: SQL | undefined;
  /** A cursor from a previous page's `next`. */
  before: string | null;
  limit: number;
}

/** The ids of a page of matches, newest first, and the cursor of the page after it (null: no more). */
export interface MatchPage {
  ids: string[];
  next: string | null;
}

/** A cursor this dialect did not give: the caller refuses the request. */
export class BadSearchCursor extends Error {
  override readonly name = 'BadSearchCursor';
}

/** How many index entries one SQLite read takes, and how many one page may pass over (rows the searcher may not see). */
const SCAN_BATCH = 200;
const SCAN_MAX = 5_000;

/** The rows of a kind that match, newest first: by the newest stored on SQLite, by creation time on PostgreSQL. */
export function matchingIds(db: Db | Tx, request: MatchRequest): Promise<MatchPage> {
  return dialect === 'postgres' ? pgMatches(db, request) : Promise.resolve(sqliteMatches(db, request));
}

/**
 * SQLite: the FTS5 table gives rowids newest first (one read of up to SCAN_BATCH, stopping early), the kind's table
 * keeps those the searcher may see. A page passes over at most SCAN_MAX entries, so a person who may see few of many
 * matches gets a short page and a cursor rather than a slow answer. The cursor is the last rowid passed.
 */
function sqliteMatches(db: Db | Tx, request: MatchRequest): MatchPage {
  const { table, fts } = searched[request.kind];
  const match = ftsQuery(request.kind, request.words, request.audience);
  if (request.before !== null && !/^\d{1,15}$/.test(request.before)) throw new BadSearchCursor();
  // From the newest, without a bound: FTS5 then walks its entries newest first and stops at the limit (a `rowid <`
  // bound made it read more of them, up to ten times the time for a common word).
  const fromNewest = db.$client.prepare(
    `SELECT rowid FROM "${fts}" WHERE "${fts}" MATCH ? ORDER BY rowid DESC LIMIT ?`,
  );
  const fromBelow = db.$client.prepare(
    `SELECT rowid FROM "${fts}" WHERE "${fts}" MATCH ? AND rowid < ? ORDER BY rowid DESC LIMIT ?`,
  );
  const ids: string[] = [];
  /** Every entry above it has been passed: where the next page starts. */
  let below = request.before === null ? Number.MAX_SAFE_INTEGER : Number(request.before);
  // A page's worth first (most matches are the searcher's to see), then larger reads past those they may not see.
  let batch = request.limit + 1;
  for (let passed = 0; passed < SCAN_MAX; batch = SCAN_BATCH) {
    const rowids = (
      below === Number.MAX_SAFE_INTEGER
        ? fromNewest.pluck().all(match, batch)
        : fromBelow.pluck().all(match, below, batch)
    ) as number[];
    const rows = rowids.length
      ? (db
          .select({ rowid: sql<number>`${table}.rowid`, id: table.id })
          .from(table)
          .where(and(sql`${table}.rowid IN (${sql.join(rowids, sql`, `)})`, request.visible))
          .all() as { rowid: number; id: string }[])
      : [];
    const visible = new Map(rows.map((row) => [row.rowid, row.id]));
    for (const rowid of rowids) {
      const id = visible.get(rowid);
      if (id === undefined) continue;
      // One more than the page holds: there is a next page, and it starts below the last one shown.
      if (ids.length === request.limit) return { ids, next: String(below) };
      ids.push(id);
      below = rowid;
    }
    if (rowids.length < batch) return { ids, next: null };
    passed += rowids.length;
    below = rowids.at(-1) ?? below;
  }
  return { ids, next: String(below) };
}

/** PostgreSQL: the GIN index's matches the searcher may see, newest first; the cursor is the last one's time and id. */
async function pgMatches(db: Db | Tx, request: MatchRequest): Promise<MatchPage> {
  const { table } = searched[request.kind];
  const query = tsQuery(request.words);
  const matches =
    request.kind === 'task'
      ? or(
          sql`${searchDocument(tasks.title, tasks.description)} @@ ${query}`,
          exists(
            db
              .select({ one: sql`1` })
              .from(taskComments)
              .where(and(eq(taskComments.taskId, tasks.id), sql`${searchDocument(taskComments.text)} @@ ${query}`)),
          ),
        )
      : sql`${searchDocument(request.kind === 'chat' ? chatMessages.text : directMessages.text)} @@ ${query}`;
  let older: SQL | undefined;
  if (request.before !== null) {
    const [at, id] = request.before.split('|');
    if (!at || !id || Number.isNaN(Date.parse(at)) || !idSchema.safeParse(id).success) throw new BadSearchCursor();
    older = or(lt(table.createdAt, at), and(eq(table.createdAt, at), lt(table.id, id)));
  }
  const rows = (await db
    .select({ id: table.id, createdAt: table.createdAt })
    .from(table)
    .where(and(matches, request.visible, older))
    .orderBy(desc(table.createdAt), desc(table.id))
    .limit(request.limit + 1)) as { id: string; createdAt: string }[];
  const page = rows.slice(0, request.limit);
  const last = page.at(-1);
  return {
    ids: page.map((row) => row.id),
    next: rows.length > request.limit && last ? `${last.createdAt}|${last.id}` : null,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Keeping SQLite's indexes current (the search indexer calls these inside its transactions).

/** How far the search indexes are; null on PostgreSQL, whose indexes are always current. */
export async function searchIndexedThrough(db: Db | Tx): Promise<number | null> {
  if (!indexedInBackground) return null;
  const [row] = await db.select({ value: meta.value }).from(meta).where(eq(meta.key, SEARCH_INDEXED_THROUGH_KEY));
  return row ? Number(row.value) : 0;
}

/** The indexer has indexed every change up to `seq`. */
export async function moveSearchIndexedThrough(tx: Tx, seq: number): Promise<void> {
  const value = String(seq);
  await tx
    .insert(meta)
    .values({ key: SEARCH_INDEXED_THROUGH_KEY, value })
    .onConflictDoUpdate({ target: meta.key, set: { value } });
}

/** Change-log rows after `seq`, oldest first: what the indexer reads. */
export async function changesAfter(
  tx: Tx,
  seq: number,
  limit: number,
): Promise<{ seq: number; entity: string; entityId: string }[]> {
  return tx
    .select({ seq: changeLog.seq, entity: changeLog.entity, entityId: changeLog.entityId })
    .from(changeLog)
    .where(sql`${changeLog.seq} > ${seq}`)
    .orderBy(changeLog.seq)
    .limit(limit);
}

/**
 * What each kind's index holds of a row, as SQL over the kind's table: the rows to index are the live ones with
 * text. The migration made the indexes with the same statements, over every row.
 */
const indexing: Record<ServerSearchKind, { columns: string; select: string }> = {
  chat: {
    columns: 'rowid, text',
    select: `SELECT m.rowid, m.text FROM chat_messages m WHERE m.deleted_at IS NULL AND m.text <> ''`,
  },
  direct: {
    columns: 'rowid, text, members',
    select: `SELECT m.rowid, m.text, 'u' || replace(c.user_a, '-', '') || ' u' || replace(c.user_b, '-', '')
      FROM direct_messages m JOIN conversations c ON c.id = m.conversation_id
      WHERE m.deleted_at IS NULL AND m.text <> ''`,
  },
  task: {
    columns: 'rowid, title, description, comments, audience',
    select: `SELECT t.rowid, t.title, t.description,
        coalesce((SELECT group_concat(text, char(10)) FROM task_comments WHERE task_id = t.id), ''),
        coalesce('u' || replace(t.assigned_to, '-', '') || ' ', '') || 'u' || replace(t.assigned_by, '-', '')
      FROM tasks t WHERE t.deleted_at IS NULL`,
  },
};

const tableAlias: Record<ServerSearchKind, string> = { chat: 'm', direct: 'm', task: 't' };
const tableName: Record<ServerSearchKind, string> = { chat: 'chat_messages', direct: 'direct_messages', task: 'tasks' };

/**
 * Indexes these rows of a kind again as they are now (a row gone or deleted leaves the index). Runs on the one
 * connection, inside the caller's transaction.
 */
export function reindexRows(tx: Tx, kind: ServerSearchKind, ids: readonly string[]): void {
  if (ids.length === 0) return;
  const client = tx.$client;
  const { fts } = searched[kind];
  const list = JSON.stringify(ids);
  const rowids = client
    .prepare(`SELECT rowid FROM "${tableName[kind]}" WHERE id IN (SELECT value FROM json_each(?))`)
    .pluck()
    .all(list) as number[];
  const remove = client.prepare(`DELETE FROM "${fts}" WHERE rowid = ?`);
  for (const rowid of rowids) remove.run(rowid);
  const { columns, select } = indexing[kind];
  client
    .prepare(
      `INSERT INTO "${fts}" (${columns}) ${select} AND ${tableAlias[kind]}.id IN (SELECT value FROM json_each(?))`,
    )
    .run(list);
}

/** Empties every index and fills it again from the tables: after the change log lost changes the indexer had not read. */
export function rebuildIndexes(tx: Tx): void {
  for (const kind of Object.keys(searched) as ServerSearchKind[]) {
    const { fts } = searched[kind];
    const { columns, select } = indexing[kind];
    tx.$client.prepare(`INSERT INTO "${fts}" ("${fts}") VALUES ('delete-all')`).run();
    tx.$client.prepare(`INSERT INTO "${fts}" (${columns}) ${select}`).run();
  }
}

/** Every change of these entities can change what a search finds. */
export const searchedEntities: Record<string, ServerSearchKind> = {
  chatMessage: 'chat',
  directMessage: 'direct',
  task: 'task',
};
