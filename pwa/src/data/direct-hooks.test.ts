import { afterEach, describe, expect, test } from 'vitest';
import type { WorkspaceDb } from './db';
import { listConversationSummaries } from './direct-hooks';
import { aConversation, aDirectMessage, freshDb, testId } from '../../test/sync-support';

const me = testId(1);
let db: WorkspaceDb;
afterEach(() => db?.close());

const at = (minute: number) => `2026-07-01T10:${String(minute).padStart(2, '0')}:00.000Z`;

describe('a conversation’s unread count with its history off the device (issue 46)', () => {
  async function conversationReadThrough(readAt: string | null) {
    db = freshDb(me);
    const conversation = aConversation(me);
    const [self, other] = conversation.participants;
    if (!self || !other) throw new Error('two participants');
    await db.conversations.put({ ...conversation, participants: [{ ...self, lastReadAt: readAt }, other] });
    await db.directMessages.bulkPut([10, 11, 12].map((n) => aDirectMessage(me, n, at(n))));
    await db.historyRanges.put({
      key: conversation.id,
      edge: at(10),
      spans: [{ from: at(10), to: null }],
      before: { unread: 215, readAt, byAuthor: {} },
      stale: false,
      viewedAt: null,
    });
    return (await listConversationSummaries(db, me))[0]?.unreadCount;
  }

  test('counts the held messages unread and what the server counted before the window', async () => {
    expect(await conversationReadThrough(null)).toBe(3 + 215);
    expect(await conversationReadThrough(at(5))).toBe(3 + 215);
  });

  test('a read time past the edge counts the held messages after it alone', async () => {
    expect(await conversationReadThrough(at(11))).toBe(1);
  });
});
