import { afterEach, describe, expect, test, vi } from 'vitest';
import type { DBCore, Middleware } from 'dexie';
import { clientErrorMessages, teamChatKey } from '@office/sync-protocol';
import type { WorkspaceDb } from '../data/db';
import { applyPull } from './apply';
import { LocalWriteError, mutate } from './mutate';
import { persistAfterFirstDownload } from './storage';
import { aChatMessage, aPage, aUser, freshDb, putsOf, testId, testWindow } from '../../test/sync-support';

const me = testId(1);
const ctx = { userId: me };
let db: WorkspaceDb;
afterEach(() => db?.close());

const at = (minute: number) => `2026-07-01T10:${String(minute).padStart(2, '0')}:00.000Z`;

/** Refuses the next `times` additions to the outbox as a full disk would (Dexie wraps it: `inner`). */
async function fullDisk(target: WorkspaceDb, times: number): Promise<void> {
  let left = times;
  const middleware: Middleware<DBCore> = {
    stack: 'dbcore',
    name: 'full-disk',
    create: (down) => ({
      ...down,
      table(name) {
        const table = down.table(name);
        return {
          ...table,
          mutate(request) {
            if (name === 'outbox' && request.type === 'add' && left > 0) {
              left -= 1;
              return Promise.reject(new DOMException('The quota has been exceeded.', 'QuotaExceededError'));
            }
            return table.mutate(request);
          },
        };
      },
    }),
  };
  // Middleware joins a database as it opens.
  target.close();
  target.use(middleware);
  await target.open();
}

/** A device holding six messages, the older three before its window's edge: the cache. */
async function withCache(): Promise<WorkspaceDb> {
  db = freshDb(me);
  await applyPull(
    db,
    ctx,
    aPage(
      [
        ...putsOf('user', [aUser(me)]),
        ...putsOf(
          'chatMessage',
          [1, 2, 3, 4, 5, 6].map((n) => aChatMessage(n, at(n))),
        ),
      ],
      {
        reset: true,
        cursor: '5',
        bootstrap: { next: null, done: 7, total: 7, historyStarts: [teamChatKey] },
      },
    ),
  );
  await db.historyRanges.update(teamChatKey, { edge: at(4), viewedAt: new Date().toISOString() });
  return db;
}

describe('a full disk (issue 46)', () => {
  test('a write evicts the cache of older messages and is stored on its second try', async () => {
    await withCache();
    await fullDisk(db, 1);
    await mutate(db, ctx, 'chat.send', { id: testId(50), text: 'still saved' });
    expect((await db.chatMessages.orderBy('timestamp').toArray()).map((m) => m.id)).toEqual([
      ...[4, 5, 6].map(testId),
      testId(50),
    ]);
    expect(await db.outbox.count()).toBe(1);
  });

  test('when even that is not enough, the person is told in words and the queued writes stay', async () => {
    await withCache();
    await mutate(db, ctx, 'chat.send', { id: testId(50), text: 'queued before' });
    await fullDisk(db, 2);
    const refused = mutate(db, ctx, 'chat.send', { id: testId(51), text: 'no room' });
    await expect(refused).rejects.toEqual(new LocalWriteError('storage_full', clientErrorMessages.storage_full));
    expect((await db.outbox.toArray()).map((entry) => entry.args)).toEqual([{ id: testId(50), text: 'queued before' }]);
    expect(await db.chatMessages.get(testId(51))).toBeUndefined();
  });
});

describe('persistent storage', () => {
  test('is asked for once, after the first download is in', async () => {
    db = freshDb(me);
    const persist = vi.fn(() => Promise.resolve(true));
    await persistAfterFirstDownload(db, { persist });
    expect(persist).not.toHaveBeenCalled();
    await applyPull(db, ctx, aPage(putsOf('user', [aUser(me)]), { reset: true, cursor: '5', window: testWindow }));
    await persistAfterFirstDownload(db, { persist });
    await persistAfterFirstDownload(db, { persist });
    expect(persist).toHaveBeenCalledTimes(1);
    expect(await db.meta.get('storagePersisted')).toEqual({ key: 'storagePersisted', value: true });
  });
});
