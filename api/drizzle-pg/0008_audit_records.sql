CREATE TABLE "audit_records" (
	"id" text PRIMARY KEY NOT NULL,
	"at" text NOT NULL,
	"action" text NOT NULL,
	"actor_id" text,
	"actor_name" text,
	"target_id" text,
	"target_name" text,
	"ip" text,
	"details" text DEFAULT '{}' NOT NULL
);
--> statement-breakpoint
CREATE INDEX "audit_records_actor" ON "audit_records" USING btree ("actor_id","id");--> statement-breakpoint
CREATE INDEX "audit_records_target" ON "audit_records" USING btree ("target_id","id");--> statement-breakpoint
CREATE INDEX "audit_records_action" ON "audit_records" USING btree ("action","id");--> statement-breakpoint
CREATE INDEX "audit_records_at" ON "audit_records" USING btree ("at");