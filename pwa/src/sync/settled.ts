import { liveQuery } from 'dexie';
import type { WorkspaceDb } from '../data/db';

/** How a queued write ended: the server took it (its outbox entry is gone), or refused it. */
export type Settled = { status: 'accepted' } | { status: 'refused'; message: string | undefined };

/**
 * Resolves once the server has answered the queued write `mutationId`: its entry leaves the outbox when
 * accepted and turns `failed` when refused. A success message waits for this instead of guessing.
 */
export function whenSettled(db: WorkspaceDb, mutationId: number): Promise<Settled> {
  return new Promise((resolve, reject) => {
    const subscription = liveQuery(() => db.outbox.get(mutationId)).subscribe({
      next: (entry) => {
        if (entry && entry.status !== 'failed') return;
        subscription.unsubscribe();
        resolve(entry ? { status: 'refused', message: entry.error?.message } : { status: 'accepted' });
      },
      error: (error: unknown) => {
        subscription.unsubscribe();
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    });
  });
}
