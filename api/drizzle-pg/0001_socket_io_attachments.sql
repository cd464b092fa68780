-- Socket.IO's PostgreSQL adapter (realtime across nodes) keeps here the events too large for one NOTIFY
-- (8000 bytes). Its own table: the domain never reads it, so it is not part of schema-pg.ts.
CREATE TABLE IF NOT EXISTS "socket_io_attachments" (
	"id" bigserial UNIQUE,
	"created_at" timestamptz DEFAULT now(),
	"payload" bytea
);
