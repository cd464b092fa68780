-- Team chat notices stop being stored per member (issue 14): each person's stored chat_message notifications
-- become their read marker and individual read marks, keeping what was read and unread. Other notifications
-- stay as they are.
--
-- 1. The marker. Chat notices start at the person's oldest stored one (the seed and imports may date
--    messages before the account). readThrough marks everything up to it as read, so it stops just before
--    the person's oldest unread notification of any kind (or at the newest, when all are read).
INSERT INTO `notification_markers` (`id`, `chat_since`, `read_through`)
SELECT
	u.`id`,
	(SELECT min(n.`created_at`) FROM `notifications` n WHERE n.`recipient_id` = u.`id` AND n.`type` = 'chat_message'),
	CASE
		WHEN NOT EXISTS (SELECT 1 FROM `notifications` n WHERE n.`recipient_id` = u.`id` AND n.`read_at` IS NULL)
			THEN (SELECT max(n.`created_at`) FROM `notifications` n WHERE n.`recipient_id` = u.`id`)
		ELSE (
			SELECT max(n.`created_at`) FROM `notifications` n
			WHERE n.`recipient_id` = u.`id` AND n.`created_at` < (
				SELECT min(o.`created_at`) FROM `notifications` o WHERE o.`recipient_id` = u.`id` AND o.`read_at` IS NULL
			)
		)
	END
FROM `users` u;
--> statement-breakpoint
-- 2. Chat notices read after the marker keep their read mark, at the message's own time.
INSERT OR IGNORE INTO `chat_notice_reads` (`user_id`, `message_id`, `message_created_at`, `read_at`)
SELECT n.`recipient_id`, c.`id`, c.`created_at`, n.`read_at`
FROM `notifications` n
JOIN `chat_messages` c ON c.`id` = json_extract(n.`data`, '$.messageId')
JOIN `notification_markers` k ON k.`id` = n.`recipient_id`
WHERE n.`type` = 'chat_message' AND n.`read_at` IS NOT NULL
	AND (k.`read_through` IS NULL OR c.`created_at` > k.`read_through`);
--> statement-breakpoint
-- 3. A direct message's notice names its message: one notice per message from now on. Where a client had
--    asked for a second one (POST /api/notifications), the first keeps the name and the other stays as it was.
UPDATE `notifications` SET `message_id` = json_extract(`data`, '$.messageId')
WHERE `type` = 'direct_message'
	AND json_extract(`data`, '$.messageId') IS NOT NULL
	AND `id` = (
		SELECT min(d.`id`) FROM `notifications` d
		WHERE d.`recipient_id` = `notifications`.`recipient_id` AND d.`type` = 'direct_message'
			AND json_extract(d.`data`, '$.messageId') = json_extract(`notifications`.`data`, '$.messageId')
	);
--> statement-breakpoint
DELETE FROM `notifications` WHERE `type` = 'chat_message';
--> statement-breakpoint
-- 4. Every device bootstraps once more (protocol 5): the change log so far is compacted away. The floor
--    never goes back, and the sequence (AUTOINCREMENT) continues after it.
INSERT INTO `meta` (`key`, `value`)
VALUES (
	'change_log_floor',
	CAST(max(
		coalesce((SELECT max(`seq`) FROM `change_log`), 0),
		coalesce((SELECT CAST(`value` AS INTEGER) FROM `meta` WHERE `key` = 'change_log_floor'), 0)
	) AS TEXT)
)
ON CONFLICT (`key`) DO UPDATE SET `value` = excluded.`value`;
--> statement-breakpoint
DELETE FROM `change_audience`;
--> statement-breakpoint
DELETE FROM `change_log`;
