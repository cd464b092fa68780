import { Dexie } from 'dexie';
import { databaseName, openWorkspaceDb } from '../../data/db';

/**
 * Who was signed out by a refused token (expired, password changed elsewhere, account removed).
 * Kept in persistent storage so the sign-in screen still asks them after the app was closed.
 */
const endedSessionKey = 'sessionEndedFor';

export const markSessionEnded = (userId: string): void => localStorage.setItem(endedSessionKey, userId);

export const clearEndedSession = (): void => localStorage.removeItem(endedSessionKey);

/** How many writes of the signed-out person still wait on this device for them to sign in again. */
export async function writesAwaitingSignIn(): Promise<number> {
  const userId = localStorage.getItem(endedSessionKey);
  if (userId === null || !(await Dexie.exists(databaseName(userId)))) return 0;
  const db = openWorkspaceDb(userId);
  try {
    return await db.outbox.count();
  } finally {
    db.close();
  }
}
