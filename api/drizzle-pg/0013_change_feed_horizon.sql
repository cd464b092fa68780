DROP INDEX "change_log_principal";--> statement-breakpoint
ALTER TABLE "change_audience" ADD COLUMN "xid" "xid8" DEFAULT pg_current_xact_id() NOT NULL;--> statement-breakpoint
ALTER TABLE "change_log" ADD COLUMN "xid" "xid8" DEFAULT pg_current_xact_id() NOT NULL;--> statement-breakpoint
ALTER TABLE "sync_clients" ADD COLUMN "last_mutation_xid" "xid8";--> statement-breakpoint
ALTER TABLE "sync_clients" ADD COLUMN "settled_mutation_id" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "change_audience_position" ON "change_audience" USING btree ("principal","xid","seq");--> statement-breakpoint
CREATE INDEX "change_log_position" ON "change_log" USING btree ("xid","seq");--> statement-breakpoint
CREATE INDEX "change_log_principal" ON "change_log" USING btree ("principal","xid","seq") WHERE "change_log"."principal" IS NOT NULL;--> statement-breakpoint
-- Positions in the change log become (xid, seq) pairs: every row already logged took this migration's transaction id
-- as its xid (the column's default, evaluated once per transaction), so the push queue's team chat cursor, the
-- compaction floor and the last restore's floor, stored as sequence numbers, name the same place as that id paired
-- with them.
UPDATE "meta" SET "value" = pg_current_xact_id()::text || ':' || "value"
WHERE "key" IN ('push_chat_through', 'change_log_floor', 'restored_below') AND "value" ~ '^[0-9]+$';
