import { resolve } from 'node:path';

/** Where bench/run.mjs writes the bundles of the bench and of the child processes it starts. */
export const benchBundleDir = resolve(import.meta.dirname, '../api/node_modules/.cache/bench');

/** Email and password of one seeded account. */
export interface BenchCredentials {
  email: string;
  password: string;
}

/** What the browser figures get from the server half of `npm run bench`. */
export interface BrowserBenchContext {
  /** The running bench server, e.g. "http://127.0.0.1:41234"; it serves the built PWA too. */
  url: string;
  /** `--quick`: smaller organisation and shorter runs. */
  quick: boolean;
  /** The server's DATA_DIR (its SQLite file is `workspace.db` there). */
  dataDir: string;
  /** How many people the organisation has. */
  members: number;
  /** A manager: sees every seeded task (5 000 in a full run). */
  manager: BenchCredentials;
  /** An employee with tasks assigned to them. */
  employee: BenchCredentials;
}
