import { BOOTSTRAP_COMPATIBLE_SINCE, PROTOCOL_VERSION, uuidv7 } from '@office/sync-protocol';
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

export async function readCursor(db: WorkspaceDb): Promise<number> {
  const row = await db.meta.get('cursor');
  return row?.key === 'cursor' ? row.value : 0;
}

export async function writeCursor(db: WorkspaceDb, cursor: number): Promise<void> {
  await db.meta.put({ key: 'cursor', value: cursor });
}

/** The bootstrap under way (its next page's token and progress), or null. */
export async function readBootstrap(db: WorkspaceDb): Promise<BootstrapState | null> {
  const row = await db.meta.get('bootstrap');
  return row?.key === 'bootstrap' ? row.value : null;
}

/**
 * A database filled by a protocol version older than BOOTSTRAP_COMPATIBLE_SINCE bootstraps once more (issue 14:
 * team chat notices stopped being rows, the read marker came): its cursor goes back to 0. A newer one keeps its
 * rows (issue 46: a device holding everything shrinks to its window without a download); only a bootstrap under
 * way starts over, as its pages' places belong to the older server. The outbox stays; it is replayed as before.
 */
export async function requireProtocol(db: WorkspaceDb): Promise<void> {
  await db.transaction('rw', db.meta, async () => {
    const row = await db.meta.get('protocolVersion');
    const version = row?.key === 'protocolVersion' ? row.value : 0;
    if (version === PROTOCOL_VERSION) return;
    if (version < BOOTSTRAP_COMPATIBLE_SINCE) {
      const cursor = await db.meta.get('cursor');
      if (cursor?.key === 'cursor' && cursor.value > 0) await db.meta.put({ key: 'cursor', value: 0 });
    } else await db.meta.put({ key: 'protocolVersion', value: PROTOCOL_VERSION });
    await db.meta.delete('bootstrap');
  });
}
