import { Dexie } from 'dexie';
import { clientErrorMessages } from '@office/sync-protocol';
import type { WorkspaceDb } from '../data/db';
import { evictAllCached } from './window-keeper';

// A device's storage (issue 46): the browser is asked once to keep this origin's data, after the first download;
// a full disk first costs the evictable cache (older messages read on demand), then is told in words. The outbox
// is never what gives way: a write that cannot be stored is refused before anything of it is lost.

/** Whether IndexedDB refused a write for lack of space (Dexie wraps it in an AbortError: its `inner` says so). */
export function isQuotaError(error: unknown): boolean {
  let current = error as { name?: string; inner?: unknown } | null | undefined;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current.name === 'QuotaExceededError') return true;
    current = current.inner as typeof current;
  }
  return false;
}

/** Storing failed for lack of space, even after the cache was evicted. */
export class StorageFullError extends Error {
  readonly code = 'storage_full';
  constructor() {
    super(clientErrorMessages.storage_full);
  }
}

/**
 * Runs a write; when the disk is full, evicts the cache and runs it once more, then gives up in words. Inside a
 * caller's transaction the cache cannot be evicted (its tables are not the caller's): it gives up at once.
 */
export async function withRoomToStore<T>(db: WorkspaceDb, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isQuotaError(error)) throw error;
    if (Dexie.currentTransaction) throw new StorageFullError();
  }
  await evictAllCached(db);
  try {
    return await write();
  } catch (error) {
    if (isQuotaError(error)) throw new StorageFullError();
    throw error;
  }
}

/**
 * Once the first download is in, asks the browser to keep this origin's data under storage pressure (Chromium and
 * Safari decide from how the site is used; Firefox asks the person). Asked once; the answer is kept.
 */
export async function persistAfterFirstDownload(
  db: WorkspaceDb,
  storage: Pick<StorageManager, 'persist'> | undefined = typeof navigator === 'undefined'
    ? undefined
    : navigator.storage,
): Promise<void> {
  if (!storage?.persist) return;
  const [cursor, bootstrap, asked] = await Promise.all([
    db.meta.get('cursor'),
    db.meta.get('bootstrap'),
    db.meta.get('storagePersisted'),
  ]);
  if (!cursor || cursor.value === 0 || bootstrap || asked) return;
  const granted = await storage.persist().catch(() => false);
  await db.meta.put({ key: 'storagePersisted', value: granted });
}
