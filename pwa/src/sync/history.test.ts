import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  chatMessagePageSchema,
  chatMessageSchema,
  compareCursors,
  directMessagePageSchema,
  pullResponseSchema,
  teamChatKey,
  uuidv7,
  type ChatMessage,
} from '@office/sync-protocol';
import type { z } from 'zod';
import { bearer, signIn, startTestServer, type TestServer } from '../../../api/test/support';
import type { WorkspaceDb } from '../data/db';
import { readChatWindow } from '../screens/chat/chat-window';
import { applyPull } from './apply';
import { historyPageSize, joinSpans, loadHistory, type HistorySource } from './history';
import { readCursor } from './meta';
import { aPage, aUser, freshDb, putsOf, testWindow } from '../../test/sync-support';

// Older history on demand (issue 46) against the real server's pages: what the device loads, and what it then says
// it holds whole.

let server: TestServer;
let db: WorkspaceDb;
let token: string;
let selfId: string;
/** The team chat as the server holds it, oldest first. */
let chat: ChatMessage[];

afterEach(() => db?.close());

const source = (): HistorySource => {
  const get = async <S extends z.ZodType>(path: string, answer: S): Promise<z.output<S>> => {
    const response = await fetch(`${server.url}/api${path}`, { headers: bearer(token) });
    expect(response.status).toBe(200);
    return answer.parse(await response.json());
  };
  return {
    chatPage: (query) => get(`/messages?${query.toString()}`, chatMessagePageSchema),
    directPage: (id, query) => get(`/direct-messages/conversations/${id}/messages?${query}`, directMessagePageSchema),
  };
};

/** The team chat as the server pages it, oldest first. */
async function wholeChat(): Promise<ChatMessage[]> {
  const pages: ChatMessage[][] = [];
  let before: string | null = null;
  do {
    const query: string = before === null ? '' : `?before=${before}`;
    const page = chatMessagePageSchema.parse(
      (await server.app.inject({ method: 'GET', url: `/api/messages${query}`, headers: bearer(token) })).json(),
    );
    pages.unshift(page.messages);
    before = page.nextBefore;
  } while (before !== null);
  return pages.flat();
}

/** A device whose first download brought the team chat's newest `held` messages (its window). */
async function deviceHolding(held: number): Promise<void> {
  db = freshDb(selfId);
  const window = chat.slice(-held);
  await applyPull(
    db,
    { userId: selfId },
    aPage([...putsOf('user', [aUser(selfId)]), ...putsOf('chatMessage', window)], {
      reset: true,
      cursor: '10',
      window: { ...testWindow, teamChatMessages: held },
      bootstrap: { next: null, done: held + 1, total: held + 1, historyStarts: [] },
    }),
  );
}

const heldTexts = async () => (await db.chatMessages.orderBy('timestamp').toArray()).map((message) => message.text);

describe('older history on demand', () => {
  beforeEach(async () => {
    server = await startTestServer();
    ({
      token,
      user: { id: selfId },
    } = await signIn(server.app, 'admin@demo.local'));
    // More than a page on demand brings, so the beginning takes two.
    for (let n = 1; n <= historyPageSize + 30; n++) {
      const res = await server.app.inject({
        method: 'POST',
        url: '/api/messages',
        headers: bearer(token),
        payload: { text: `message ${n}` },
      });
      expect(res.statusCode).toBe(201);
    }
    chat = await wholeChat();
  });
  afterEach(() => server.close());

  test('scrolling past the window loads older pages until the server says the chat begins', async () => {
    await deviceHolding(10);
    const edge = chat.at(-10)!.timestamp;
    const opened = await readChatWindow(db, '', null, true);
    expect(opened.olderOnServer).toBe(true);
    expect(opened.atBeginning).toBe(false);

    expect(await loadHistory(db, source(), { key: teamChatKey, direction: 'older', time: edge })).toBe('loaded');
    const held = await db.chatMessages.orderBy('timestamp').toArray();
    // A page holds every message of its oldest one's time, so it may bring a few more than asked.
    expect(held.length).toBeGreaterThanOrEqual(10 + historyPageSize);
    expect(held.length).toBeLessThan(chat.length);
    expect(held.map((message) => message.id)).toEqual(chat.slice(-held.length).map((message) => message.id));
    const afterOne = await db.historyRanges.get(teamChatKey);
    expect(afterOne?.spans).toEqual([{ from: held[0]!.timestamp, to: null }]);
    // The window's edge stays: what was loaded is the cache the device evicts first.
    expect(afterOne?.edge).toBe(edge);
    expect(afterOne?.viewedAt).not.toBeNull();

    for (let step = 0; step < 5 && !(await readChatWindow(db, '', '', false)).atBeginning; step++)
      await loadHistory(db, source(), { key: teamChatKey, direction: 'older', time: edge });
    expect(await heldTexts()).toEqual(chat.map((message) => message.text));
    expect((await db.historyRanges.get(teamChatKey))?.spans).toEqual([{ from: '', to: null }]);
    const whole = await readChatWindow(db, '', '', false);
    expect(whole.atBeginning).toBe(true);
    expect(whole.olderOnServer).toBe(false);
  });

  test('a link to an old message loads the page around it, a stretch apart, then the pages after join it', async () => {
    await deviceHolding(10);
    const old = chat[20]!;
    expect(await loadHistory(db, source(), { key: teamChatKey, direction: 'around', messageId: old.id })).toBe(
      'loaded',
    );
    expect(await db.chatMessages.get(old.id)).toMatchObject({ text: old.text });
    const spans = (await db.historyRanges.get(teamChatKey))?.spans ?? [];
    expect(spans).toHaveLength(2);
    expect(spans[1]).toEqual({ from: chat.at(-10)!.timestamp, to: null });

    // The stretch around the old message is shown alone, saying newer messages are on the server.
    const around = await readChatWindow(db, '', old.timestamp, false);
    expect(around.messages.map((message) => message.id)).toContain(old.id);
    expect(around.endsBeforeNewest).toBe(true);
    expect(around.messages.at(-1)!.timestamp <= spans[0]!.to!).toBe(true);

    for (let step = 0; step < 5 && (await db.historyRanges.get(teamChatKey))!.spans.length > 1; step++)
      await loadHistory(db, source(), { key: teamChatKey, direction: 'newer', time: old.timestamp });
    const joined = (await db.historyRanges.get(teamChatKey))?.spans ?? [];
    expect(joined).toHaveLength(1);
    expect(joined[0]?.to).toBeNull();
    expect((await readChatWindow(db, '', old.timestamp, false)).endsBeforeNewest).toBe(false);
  });

  test('a deleted message asked for is missing, and a device that holds everything loads nothing', async () => {
    await deviceHolding(10);
    const gone = chat[5]!;
    const res = await server.app.inject({ method: 'DELETE', url: `/api/messages/${gone.id}`, headers: bearer(token) });
    expect(res.statusCode).toBeLessThan(300);
    expect(await loadHistory(db, source(), { key: teamChatKey, direction: 'around', messageId: gone.id })).toBe(
      'missing',
    );
    await db.historyRanges.delete(teamChatKey);
    expect(await loadHistory(db, source(), { key: teamChatKey, direction: 'older', time: chat[0]!.timestamp })).toBe(
      'nothing',
    );
  });
});

