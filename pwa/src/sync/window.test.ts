import { afterEach, describe, expect, test } from 'vitest';
import {
  conversationIdFor,
  teamChatKey,
  type HistoryWindow,
  type Notification,
  type PullResponse,
  type WindowCounts,
  type WindowCountsQuery,
} from '@office/sync-protocol';
import type { WorkspaceDb } from '../data/db';
import { applyLiveChanges, applyPull } from './apply';
import { mutate } from './mutate';
import {
  aChatMessage,
  aConversation,
  aDirectMessage,
  aPage,
  aTask,
  aUser,
  freshDb,
  putsOf,
  testId,
  testWindow,
} from '../../test/sync-support';
import { readTaskWindow } from './window';
import { WindowKeeper } from './window-keeper';

const me = testId(1);
const ctx = { userId: me };
const maya = testId(900);
let db: WorkspaceDb;
afterEach(() => db?.close());

const window: HistoryWindow = {
  ...testWindow,
  teamChatMessages: 3,
  directMessages: 2,
  notifications: 2,
  completedSince: '2026-06-01T00:00:00.000Z',
};
const at = (minute: number) => `2026-07-01T10:${String(minute).padStart(2, '0')}:00.000Z`;

/** A device after a one-page first download of these changes. */
async function bootstrapped(changes: PullResponse['changes'], historyStarts: string[] = []): Promise<WorkspaceDb> {
  db = freshDb(me);
  await applyPull(
    db,
    ctx,
    aPage([...putsOf('user', [aUser(me)]), ...changes], {
      reset: true,
      cursor: '10',
      window,
      bootstrap: { next: null, done: changes.length + 1, total: changes.length + 1, historyStarts },
    }),
  );
  return db;
}

const chatIds = async () => (await db.chatMessages.orderBy('timestamp').toArray()).map((m) => m.id);

describe('a pull keeps to the window (issue 46)', () => {
  test('a change of a message older than the window is not stored, and the cursor moves on', async () => {
    await bootstrapped(putsOf('chatMessage', [aChatMessage(5, at(5)), aChatMessage(6, at(6)), aChatMessage(7, at(7))]));
    expect(await db.historyRanges.get(teamChatKey)).toMatchObject({ edge: at(5), spans: [{ from: at(5), to: null }] });

    const edited = aChatMessage(2, at(2), { text: 'edited long ago', version: 9 });
    await applyPull(db, ctx, aPage(putsOf('chatMessage', [edited, aChatMessage(8, at(8))]), { cursor: '11', window }));
    expect(await chatIds()).toEqual([5, 6, 7, 8].map(testId));
    expect(await db.meta.get('cursor')).toMatchObject({ value: '11' });
    // What the server counted before the edge changed: counted again when online.
    expect((await db.historyRanges.get(teamChatKey))?.stale).toBe(true);
  });

  test('a held message changes however old it is, and a conversation held whole takes every change', async () => {
    const conversation = aConversation(me);
    await bootstrapped(
      [
        ...putsOf('chatMessage', [aChatMessage(5, at(5)), aChatMessage(6, at(6))]),
        ...putsOf('conversation', [conversation]),
        ...putsOf('directMessage', [aDirectMessage(me, 20, at(20))]),
      ],
      [teamChatKey, conversation.id],
    );
    const older = aChatMessage(1, at(1));
    const olderDirect = aDirectMessage(me, 19, at(19));
    await applyPull(
      db,
      ctx,
      aPage(
        [
          ...putsOf('chatMessage', [older, aChatMessage(5, at(5), { text: 'edited', version: 2 })]),
          ...putsOf('directMessage', [olderDirect]),
        ],
        { cursor: '11', window },
      ),
    );
    expect(await chatIds()).toEqual([1, 5, 6].map(testId));
    expect((await db.chatMessages.get(testId(5)))?.text).toBe('edited');
    expect(await db.directMessages.get(olderDirect.id)).toBeDefined();
  });

  test('an open task is stored however old; a completed one only when it changed inside the window', async () => {
    await bootstrapped([]);
    expect(await readTaskWindow(db)).toMatchObject({ edge: window.completedSince });
    const open = aTask(30, me, 'working', '2025-01-01T00:00:00.000Z');
    const oldDone = aTask(31, me, 'completed', '2026-05-01T00:00:00.000Z');
    const recentDone = aTask(32, me, 'completed', '2026-06-15T00:00:00.000Z');
    await applyPull(db, ctx, aPage(putsOf('task', [open, oldDone, recentDone]), { cursor: '11', window }));
    expect((await db.tasks.toArray()).map((t) => t.id).sort()).toEqual([open.id, recentDone.id]);
  });

  test('a row a queued write names is stored whatever its place, so the write is not lost', async () => {
    await bootstrapped(
      putsOf(
        'chatMessage',
        [1, 2, 3, 4, 5, 6].map((n) => aChatMessage(n, at(n))),
      ),
      [teamChatKey],
    );
    // The person deletes an old message while offline; then the window is trimmed past it.
    await mutate(db, ctx, 'chat.delete', { id: testId(2) });
    await new WindowKeeper(db, me, countingServer(), { now: () => Date.parse(at(59)) }).runNow();
    expect((await db.historyRanges.get(teamChatKey))?.spans).toEqual([{ from: at(4), to: null }]);
    // Someone edits it meanwhile: outside the window, yet the queued delete's rollback must hold the edit.
    await applyPull(
      db,
      ctx,
      aPage(putsOf('chatMessage', [aChatMessage(2, at(2), { text: 'edited meanwhile', version: 2 })]), {
        cursor: '11',
        window,
      }),
    );
    expect(await db.chatMessages.get(testId(2))).toBeUndefined();
    const [entry] = await db.outbox.toArray();
    expect(entry?.undo[0]?.row).toMatchObject({ text: 'edited meanwhile' });
  });

  test('while the first download runs, a live change of a message it has not brought waits for the pull', async () => {
    db = freshDb(me);
    await applyPull(
      db,
      ctx,
      aPage(putsOf('user', [aUser(me)]), {
        reset: true,
        cursor: '0',
        more: true,
        window,
        bootstrap: { next: '5.1..1.9', done: 1, total: 9, historyStarts: [] },
      }),
    );
    await applyLiveChanges(
      db,
      ctx,
      [{ cursor: '7', change: putsOf('chatMessage', [aChatMessage(1, at(1))])[0]! }],
      false,
    );
    expect(await db.chatMessages.count()).toBe(0);
  });
});

