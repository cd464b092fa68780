import {
  chatMessagePageSchema,
  directMessagePageSchema,
  teamChatKey,
  type ChatMessagePage,
  type DirectMessage,
  type DirectMessagePage,
} from '@office/sync-protocol';
import { api } from '../api/http';
import type { HeldSpan, HistoryRange, WorkspaceDb } from '../data/db';
import { readCursor } from './meta';
import { spansHold } from './window';

// Older history on demand (issue 46): a conversation's messages before what the device holds come from the server a
// page at a time (GET /api/messages, a conversation's messages), into the cache the window keeper evicts first. The
// spans of the conversation's range say what the device then holds whole, so a pulled change of those rows is kept
// current and the screens know where a gap begins.

/** Loading history from the server: not asked, under way, or failed (the reader may try again). */
export type HistoryLoad = 'idle' | 'loading' | 'failed';

/** How many messages a page on demand brings. */
export const historyPageSize = 100;

/** Where the pages come from. */
export interface HistorySource {
  chatPage(query: URLSearchParams): Promise<ChatMessagePage>;
  directPage(conversationId: string, query: URLSearchParams): Promise<DirectMessagePage>;
}

export const httpHistory: HistorySource = {
  chatPage: (query) => api.get(`/messages?${query.toString()}`, { answer: chatMessagePageSchema }),
  directPage: (conversationId, query) =>
    api.get(`/direct-messages/conversations/${conversationId}/messages?${query.toString()}`, {
      answer: directMessagePageSchema,
    }),
};

/** What to load: the page before or after the span that holds `time`, or the page around one message. */
export type HistoryRequest =
  { key: string; direction: 'older' | 'newer'; time: string } | { key: string; direction: 'around'; messageId: string };

/** What came of it: loaded, the message asked for is not on the server (deleted), or nothing was to load. */
export type HistoryOutcome = 'loaded' | 'missing' | 'nothing';

/** A message as the device stores it, whichever conversation: its id, time and whether a queued write made it. */
interface StoredMessage {
  id: string;
  time: string;
  pending: boolean;
}

function tableOf(db: WorkspaceDb, key: string) {
  if (key === teamChatKey)
    return {
      table: db.table<{ id: string }, string>('chatMessages'),
      inSpan: async (span: HeldSpan): Promise<StoredMessage[]> =>
        (
          await (
            span.to === null
              ? db.chatMessages.where('timestamp').aboveOrEqual(span.from)
              : db.chatMessages.where('timestamp').between(span.from, span.to, true, true)
          ).toArray()
        ).map((row) => ({ id: row.id, time: row.timestamp, pending: row.pending === 1 })),
    };
  return {
    table: db.table<{ id: string }, string>('directMessages'),
    inSpan: async (span: HeldSpan): Promise<StoredMessage[]> =>
      (
        await db.directMessages
          .where('[conversationId+createdAt]')
          .between([key, span.from], [key, span.to ?? '\uffff'], true, true)
          .toArray()
      ).map((row) => ({ id: row.id, time: row.createdAt, pending: row.pending === 1 })),
  };
}

/** The spans with `added` joined in, oldest first, those that overlap merged into one. */
export function joinSpans(spans: readonly HeldSpan[], added: HeldSpan): HeldSpan[] {
  const sorted = [...spans, added].sort((a, b) => a.from.localeCompare(b.from));
  const joined: HeldSpan[] = [];
  for (const span of sorted) {
    const last = joined.at(-1);
    if (last && (last.to === null || span.from <= last.to)) {
      last.to = last.to === null || span.to === null ? null : last.to > span.to ? last.to : span.to;
    } else joined.push({ ...span });
  }
  return joined;
}

/** The span holding `time`, if any. */
export const spanAt = (range: HistoryRange, time: string): HeldSpan | undefined =>
  range.spans.find((span) => spansHold([span], time));

const stripReads = ({ readBy: _readBy, ...message }: DirectMessagePage['messages'][number]): DirectMessage => message;

/**
 * Loads one page of a conversation's history into the cache and widens its spans. The page is stored only if no
 * pull came in while it was read (the cursor compared, never read): a pull in between may have left out a change of
 * these rows, which the device did not hold yet. Then it is read again, twice at most, and stored as it is.
 */
export async function loadHistory(
  db: WorkspaceDb,
  source: HistorySource,
  request: HistoryRequest,
  now: () => Date = () => new Date(),
): Promise<HistoryOutcome> {
  const range = await db.historyRanges.get(request.key);
  // Without a range the device holds the whole history.
  if (!range) return 'nothing';
  const store = tableOf(db, request.key);
  const query = new URLSearchParams({ limit: String(historyPageSize) });
  let span: HeldSpan | undefined;
  if (request.direction === 'around') query.set('around', request.messageId);
  else {
    span = spanAt(range, request.time);
    if (!span) return 'nothing';
    // The first (or last) message the server knows: an unsent one would name nothing to it.
    const held = (await store.inSpan(span)).filter((message) => !message.pending);
    const anchor = request.direction === 'older' ? held[0] : held.at(-1);
    if (!anchor) return 'nothing';
    query.set(request.direction === 'older' ? 'before' : 'after', anchor.id);
  }
  for (let attempt = 1; ; attempt++) {
    const cursor = await readCursor(db);
    const page =
      request.key === teamChatKey
        ? await source.chatPage(query)
        : await source.directPage(request.key, query).then((answer) => ({
            ...answer,
            messages: answer.messages.map(stripReads),
          }));
    if (request.direction === 'around' && page.messages.length === 0) return 'missing';
    const stored = await db.transaction('rw', [store.table, db.historyRanges, db.meta], async () => {
      if (attempt < 3 && (await readCursor(db)) !== cursor) return false;
      const current = await db.historyRanges.get(request.key);
      if (!current) return true;
      const held = await store.table.bulkGet(page.messages.map((message) => message.id));
      // A held row is kept current by the pulls (and may carry a queued write): only the others are added.
      await store.table.bulkPut(page.messages.filter((_message, i) => held[i] === undefined));
      const times = page.messages.map((message) => ('timestamp' in message ? message.timestamp : message.createdAt));
      const oldest = times[0];
      const newest = times.at(-1);
      let spans = current.spans;
      if (request.direction === 'older' && span) {
        const from = page.nextBefore === null ? '' : (oldest ?? span.from);
        spans = joinSpans(spans, { from, to: span.to === null ? null : span.to });
      } else if (request.direction === 'newer' && span) {
        spans = joinSpans(spans, { from: span.from, to: page.nextAfter === null ? null : (newest ?? span.to) });
      } else if (oldest !== undefined && newest !== undefined) {
        spans = joinSpans(spans, {
          from: page.nextBefore === null ? '' : oldest,
          to: page.nextAfter === null ? null : newest,
        });
      }
      await db.historyRanges.put({ ...current, spans, viewedAt: now().toISOString() });
      return true;
    });
    if (stored) return 'loaded';
  }
}

/** The person reads messages before the window's edge: the cache of this conversation is kept a while longer. */
export async function markHistoryViewed(db: WorkspaceDb, key: string, now: Date = new Date()): Promise<void> {
  await db.historyRanges.update(key, { viewedAt: now.toISOString() });
}