describe('joining spans', () => {
  test('overlapping and touching stretches become one; apart ones stay apart', () => {
    expect(joinSpans([{ from: 'b', to: 'c' }], { from: 'c', to: null })).toEqual([{ from: 'b', to: null }]);
    expect(joinSpans([{ from: 'e', to: null }], { from: 'a', to: 'b' })).toEqual([
      { from: 'a', to: 'b' },
      { from: 'e', to: null },
    ]);
  });
});

describe('pulls keep to the window (a real server with a lowered one)', () => {
  const windowSize = 5;
  let small: TestServer;
  beforeEach(async () => {
    small = await startTestServer({
      config: {
        historyWindow: { teamChatMessages: windowSize, directMessages: 3, completedTaskDays: 30, notifications: 200 },
      },
    });
  });
  afterEach(() => small.close());

  test('a first pull brings the window and nothing older; a change of a row outside it moves the cursor, unstored', async () => {
    const admin = await signIn(small.app, 'admin@demo.local');
    const send = async (text: string) => {
      const res = await small.app.inject({
        method: 'POST',
        url: '/api/messages',
        headers: bearer(admin.token),
        payload: { text },
      });
      expect(res.statusCode).toBe(201);
      return chatMessageSchema.parse(res.json<{ message: unknown }>().message);
    };
    const sent: ChatMessage[] = [];
    for (let n = 1; n <= 15; n++) sent.push(await send(`window ${n}`));
    const clientId = uuidv7();
    const pull = async (cursor: string) => {
      const response = await fetch(`${small.url}/api/sync/pull?clientId=${clientId}&cursor=${cursor}&limit=1000`, {
        headers: bearer(admin.token),
      });
      expect(response.status).toBe(200);
      return pullResponseSchema.parse(await response.json());
    };
    db = freshDb(admin.user.id);
    const first = await pull('0');
    expect(first.bootstrap?.next).toBeNull();
    await applyPull(db, { userId: admin.user.id }, first);
    const held = await db.chatMessages.orderBy('timestamp').toArray();
    expect(held.map((message) => message.text)).toEqual(sent.slice(-windowSize).map((message) => message.text));

    // Someone edits a message long before the window, and one inside it.
    const edit = async (message: ChatMessage, text: string) => {
      const res = await small.app.inject({
        method: 'PUT',
        url: `/api/messages/${message.id}`,
        headers: bearer(admin.token),
        payload: { text },
      });
      expect(res.statusCode).toBe(200);
    };
    await edit(sent[1]!, 'window 2, edited');
    await edit(sent[13]!, 'window 14, edited');
    const before = await readCursor(db);
    const next = await pull(before);
    expect(next.changes.some((change) => change.id === sent[1]!.id)).toBe(true);
    await applyPull(db, { userId: admin.user.id }, next);
    expect(await db.chatMessages.get(sent[1]!.id)).toBeUndefined();
    expect((await db.chatMessages.get(sent[13]!.id))?.text).toBe('window 14, edited');
    expect(await db.chatMessages.count()).toBe(windowSize);
    expect(await readCursor(db)).toBe(next.cursor);
    expect(compareCursors(next.cursor, before)).toBeGreaterThan(0);
  });
});
