import { rmSync } from 'node:fs';

/** Deletes the server's throwaway data directory, unless it came from outside or E2E_KEEP_DATA is set. */
export default function globalTeardown(): void {
  const dataDir = process.env.E2E_DATA_DIR;
  if (dataDir && process.env.E2E_DATA_DIR_OWNED === '1' && !process.env.E2E_KEEP_DATA) {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
