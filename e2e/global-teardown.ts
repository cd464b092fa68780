import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Deletes the server's throwaway data directory, unless it came from outside or E2E_KEEP_DATA is set. Then fails the
 * run when the server printed any process warning during it (playwright.config.ts sends them to a file).
 */
export default function globalTeardown(): void {
  const dataDir = process.env.E2E_DATA_DIR;
  if (dataDir && process.env.E2E_DATA_DIR_OWNED === '1' && !process.env.E2E_KEEP_DATA) {
    rmSync(dataDir, { recursive: true, force: true });
  }
  const warningsFile = process.env.E2E_SERVER_WARNINGS;
  if (!warningsFile) return;
  const warnings = existsSync(warningsFile) ? readFileSync(warningsFile, 'utf8').trim() : '';
  rmSync(dirname(warningsFile), { recursive: true, force: true });
  if (warnings) throw new Error(`The server printed process warnings during the end-to-end run:\n${warnings}`);
}
