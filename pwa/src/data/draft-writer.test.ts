import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { freshDb } from '../../test/sync-support';
import type { WorkspaceDb } from './db';
import { DraftWriter, draftSaveDelayMs } from './draft-writer';
import { draftKeys, openDraft, readDraft, stashedDraftsItem, type StashStorage } from './drafts';

/** Web Storage as a map. */
function memoryStorage(): StashStorage & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (name) => items.get(name) ?? null,
    setItem: (name, value) => void items.set(name, value),
    removeItem: (name) => void items.delete(name),
  };
}

const chat = draftKeys.teamChat;
const bob = draftKeys.conversation('c-bob');

let db: WorkspaceDb;
let storage: ReturnType<typeof memoryStorage>;
let writer: DraftWriter;
beforeEach(() => {
  // Only the writer's pause is faked: fake IndexedDB keeps its own scheduling.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  db = freshDb('u-alice');
  storage = memoryStorage();
  writer = new DraftWriter(db, storage, 'u-alice');
});
afterEach(() => {
  vi.useRealTimers();
  db.close();
});

const stash = (): unknown => JSON.parse(storage.getItem(stashedDraftsItem('u-alice')) ?? 'null');

describe('the draft writer', () => {
  test('typing is stored once it pauses, and only its newest text', async () => {
    const put = vi.spyOn(db.drafts, 'put');
    writer.later(chat, 'L');
    writer.later(chat, 'Lu');
    writer.later(chat, 'Lunch?');
    vi.advanceTimersByTime(draftSaveDelayMs - 1);
    expect(put).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    await vi.waitFor(async () => expect(await readDraft(db, chat)).toBe('Lunch?'));
    expect(put).toHaveBeenCalledTimes(1);
  });

  test('closing one composer stores its waiting text at once, and no other', async () => {
    writer.later(chat, 'For the team');
    writer.later(bob, 'For Bob');
    writer.flush(bob);
    await vi.waitFor(async () => expect(await readDraft(db, bob)).toBe('For Bob'));
    expect(await readDraft(db, chat)).toBe('');
  });

  test('a page going away stashes what waits for a pause and what is still being written', async () => {
    writer.later(chat, 'Typed a moment ago');
    writer.now(bob, 'Being written');
    writer.pageGoing();
    expect(stash()).toEqual({ [chat]: 'Typed a moment ago', [bob]: 'Being written' });

    // Had the page gone, the next open would take the stash; here it stayed, so once both are
    // stored the stash goes.
    await vi.waitFor(() => expect(stash()).toBeNull());
    expect(await openDraft(db, storage, 'u-alice', chat)).toBe('Typed a moment ago');
    expect(await openDraft(db, storage, 'u-alice', bob)).toBe('Being written');
  });

  test('a stored text settles its key only while it is the newest', async () => {
    writer.now(bob, 'First');
    writer.later(bob, 'First and more');
    writer.pageGoing();
    await vi.waitFor(async () => expect(await readDraft(db, bob)).toBe('First and more'));
    await vi.waitFor(() => expect(stash()).toBeNull());
  });

  test('after signing out (the database closed) nothing is stashed', () => {
    writer.later(chat, 'Not for the next person');
    db.close();
    writer.pageGoing();
    expect(storage.items.size).toBe(0);
  });
});
