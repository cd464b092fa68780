CREATE TABLE `notification_preferences` (
	`id` text PRIMARY KEY NOT NULL,
	`team_chat` text DEFAULT 'all' NOT NULL,
	`direct_messages` integer DEFAULT true NOT NULL,
	`task_notices` integer DEFAULT true NOT NULL,
	`morning_digest` integer DEFAULT true NOT NULL,
	`quiet_hours` text,
	`time_zone` text,
	`digest_due_at` text,
	`version` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `notification_preferences_digest_due` ON `notification_preferences` (`digest_due_at`);