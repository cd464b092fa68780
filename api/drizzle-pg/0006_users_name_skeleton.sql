ALTER TABLE "users" ADD COLUMN "name_skeleton" text;--> statement-breakpoint
CREATE INDEX "users_name_skeleton" ON "users" USING btree ("name_skeleton");