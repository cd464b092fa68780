import { defineConfig } from 'drizzle-kit';

// The PostgreSQL twin of drizzle.config.ts; paths are from the repository root, where `npm run db:generate:pg` runs.
export default defineConfig({
  dialect: 'postgresql',
  schema: './api/src/db/schema-pg.ts',
  out: './api/drizzle-pg',
  casing: 'snake_case',
});