/** A server's window counts, recording what it was asked. */
function countingServer(answer: Partial<WindowCounts> = {}) {
  const asked: WindowCountsQuery[] = [];
  return {
    asked,
    windowCounts: (query: WindowCountsQuery): Promise<WindowCounts> => {
      asked.push(query);
      return Promise.resolve({
        teamChat: query.teamChat ? { unread: 4, readThrough: null, byAuthor: { [maya]: 40 } } : null,
        tasks: query.tasks ? { completed: 12, byAssignee: { [me]: 12 } } : null,
        conversations: (query.conversations ?? []).map(({ id }) => ({ id, unread: 3, lastReadAt: null })),
        ...answer,
      });
    },
  };
}

describe('the window keeper (issue 46)', () => {
  test('a window grown past its slack moves its edge up, with what the server counts before it', async () => {
    await bootstrapped(
      putsOf(
        'chatMessage',
        [5, 6, 7].map((n) => aChatMessage(n, at(n))),
      ),
    );
    await applyPull(
      db,
      ctx,
      aPage(
        putsOf(
          'chatMessage',
          [8, 9].map((n) => aChatMessage(n, at(n))),
        ),
        { cursor: '11', window },
      ),
    );
    const server = countingServer();
    const keeper = new WindowKeeper(db, me, server, { now: () => Date.parse(at(59)) });

    await keeper.runNow();
    // Five held, three kept in the window: the edge is the third newest; the older two are the cache, unread, evicted.
    expect(server.asked).toEqual([expect.objectContaining({ teamChat: at(7) })]);
    expect(await db.historyRanges.get(teamChatKey)).toMatchObject({
      edge: at(7),
      spans: [{ from: at(7), to: null }],
      before: { unread: 4, readAt: null, byAuthor: { [maya]: 40 } },
      stale: false,
    });
    expect(await chatIds()).toEqual([7, 8, 9].map(testId));

    // Nothing to move, nothing stale: no request.
    await keeper.runNow();
    expect(server.asked).toHaveLength(2 - 1);
  });

  test('older messages read lately stay as the cache; a row a queued write names is never evicted', async () => {
    const conversation = aConversation(me);
    await bootstrapped(
      [
        ...putsOf('conversation', [conversation]),
        ...putsOf(
          'directMessage',
          [1, 2, 3, 4, 5, 6].map((n) => aDirectMessage(me, n, at(n))),
        ),
      ],
      [conversation.id],
    );
    const server = countingServer();
    let now = Date.parse(at(59));
    const keeper = new WindowKeeper(db, me, server, { now: () => now, batch: 2 });
    await db.historyRanges.update(conversation.id, { viewedAt: at(58) });
    await keeper.runNow();
    const range = await db.historyRanges.get(conversation.id);
    expect(range).toMatchObject({ edge: at(5), before: { unread: 3, readAt: null } });
    expect(await db.directMessages.count()).toBe(6);

    await mutate(db, ctx, 'dm.react', { conversationId: conversation.id, id: testId(2), emoji: '👍', on: true });
    now += 8 * 86_400_000;
    await keeper.runNow();
    expect((await db.directMessages.toArray()).map((m) => m.id)).toEqual([2, 5, 6].map(testId));
    // The spans no longer claim what went: a pulled change of message 3 stays out.
    expect((await db.historyRanges.get(conversation.id))?.spans).toEqual([{ from: at(5), to: null }]);
    await applyPull(db, ctx, aPage(putsOf('directMessage', [aDirectMessage(me, 3, at(3))]), { cursor: '12', window }));
    expect(await db.directMessages.get(testId(3))).toBeUndefined();
  });

  test('completed tasks leave once they are older than the window’s days, open ones never', async () => {
    const oldOpen = aTask(30, me, 'pending', '2025-01-01T00:00:00.000Z');
    const done = aTask(31, me, 'completed', '2026-06-10T00:00:00.000Z');
    await bootstrapped(putsOf('task', [oldOpen, done]));
    const server = countingServer();
    const keeper = new WindowKeeper(db, me, server);
    await keeper.runNow();
    expect(server.asked).toEqual([expect.objectContaining({ tasks: window.completedSince })]);
    expect(await db.tasks.count()).toBe(2);

    // Days later the server's window has moved past the completed task.
    const later = { ...window, completedSince: '2026-06-20T00:00:00.000Z' };
    await applyPull(db, ctx, aPage([], { cursor: '11', window: later }));
    await keeper.runNow();
    expect(server.asked.at(-1)).toMatchObject({ tasks: later.completedSince });
    expect((await db.tasks.toArray()).map((t) => t.id)).toEqual([oldOpen.id]);
    expect(await readTaskWindow(db)).toEqual({
      edge: later.completedSince,
      before: { completed: 12, byAssignee: { [me]: 12 } },
      stale: false,
    });
  });

  test('read notices beyond the newest leave, unread ones stay', async () => {
    const notice = (n: number, read: boolean): Notification => ({
      _id: testId(n),
      id: testId(n),
      recipient: me,
      sender: null,
      type: 'task_updated',
      title: `n${n}`,
      message: '',
      relatedTask: null,
      data: {},
      read,
      createdAt: at(n),
      version: 1,
    });
    await bootstrapped(
      putsOf('notification', [notice(1, false), notice(2, true), notice(3, true), notice(4, true), notice(5, true)]),
    );
    await new WindowKeeper(db, me, countingServer()).runNow();
    expect((await db.notifications.orderBy('createdAt').toArray()).map((n) => n.title)).toEqual(['n1', 'n4', 'n5']);
  });

  test('counts answered while a pull came in are not taken', async () => {
    await bootstrapped(
      putsOf(
        'chatMessage',
        [5, 6, 7].map((n) => aChatMessage(n, at(n))),
      ),
    );
    const server = countingServer();
    const keeper = new WindowKeeper(db, me, {
      windowCounts: async (query) => {
        await applyPull(db, ctx, aPage([], { cursor: '12', window }));
        return server.windowCounts(query);
      },
    });
    await keeper.runNow();
    expect((await db.historyRanges.get(teamChatKey))?.before).toBeNull();
    await new WindowKeeper(db, me, server).runNow();
    expect((await db.historyRanges.get(teamChatKey))?.before).toMatchObject({ unread: 4 });
  });

  test('a device that holds everything (from protocol 9) trims to the window without a download', async () => {
    db = freshDb(me);
    // As protocol 9 left it: every message, no ranges, no task window.
    await db.chatMessages.bulkPut([1, 2, 3, 4, 5, 6].map((n) => aChatMessage(n, at(n))));
    await db.meta.bulkPut([
      { key: 'cursor', value: 10 },
      { key: 'window', value: window },
    ]);
    const conversationId = conversationIdFor(me, maya);
    await new WindowKeeper(db, me, countingServer(), { now: () => Date.parse(at(59)) }).runNow();
    expect(await chatIds()).toEqual([4, 5, 6].map(testId));
    expect(await db.historyRanges.get(teamChatKey)).toMatchObject({ edge: at(4), before: { unread: 4 } });
    expect(await db.historyRanges.get(conversationId)).toBeUndefined();
  });
});
