CREATE TABLE "chat_author_counts" (
	"user_id" text PRIMARY KEY NOT NULL,
	"live_messages" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "chat_author_counts" ADD CONSTRAINT "chat_author_counts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- The counts of the messages written before this table: one pass, at the upgrade.
INSERT INTO "chat_author_counts" ("user_id", "live_messages") SELECT "user_id", count(*) FROM "chat_messages" WHERE "deleted_at" IS NULL GROUP BY "user_id";
