import { teamChatKey } from '@office/sync-protocol';
import type { HeldSpan, LocalChatMessage, WorkspaceDb } from '../../data/db';
import { unsentLast } from '../../data/unsent-last';
import { spansHold } from '../../sync/window';
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
  /**
   * Issue 46: the window starts at the oldest message the device holds of this stretch of the chat, and the server
   * may hold older ones (it has not said the chat begins there). Never while searching.
   */
  olderOnServer: boolean;
  /** The window starts at the team chat's first message: the server said nothing is older. */
  atBeginning: boolean;
  /** The window ends before the newest messages (a message reached from search, far back): newer ones are not here. */
  endsBeforeNewest: boolean;
}

/** The whole history, as the device holds a chat it has no range of. */
const wholeChat: HeldSpan[] = [{ from: '', to: null }];

/** What the device holds whole of the team chat, oldest first. */
export async function heldSpans(db: WorkspaceDb): Promise<HeldSpan[]> {
  return (await db.historyRanges.get(teamChatKey))?.spans ?? wholeChat;
}

/** The stretch a window starting at `since` shows: the one holding it, else the newest. */
export const spanOfWindow = (spans: readonly HeldSpan[], since: string | null): HeldSpan =>
  (since !== null ? spans.find((span) => spansHold([span], since)) : undefined) ?? spans.at(-1) ?? wholeChat[0]!;

/** The messages of a stretch of the chat, by time. */
const messagesIn = (db: WorkspaceDb, span: HeldSpan) =>
  span.to === null
    ? db.chatMessages.where('timestamp').aboveOrEqual(span.from)
    : db.chatMessages.where('timestamp').between(span.from, span.to, true, true);

/**
 * Where a window of `chatWindowSize` more (matching) messages older than `before` starts; null for
 * before: the newest ones. From the beginning when fewer are left. Without a search, within the stretch the
 * device holds whole: a gap before it is not stepped over.
 */
export async function olderWindowStart(db: WorkspaceDb, search: string, before: string | null): Promise<string> {
  const matches = chatSearchMatcher(search);
  const span = matches ? wholeChat[0]! : spanOfWindow(await heldSpans(db), before);
  const range =
    before === null ? messagesIn(db, span) : db.chatMessages.where('timestamp').between(span.from, before, true, false);
  const newestFirst = range.reverse();
  const oldestInWindow = await (matches ? newestFirst.filter(matches) : newestFirst).offset(chatWindowSize - 1).first();
  return oldestInWindow?.timestamp ?? (matches ? fromTheBeginning : span.from);
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
  const span = matches ? wholeChat[0]! : spanOfWindow(await heldSpans(db), since);
  const start = since ?? (await olderWindowStart(db, search, null));
  const fromStart = messagesIn(db, { ...span, from: start > span.from ? start : span.from });
  let messages = await (matches ? fromStart.filter(matches) : fromStart).toArray();
  let windowStart = start;
  if (following && messages.length > followedWindowLimit) {
    messages = messages.slice(-chatWindowSize);
    windowStart = messages[0]?.timestamp ?? start;
  }
  const before = db.chatMessages.where('timestamp').between(span.from, windowStart, true, false);
  const olderMatch = await (matches ? before.filter(matches) : before).first();
  const hasOlder = olderMatch !== undefined;
  const chatIsEmpty = messages.length === 0 && !hasOlder && (await db.chatMessages.count()) === 0;
  return {
    search: search.trim(),
    requestedSince: since,
    since: windowStart,
    messages: unsentLast(messages),
    hasOlder,
    chatIsEmpty,
    olderOnServer: !matches && !hasOlder && span.from !== fromTheBeginning,
    atBeginning: !matches && !hasOlder && span.from === fromTheBeginning,
    endsBeforeNewest: !matches && span.to !== null,
  };
}
