ALTER TABLE `change_log` ADD `principal` text;--> statement-breakpoint
CREATE INDEX `change_log_principal` ON `change_log` (`principal`,`seq`) WHERE "change_log"."principal" IS NOT NULL;