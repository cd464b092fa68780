CREATE TABLE `chat_notice_reads` (
	`user_id` text NOT NULL,
	`message_id` text NOT NULL,
	`message_created_at` text NOT NULL,
	`read_at` text NOT NULL,
	PRIMARY KEY(`user_id`, `message_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `chat_notice_reads_time` ON `chat_notice_reads` (`user_id`,`message_created_at`);--> statement-breakpoint
CREATE TABLE `notification_markers` (
	`id` text PRIMARY KEY NOT NULL,
	`chat_since` text,
	`read_through` text,
	`version` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `push_chat_states` (
	`user_id` text PRIMARY KEY NOT NULL,
	`last_sent_at` text,
	`held_count` integer DEFAULT 0 NOT NULL,
	`held_message_id` text,
	`flush_at` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `push_chat_states_flush` ON `push_chat_states` (`flush_at`);--> statement-breakpoint
CREATE TABLE `push_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`endpoint` text NOT NULL,
	`payload` text NOT NULL,
	`topic` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`endpoint`) REFERENCES `push_subscriptions`(`endpoint`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `push_deliveries_due` ON `push_deliveries` (`next_attempt_at`);--> statement-breakpoint
ALTER TABLE `chat_messages` ADD `push_pending` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `chat_messages_live` ON `chat_messages` (`created_at`,`id`) WHERE "chat_messages"."deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX `chat_messages_author_live` ON `chat_messages` (`user_id`,`created_at`) WHERE "chat_messages"."deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX `chat_messages_push_pending` ON `chat_messages` (`created_at`) WHERE "chat_messages"."push_pending" = 1;--> statement-breakpoint
ALTER TABLE `notifications` ADD `message_id` text;--> statement-breakpoint
ALTER TABLE `notifications` ADD `push_pending` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `notifications_unread` ON `notifications` (`recipient_id`,`created_at`) WHERE "notifications"."read_at" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `notifications_message` ON `notifications` (`recipient_id`,`message_id`);--> statement-breakpoint
CREATE INDEX `notifications_push_pending` ON `notifications` (`id`) WHERE "notifications"."push_pending" = 1;