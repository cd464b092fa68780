import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A dialect's committed migrations (api/drizzle, api/drizzle-pg), found from wherever this module was bundled. */
export function migrationsFolder(name: 'drizzle' | 'drizzle-pg'): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, name);
    if (existsSync(join(candidate, 'meta', '_journal.json'))) return candidate;
    dir = dirname(dir);
  }
  throw new Error(`Could not find the api/${name} migrations folder`);
}
