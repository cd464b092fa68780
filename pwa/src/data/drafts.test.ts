import { afterEach, describe, expect, test } from 'vitest';
import { freshDb } from '../../test/sync-support';
import type { WorkspaceDb } from './db';
import {
  draftKeys,
  dropStashedDraft,
  openDraft,
  readDraft,
  restoreDraft,
  saveDraft,
  stashDraft,
  stashedDraftsItem,
  withRestored,
  type StashStorage,
} from './drafts';

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

let db: WorkspaceDb | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
});

describe('the draft store', () => {
  test('each conversation keeps its own draft, read back as it was typed', async () => {
    db = freshDb('u-alice');
    await saveDraft(db, draftKeys.teamChat, 'Lunch at 12:30?  ');
    await saveDraft(db, draftKeys.conversation('c-bob'), 'Bob, about tomorrow');
    await saveDraft(db, draftKeys.conversation('c-bob'), 'Bob, about tomorrow morning');

    expect(await readDraft(db, draftKeys.teamChat)).toBe('Lunch at 12:30?  ');
    expect(await readDraft(db, draftKeys.conversation('c-bob'))).toBe('Bob, about tomorrow morning');
    expect(await readDraft(db, draftKeys.conversation('c-carol'))).toBe('');
    expect(await readDraft(db, draftKeys.taskComment('t-1'))).toBe('');
  });

  test('a blank draft is forgotten, not kept as a row', async () => {
    db = freshDb('u-alice');
    await saveDraft(db, draftKeys.teamChat, 'Half a thought');
    await saveDraft(db, draftKeys.teamChat, ' \n ');
    expect(await db.drafts.count()).toBe(0);
    await saveDraft(db, draftKeys.taskComment('t-1'), '');
    expect(await db.drafts.count()).toBe(0);
  });

  test('a draft stashed by a page that went away wins when its composer opens, and moves into IndexedDB', async () => {
    db = freshDb('u-alice');
    const storage = memoryStorage();
    const key = draftKeys.conversation('c-bob');
    await saveDraft(db, key, 'Bob, about tomor');
    stashDraft(storage, 'u-alice', key, 'Bob, about tomorrow morning');
    stashDraft(storage, 'u-alice', draftKeys.teamChat, 'Lunch?');

    expect(await openDraft(db, storage, 'u-alice', key)).toBe('Bob, about tomorrow morning');
    expect(await readDraft(db, key)).toBe('Bob, about tomorrow morning');
    expect(JSON.parse(storage.getItem(stashedDraftsItem('u-alice')) ?? '')).toEqual({ [draftKeys.teamChat]: 'Lunch?' });
    // Taken once: the next open reads IndexedDB.
    await saveDraft(db, key, 'Bob, about Friday');
    expect(await openDraft(db, storage, 'u-alice', key)).toBe('Bob, about Friday');
  });

  test('a box emptied just before the page went away forgets the stored draft', async () => {
    db = freshDb('u-alice');
    const storage = memoryStorage();
    await saveDraft(db, draftKeys.teamChat, 'Never mind');
    stashDraft(storage, 'u-alice', draftKeys.teamChat, '');
    expect(await openDraft(db, storage, 'u-alice', draftKeys.teamChat)).toBe('');
    expect(await db.drafts.count()).toBe(0);
    expect(storage.items.size).toBe(0);
  });

  test('stashes are per user; dropping the last one removes the item; a damaged one is ignored', async () => {
    db = freshDb('u-alice');
    const storage = memoryStorage();
    stashDraft(storage, 'u-alice', draftKeys.teamChat, 'Alice’s');
    stashDraft(storage, 'u-bob', draftKeys.teamChat, 'Bob’s');
    dropStashedDraft(storage, 'u-alice', draftKeys.teamChat);
    expect([...storage.items.keys()]).toEqual([stashedDraftsItem('u-bob')]);

    storage.setItem(stashedDraftsItem('u-alice'), '{not json');
    await saveDraft(db, draftKeys.teamChat, 'Stored');
    expect(await openDraft(db, storage, 'u-alice', draftKeys.teamChat)).toBe('Stored');
  });

  test('a failed send goes back before what was typed since, on its own line', async () => {
    expect(withRestored('First message', '')).toBe('First message');
    expect(withRestored('First message', '  ')).toBe('First message');
    expect(withRestored('First message', 'second one')).toBe('First message\nsecond one');

    db = freshDb('u-alice');
    const key = draftKeys.conversation('c-bob');
    await restoreDraft(db, key, 'Lost when the disk was full');
    expect(await readDraft(db, key)).toBe('Lost when the disk was full');
    await saveDraft(db, key, 'typed after');
    await restoreDraft(db, key, 'Earlier one');
    expect(await readDraft(db, key)).toBe('Earlier one\ntyped after');
  });
});
