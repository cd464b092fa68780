import { sql, type AnyColumn, type SQL } from 'drizzle-orm';

/**
 * The text search configuration of the workspace (migration drizzle-pg/0006): PostgreSQL's 'simple' (lower case,
 * no stemming, no stop words: names and any language are found as typed) with accents removed first (the unaccent
 * extension), as SQLite's FTS5 tables fold them.
 */
export const SEARCH_CONFIGURATION = 'office_search';

/**
 * PostgreSQL's full-text document of these text columns, in SEARCH_CONFIGURATION. The GIN indexes of schema-pg.ts
 * are built on this expression and a search must name it the same way to use them (see full-text.ts).
 */
export function searchDocument(...columns: [AnyColumn, ...AnyColumn[]]): SQL {
  const joined = sql.join(
    columns.map((column) => sql`${column}`),
    sql` || ' ' || `,
  );
  return sql`to_tsvector('${sql.raw(SEARCH_CONFIGURATION)}'::regconfig, ${joined})`;
}
