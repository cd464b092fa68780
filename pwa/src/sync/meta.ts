import { uuidv7 } from '@office/sync-protocol';
import type { WorkspaceDb } from '../data/db';

/** This database's sync client id, created on first use. */
export async function clientIdOf(db: WorkspaceDb): Promise<string> {
  return db.transaction('rw', db.meta, async () => {
    const row = await db.meta.get('clientId');
    if (typeof row?.value === 'string') return row.value;
    const clientId = uuidv7();
    await db.meta.put({ key: 'clientId', value: clientId });
    return clientId;
  });
}

export async function readCursor(db: WorkspaceDb): Promise<number> {
  const row = await db.meta.get('cursor');
  return typeof row?.value === 'number' ? row.value : 0;
}

export async function writeCursor(db: WorkspaceDb, cursor: number): Promise<void> {
  await db.meta.put({ key: 'cursor', value: cursor });
}
