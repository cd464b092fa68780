-- Full-text search of what the server holds (issue 46): one FTS5 index per kind, each row keyed by its message's or
-- task's rowid. Contentless (the text stays in its own table only) with contentless_delete, so a row can be dropped
-- and indexed again by rowid alone: the search indexer (api/src/domain/search/indexer.ts) keeps them current from
-- the change log, in batches, after the writes. Words split and fold as unicode61 does (accents removed); prefixes
-- of 2 and 3 letters are indexed so that a short word being typed is found as fast as a whole one. The person
-- tokens (`u` and the id's hex digits) put who may see a row in its index entry: a person's direct messages, and
-- an employee's tasks, are found without reading anyone else's.
CREATE VIRTUAL TABLE `chat_messages_search` USING fts5(
	`text`,
	content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
);
--> statement-breakpoint
CREATE VIRTUAL TABLE `direct_messages_search` USING fts5(
	`text`, `members`,
	content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
);
--> statement-breakpoint
CREATE VIRTUAL TABLE `tasks_search` USING fts5(
	`title`, `description`, `comments`, `audience`,
	content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
);
--> statement-breakpoint
INSERT INTO `chat_messages_search` (`rowid`, `text`)
SELECT `rowid`, `text` FROM `chat_messages` WHERE `deleted_at` IS NULL AND `text` <> '';
--> statement-breakpoint
INSERT INTO `direct_messages_search` (`rowid`, `text`, `members`)
SELECT `m`.`rowid`, `m`.`text`, 'u' || replace(`c`.`user_a`, '-', '') || ' u' || replace(`c`.`user_b`, '-', '')
FROM `direct_messages` `m` JOIN `conversations` `c` ON `c`.`id` = `m`.`conversation_id`
WHERE `m`.`deleted_at` IS NULL AND `m`.`text` <> '';
--> statement-breakpoint
INSERT INTO `tasks_search` (`rowid`, `title`, `description`, `comments`, `audience`)
SELECT `t`.`rowid`, `t`.`title`, `t`.`description`,
	coalesce((SELECT group_concat(`text`, char(10)) FROM `task_comments` WHERE `task_id` = `t`.`id`), ''),
	coalesce('u' || replace(`t`.`assigned_to`, '-', '') || ' ', '') || 'u' || replace(`t`.`assigned_by`, '-', '')
FROM `tasks` `t` WHERE `t`.`deleted_at` IS NULL;
--> statement-breakpoint
-- Everything up to the newest change is indexed.
INSERT INTO `meta` (`key`, `value`)
SELECT 'search_indexed_through', CAST(max(
	coalesce((SELECT max(`seq`) FROM `change_log`), 0),
	coalesce((SELECT CAST(`value` AS INTEGER) FROM `meta` WHERE `key` = 'change_log_floor'), 0)
) AS TEXT)
WHERE true
ON CONFLICT (`key`) DO UPDATE SET `value` = `excluded`.`value`;
