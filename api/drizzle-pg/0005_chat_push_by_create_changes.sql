-- The push queue finds new team chat messages by their `create` change in the change log, from a stored cursor,
-- instead of a flag and an index of flagged messages (one B-tree and one later rewrite less per message). A message
-- still waiting for its push at the upgrade has its newest change marked `create`, and the cursor starts just
-- before the oldest of them; with none waiting, at the newest change.
UPDATE "change_log" SET "op" = 'create'
WHERE "entity" = 'chatMessage' AND "seq" IN (SELECT "version" FROM "chat_messages" WHERE "push_pending");
--> statement-breakpoint
INSERT INTO "meta" ("key", "value")
SELECT 'push_chat_through', coalesce(
	(SELECT min("version") - 1 FROM "chat_messages" WHERE "push_pending"),
	(SELECT max("seq") FROM "change_log"),
	0
)::text
ON CONFLICT ("key") DO NOTHING;
--> statement-breakpoint
DROP INDEX "chat_messages_push_pending";--> statement-breakpoint
ALTER TABLE "chat_messages" DROP COLUMN "push_pending";
