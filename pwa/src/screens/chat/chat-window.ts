import type { LocalChatMessage, WorkspaceDb } from '../../data/db';
import { unsentLast } from '../../data/unsent-last';
import { chatSearchMatcher } from './chat-format';

/** How many messages the chat reads on open, and how many more each step back in time adds. */
export const chatWindowSize = 100;

/**
 * While the reader follows the newest messages, the window is cut back to the newest
 * `chatWindowSize` once it grows beyond this (a first download, a busy day), so it never holds the whole chat.
 */
export const followedWindowLimit = 5 * chatWindowSize;

/** ISO times sort after the empty string: a window starting here holds every message. */
const fromTheBeginning = '';

/** The part of the team chat the screen shows: every (matching) message from `since` on. */
export interface ChatWindow {
  /** The trimmed search the window answers; '' for none. */
  search: string;
  /** The start the window was asked for; null asked for the newest `chatWindowSize`. */
  requestedSince: string | null;
  /** The time of the window's oldest message: it holds every (matching) message from here on. */
  since: string;
  /** Oldest first; unsent ones last (see `unsentLast`). */
  messages: LocalChatMessage[];
  /** Whether older (matching) messages are on the device beyond the window. */
  hasOlder: boolean;
  /** Whether the device holds no chat message at all. */
  chatIsEmpty: boolean;
}

/**
 * Where a window of `chatWindowSize` more (matching) messages older than `before` starts; null for
 * before: the newest ones. From the beginning when fewer are left.
 */
export async function olderWindowStart(db: WorkspaceDb, search: string, before: string | null): Promise<string> {
  const matches = chatSearchMatcher(search);
  const range =
    before === null ? db.chatMessages.orderBy('timestamp') : db.chatMessages.where('timestamp').below(before);
  const newestFirst = range.reverse();
  const oldestInWindow = await (matches ? newestFirst.filter(matches) : newestFirst).offset(chatWindowSize - 1).first();
  return oldestInWindow?.timestamp ?? fromTheBeginning;
}

/**
 * Reads the window starting at `since` (the newest `chatWindowSize` when null). A search filters the
 * whole table, so it finds matches the window has not loaded. `following`: the reader is at the newest
 * message, and a window grown past `followedWindowLimit` is cut back to the newest ones.
 */
export async function readChatWindow(
  db: WorkspaceDb,
  search: string,
  since: string | null,
  following: boolean,
): Promise<ChatWindow> {
  const matches = chatSearchMatcher(search);
  const start = since ?? (await olderWindowStart(db, search, null));
  const fromStart = db.chatMessages.where('timestamp').aboveOrEqual(start);
  let messages = await (matches ? fromStart.filter(matches) : fromStart).toArray();
  let windowStart = start;
  if (following && messages.length > followedWindowLimit) {
    messages = messages.slice(-chatWindowSize);
    windowStart = messages[0]?.timestamp ?? start;
  }
  const before = db.chatMessages.where('timestamp').below(windowStart);
  const olderMatch = await (matches ? before.filter(matches) : before).first();
  const chatIsEmpty = messages.length === 0 && olderMatch === undefined && (await db.chatMessages.count()) === 0;
  return {
    search: search.trim(),
    requestedSince: since,
    since: windowStart,
    messages: unsentLast(messages),
    hasOlder: olderMatch !== undefined,
    chatIsEmpty,
  };
}
