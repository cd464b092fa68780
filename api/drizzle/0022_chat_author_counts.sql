CREATE TABLE `chat_author_counts` (
	`user_id` text PRIMARY KEY NOT NULL,
	`live_messages` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
-- The counts of the messages written before this table: one pass, at the upgrade.
INSERT INTO `chat_author_counts` (`user_id`, `live_messages`) SELECT `user_id`, count(*) FROM `chat_messages` WHERE `deleted_at` IS NULL GROUP BY `user_id`;
