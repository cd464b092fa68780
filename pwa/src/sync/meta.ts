import { initialCursor, PROTOCOL_VERSION, uuidv7, type Cursor } from '@office/sync-protocol';
import type { BootstrapState, WorkspaceDb } from '../data/db';

/** This database's sync client id, created on first use. */
export async function clientIdOf(db: WorkspaceDb): Promise<string> {
  return db.transaction('rw', db.meta, async () => {
    const row = await db.meta.get('clientId');
    if (row?.key === 'clientId') return row.value;
    const clientId = uuidv7();
    await db.meta.put({ key: 'clientId', value: clientId });
    return clientId;
  });
}

/**
 * Where the device is in the server's change log. A database of protocol version 9 or older kept a number, which
 * requireProtocol turns back to the start (a bootstrap) before the first pull.
 */
export async function readCursor(db: WorkspaceDb): Promise<Cursor> {
  const row = await db.meta.get('cursor');
  if (row?.key !== 'cursor') return initialCursor;
  return typeof row.value === 'number' ? initialCursor : row.value;
}

export async function writeCursor(db: WorkspaceDb, cursor: Cursor): Promise<void> {
  await db.meta.put({ key: 'cursor', value: cursor });
}

/** The bootstrap under way (its next page's token and progress), or null. */
export async function readBootstrap(db: WorkspaceDb): Promise<BootstrapState | null> {
  const row = await db.meta.get('bootstrap');
  return row?.key === 'bootstrap' ? row.value : null;
}

/**
 * A database filled by another protocol version bootstraps once more (issue 14: team chat notices stopped
 * being rows, the read marker came; issue 42: the cursor became a place of the server's choosing, a pair on
 * PostgreSQL): its cursor goes back to the start. The outbox stays; it is replayed as before.
 */
export async function requireProtocol(db: WorkspaceDb): Promise<void> {
  await db.transaction('rw', db.meta, async () => {
    const row = await db.meta.get('protocolVersion');
    if (row?.key === 'protocolVersion' && row.value === PROTOCOL_VERSION) return;
    const cursor = await db.meta.get('cursor');
    if (cursor?.key === 'cursor' && cursor.value !== initialCursor)
      await db.meta.put({ key: 'cursor', value: initialCursor });
    await db.meta.delete('bootstrap');
  });
}
