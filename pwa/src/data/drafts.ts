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

/** The part of Web Storage the stash needs: localStorage in the app, a map in tests. */
export type StashStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/**
 * The Web Storage item with a user's stashed drafts. A page that is going away (a reload, a closed
 * window) can lose an IndexedDB write it starts in its last moments; a Web Storage write is done
 * when it returns. So a draft not yet saved when the page goes is stashed there too, by draft key.
 */
export const stashedDraftsItem = (userId: string): string => `unsaved-drafts:${userId}`;

function readStash(storage: StashStorage, userId: string): Record<string, string> {
  try {
    const stash: unknown = JSON.parse(storage.getItem(stashedDraftsItem(userId)) ?? '{}');
    return typeof stash === 'object' && stash !== null ? (stash as Record<string, string>) : {};
  } catch {
    return {};
  }
}

function writeStash(storage: StashStorage, userId: string, stash: Record<string, string>): void {
  if (Object.keys(stash).length === 0) storage.removeItem(stashedDraftsItem(userId));
  else storage.setItem(stashedDraftsItem(userId), JSON.stringify(stash));
}

/** Stashes the draft under `key` synchronously, for a page that is going away ('' too: a cleared box). */
export function stashDraft(storage: StashStorage, userId: string, key: string, text: string): void {
  writeStash(storage, userId, { ...readStash(storage, userId), [key]: text });
}

/** Forgets the stashed draft under `key`, once IndexedDB holds a text as new. */
export function dropStashedDraft(storage: StashStorage, userId: string, key: string): void {
  const stash = readStash(storage, userId);
  if (!(key in stash)) return;
  delete stash[key];
  writeStash(storage, userId, stash);
}

/**
 * The draft a composer opens with: one stashed by a page that went away (newer than any stored
 * one, and moved into IndexedDB now), otherwise the stored one.
 */
export async function openDraft(db: WorkspaceDb, storage: StashStorage, userId: string, key: string): Promise<string> {
  const stashed = readStash(storage, userId)[key];
  if (typeof stashed !== 'string') return readDraft(db, key);
  await saveDraft(db, key, stashed);
  dropStashedDraft(storage, userId, key);
  return stashed;
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
