import type { WorkspaceDb } from './db';

/** Where each composer keeps its unsent text: one draft per conversation. */
export const draftKeys = {
  teamChat: 'chat',
  conversation: (conversationId: string): string => `dm:${conversationId}`,
  taskComment: (taskId: string): string => `task:${taskId}`,
} as const;

/** The stored draft under `key`; '' when there is none. */
export async function readDraft(db: WorkspaceDb, key: string): Promise<string> {
  return (await db.drafts.get(key))?.text ?? '';
}

/** Keeps `text` as the draft under `key`; a blank text forgets the draft. */
export async function saveDraft(db: WorkspaceDb, key: string, text: string): Promise<void> {
  if (text.trim() === '') await db.drafts.delete(key);
  else await db.drafts.put({ key, text, savedAt: new Date().toISOString() });
}

/**
 * The same as `saveDraft`, started and committed before this returns, for a page that is going away:
 * a reload or a closed window ends the page before Dexie's promise steps run, and with them the write.
 */
export function saveDraftBeforeUnload(db: WorkspaceDb, key: string, text: string): void {
  if (!db.isOpen()) return;
  const transaction = db.backendDB().transaction('drafts', 'readwrite');
  const drafts = transaction.objectStore('drafts');
  if (text.trim() === '') drafts.delete(key);
  else drafts.put({ key, text, savedAt: new Date().toISOString() });
  transaction.commit();
}

/**
 * A text whose send failed goes back where it was typed: before whatever was typed after it, on a
 * line of its own, so neither is lost.
 */
export const withRestored = (failed: string, current: string): string =>
  current.trim() === '' ? failed : `${failed}\n${current}`;

/** Puts a text whose send failed back into the stored draft under `key` (its composer is gone). */
export async function restoreDraft(db: WorkspaceDb, key: string, failed: string): Promise<void> {
  await db.transaction('rw', db.drafts, async () => {
    await saveDraft(db, key, withRestored(failed, await readDraft(db, key)));
  });
}
