-- Full-text search (issue 46): a GIN index of each searched text's words, in the workspace's own text search
-- configuration: PostgreSQL's 'simple' (lower case, no stemming, no stop words: any language, names as typed) with
-- accents removed first, as SQLite's FTS5 tables fold them (api/drizzle/0019_full_text_search.sql). unaccent ships
-- with PostgreSQL (contrib) and is a trusted extension: the database's owner may create it.
CREATE EXTENSION IF NOT EXISTS "unaccent";
--> statement-breakpoint
CREATE TEXT SEARCH CONFIGURATION "office_search" (COPY = pg_catalog.simple);
--> statement-breakpoint
ALTER TEXT SEARCH CONFIGURATION "office_search"
	ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH unaccent, simple;
--> statement-breakpoint
CREATE INDEX "chat_messages_search" ON "chat_messages" USING gin (to_tsvector('office_search'::regconfig, "text"));--> statement-breakpoint
CREATE INDEX "direct_messages_search" ON "direct_messages" USING gin (to_tsvector('office_search'::regconfig, "text"));--> statement-breakpoint
CREATE INDEX "task_comments_search" ON "task_comments" USING gin (to_tsvector('office_search'::regconfig, "text"));--> statement-breakpoint
CREATE INDEX "tasks_search" ON "tasks" USING gin (to_tsvector('office_search'::regconfig, "title" || ' ' || "description"));