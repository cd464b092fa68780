import { afterEach, describe, expect, test } from 'vitest';
import type { LocalChatMessage, WorkspaceDb } from '../../data/db';
import { freshDb } from '../../../test/sync-support';
import { chatWindowSize, followedWindowLimit, olderWindowStart, readChatWindow } from './chat-window';

const userId = '01900000-0000-7000-8000-000000000001';
let db: WorkspaceDb;

afterEach(() => db?.close());

/** Message number `n`, sent `n` minutes after the first; its text is "message n". */
function aMessage(n: number, text = `message ${n}`): LocalChatMessage {
  const id = `01900000-0000-7000-8000-${String(n).padStart(12, '0')}`;
  return {
    _id: id,
    id,
    userId: { _id: userId, id: userId, name: 'Alice Johnson', avatar: null, role: 'employee' },
    userName: 'Alice Johnson',
    userAvatar: null,
    text,
    type: 'text',
    timestamp: new Date(Date.UTC(2025, 4, 14) + n * 60_000).toISOString(),
    edited: false,
    attachments: [],
    reactions: [],
    version: 1,
  };
}

/** A chat of messages numbered 1 (oldest) to `count`. */
async function chatOf(count: number, textOf?: (n: number) => string): Promise<WorkspaceDb> {
  db = freshDb(userId);
  const numbers = Array.from({ length: count }, (_, index) => index + 1);
  await db.chatMessages.bulkAdd(numbers.map((n) => aMessage(n, textOf?.(n))));
  return db;
}

const texts = (messages: readonly LocalChatMessage[]): string[] => messages.map((message) => message.text);

describe('the team chat window', () => {
  test('opening reads the newest messages only, oldest of them first', async () => {
    await chatOf(130);
    const opened = await readChatWindow(db, '', null, true);
    expect(opened.messages).toHaveLength(chatWindowSize);
    expect(opened.messages[0]?.text).toBe('message 31');
    expect(opened.messages.at(-1)?.text).toBe('message 130');
    expect(opened.hasOlder).toBe(true);
    expect(opened.since).toBe(aMessage(31).timestamp);
  });

  test('the step back reaches the first message, and then nothing older is left', async () => {
    await chatOf(130);
    const first = await readChatWindow(db, '', null, true);
    const start = await olderWindowStart(db, '', first.since);
    const widened = await readChatWindow(db, '', start, false);
    expect(widened.messages).toHaveLength(130);
    expect(widened.messages[0]?.text).toBe('message 1');
    expect(widened.hasOlder).toBe(false);
  });

  test('a new message joins a kept window instead of pushing its oldest out', async () => {
    await chatOf(130);
    const first = await readChatWindow(db, '', null, true);
    await db.chatMessages.add(aMessage(131));
    const kept = await readChatWindow(db, '', first.since, false);
    expect(kept.messages[0]?.text).toBe('message 31');
    expect(kept.messages.at(-1)?.text).toBe('message 131');
  });

  test('a followed window grown past its limit is cut back to the newest messages', async () => {
    await chatOf(followedWindowLimit + 20);
    const everything = await readChatWindow(db, '', '', false);
    expect(everything.messages).toHaveLength(followedWindowLimit + 20);
    const followed = await readChatWindow(db, '', '', true);
    expect(followed.messages).toHaveLength(chatWindowSize);
    expect(followed.messages.at(-1)?.text).toBe(`message ${followedWindowLimit + 20}`);
    expect(followed.since).toBe(followed.messages[0]?.timestamp);
    expect(followed.hasOlder).toBe(true);
  });

  test('a search finds matches older than the window and windows them the same way', async () => {
    await chatOf(400, (n) => (n % 2 === 0 ? `even ${n}` : `odd ${n}`));
    const oldest = await readChatWindow(db, ' ODD 1 ', null, true);
    expect(texts(oldest.messages)).toContain('odd 1');
    expect(oldest.search).toBe('ODD 1');

    const odd = await readChatWindow(db, 'odd', null, true);
    expect(odd.messages).toHaveLength(chatWindowSize);
    expect(odd.messages.every((message) => message.text.startsWith('odd'))).toBe(true);
    expect(odd.messages[0]?.text).toBe('odd 201');
    expect(odd.hasOlder).toBe(true);
    const rest = await readChatWindow(db, 'odd', await olderWindowStart(db, 'odd', odd.since), false);
    expect(rest.messages).toHaveLength(200);
    expect(rest.hasOlder).toBe(false);
  });

  test('an empty chat says so; a search without matches does not', async () => {
    await chatOf(0);
    expect((await readChatWindow(db, '', null, true)).chatIsEmpty).toBe(true);
    await db.chatMessages.add(aMessage(1));
    const unmatched = await readChatWindow(db, 'nobody', null, true);
    expect(unmatched.messages).toEqual([]);
    expect(unmatched.chatIsEmpty).toBe(false);
  });
});
