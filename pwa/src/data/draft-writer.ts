import type { WorkspaceDb } from './db';
import { dropStashedDraft, saveDraft, stashDraft, type StashStorage } from './drafts';

/** A pause in typing this long writes the draft: a write per keystroke would be wasted work. */
export const draftSaveDelayMs = 300;

const logFailure = (error: unknown) => console.error('Saving the draft failed', error);

/**
 * Writes one user's drafts to IndexedDB: each key's newest text once typing pauses, or at once when
 * asked. A page that goes away (a reload, a closed window) can lose the IndexedDB writes it has not
 * finished, so then every text not yet known to be stored is stashed in Web Storage too (`stashDraft`),
 * which is written when the call returns; the composer takes it from there when it opens again.
 */
export class DraftWriter {
  /** Each key's newest text that IndexedDB is not known to hold yet: waiting for a pause, or being written. */
  private readonly unwritten = new Map<string, string>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly db: WorkspaceDb,
    private readonly storage: StashStorage,
    private readonly userId: string,
    private readonly delayMs: number = draftSaveDelayMs,
  ) {}

  /** The person typed: written once typing pauses. */
  later(key: string, text: string): void {
    this.unwritten.set(key, text);
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => this.write(key), this.delayMs),
    );
  }

  /** Written at once (a send took the text, a failed one put it back). */
  now(key: string, text: string): void {
    this.unwritten.set(key, text);
    this.write(key);
  }

  /** Writes what waits for a pause under `key` (its composer closes), or under every key (the app is hidden). */
  flush(key?: string): void {
    for (const waiting of key === undefined ? [...this.timers.keys()] : [key]) {
      if (this.timers.has(waiting)) this.write(waiting);
    }
  }

  /** The page is going away: what IndexedDB may not get in time is stashed, and writing it is tried too. */
  pageGoing(): void {
    // A signed-out user's database is closed and deleted: nothing of theirs may be left behind.
    if (this.db.hasBeenClosed()) return;
    for (const [key, text] of this.unwritten) {
      try {
        stashDraft(this.storage, this.userId, key, text);
      } catch (error) {
        logFailure(error);
      }
    }
    this.flush();
  }

  private write(key: string): void {
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    const text = this.unwritten.get(key);
    if (text === undefined) return;
    saveDraft(this.db, key, text)
      .then(() => {
        // A newer text is waiting or on its way; it settles the key when it is stored.
        if (this.unwritten.get(key) !== text) return;
        this.unwritten.delete(key);
        // IndexedDB now holds the newest text: a stash of an older one must not win on the next open.
        dropStashedDraft(this.storage, this.userId, key);
      })
      .catch(logFailure);
  }
}

const writers = new WeakMap<WorkspaceDb, DraftWriter>();

/** The draft writer of the signed-in user's database, listening for the page going away or hiding. */
export function draftWriterFor(db: WorkspaceDb, userId: string): DraftWriter {
  const existing = writers.get(db);
  if (existing) return existing;
  const writer = new DraftWriter(db, localStorage, userId);
  writers.set(db, writer);
  window.addEventListener('pagehide', () => writer.pageGoing());
  // An app sent to the background may be ended later without a pagehide; it still runs now.
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') writer.flush();
  });
  return writer;
}
