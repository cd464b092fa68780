DROP INDEX "chat_messages_author_live";--> statement-breakpoint
DROP INDEX "chat_messages_live";--> statement-breakpoint
CREATE INDEX "chat_messages_live" ON "chat_messages" USING btree ("created_at","id","user_id","deleted_at") WHERE "chat_messages"."deleted_at" IS NULL;