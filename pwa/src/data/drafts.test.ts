import { afterEach, describe, expect, test } from 'vitest';
import { freshDb } from '../sync/test-support';
import type { WorkspaceDb } from './db';
import { draftKeys, readDraft, restoreDraft, saveDraft, saveDraftBeforeUnload, withRestored } from './drafts';

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

  test('a draft saved as the page goes away is stored without Dexie, a blank one forgotten', async () => {
    db = freshDb('u-alice');
    await db.open();
    saveDraftBeforeUnload(db, draftKeys.teamChat, 'Typed just before the reload');
    saveDraftBeforeUnload(db, draftKeys.conversation('c-bob'), 'Kept');
    saveDraftBeforeUnload(db, draftKeys.conversation('c-bob'), '   ');
    expect(await readDraft(db, draftKeys.teamChat)).toBe('Typed just before the reload');
    expect(await db.drafts.count()).toBe(1);
  });

  test('a draft saved as the page goes away before the database opened is skipped, not thrown', () => {
    db = freshDb('u-alice');
    expect(() => saveDraftBeforeUnload(db!, draftKeys.teamChat, 'Too early')).not.toThrow();
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
