ALTER TABLE `users` ADD `name_skeleton` text;--> statement-breakpoint
CREATE INDEX `users_name_skeleton` ON `users` (`name_skeleton`);