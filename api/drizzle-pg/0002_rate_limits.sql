-- The request limits and sign-in throttles every node shares (rate-limiter-flexible's RateLimiterPostgres, in
-- the layout it expects). Its own table: the domain never reads it, so it is not part of schema-pg.ts.
CREATE TABLE IF NOT EXISTS "rate_limits" (
	"key" varchar(255) PRIMARY KEY,
	"points" integer NOT NULL DEFAULT 0,
	"expire" bigint
);
