import { useCallback } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { conversationIdFor, isUnreadBy, lastReadAtOf, type Participant } from '@office/sync-protocol';
import type { HistoryRange, LocalConversation, LocalDirectMessage, WorkspaceDb } from './db';
import { useWorkspace } from '../sync/sync-context';
import { useMutate } from './hooks';
import { unsentLast } from './unsent-last';
import { rangeOrWhole, spansHold } from '../sync/window';

/** A conversation as the sidebar lists it: the other participant and the viewer's unread count. */
export interface ConversationSummary {
  conversation: LocalConversation;
  other: Participant;
  unreadCount: number;
}

const otherParticipant = (conversation: LocalConversation, selfId: string): Participant | undefined =>
  conversation.participants.find((p) => p.id !== selfId);

/** Every conversation of the signed-in user, the most recently active first, with unread counts. */
export function useConversations(): ConversationSummary[] | undefined {
  const { db, ctx } = useWorkspace();
  return useLiveQuery(() => listConversationSummaries(db, ctx.userId), [db, ctx.userId]);
}

export async function listConversationSummaries(db: WorkspaceDb, selfId: string): Promise<ConversationSummary[]> {
  const conversations = await db.conversations.toArray();
  const ranges = await db.historyRanges.bulkGet(conversations.map((conversation) => conversation.id));
  const unread = await Promise.all(
    conversations.map((conversation, i) => countUnreadIn(db, conversation, ranges[i], selfId)),
  );
  const activity = (c: LocalConversation) => c.lastMessageAt ?? c.createdAt;
  return conversations
    .flatMap((conversation, i) => {
      const other = otherParticipant(conversation, selfId);
      return other ? [{ conversation, other, unreadCount: unread[i] ?? 0 }] : [];
    })
    .sort((a, b) => activity(b.conversation).localeCompare(activity(a.conversation)));
}

/**
 * The other participant's messages the viewer has not read, by index: those the device holds from its window's
 * edge on, plus what the server counted before the edge (issue 46) unless the viewer has read past it.
 */
async function countUnreadIn(
  db: WorkspaceDb,
  conversation: LocalConversation,
  range: HistoryRange | undefined,
  selfId: string,
): Promise<number> {
  const readAt = lastReadAtOf(conversation, selfId);
  const edge = range?.edge ?? null;
  const from =
    edge !== null && (readAt === null || edge > readAt) ? { at: edge, open: false } : { at: readAt ?? '', open: true };
  const held = await db.directMessages
    .where('[conversationId+createdAt]')
    .between([conversation.id, from.at], [conversation.id, '\uffff'], !from.open, true)
    .filter((message) => isUnreadBy(message, conversation, selfId))
    .count();
  const before = edge !== null && (readAt === null || readAt < edge) ? (range?.before?.unread ?? 0) : 0;
  return held + before;
}

/** What a conversation's list shows: one stretch the device holds whole (issue 46), and what lies beyond it. */
export interface ConversationWindow {
  /** Oldest first; unsent ones last (see `unsentLast`). */
  messages: LocalDirectMessage[];
  /** The server holds older messages than the stretch starts with (it has not said the conversation begins there). */
  olderOnServer: boolean;
  /** The stretch ends before the newest messages (a message reached from search, far back). */
  endsBeforeNewest: boolean;
}

/**
 * The messages of one conversation the device holds whole around `focus` (a message time), or its newest ones
 * when null or not held: a gap in what the device holds is never shown as if nothing were in it.
 */
export function useConversationWindow(conversationId: string, focus: string | null): ConversationWindow | undefined {
  const { db } = useWorkspace();
  return useLiveQuery(() => readConversationWindow(db, conversationId, focus), [db, conversationId, focus]);
}

export async function readConversationWindow(
  db: WorkspaceDb,
  conversationId: string,
  focus: string | null,
): Promise<ConversationWindow> {
  const { spans } = rangeOrWhole(await db.historyRanges.get(conversationId), conversationId);
  const span = (focus !== null ? spans.find((held) => spansHold([held], focus)) : undefined) ?? spans.at(-1);
  const from = span?.from ?? '';
  const to = span?.to ?? null;
  const messages = await db.directMessages
    .where('[conversationId+createdAt]')
    .between([conversationId, from], [conversationId, to ?? '\uffff'], true, true)
    .toArray();
  return { messages: unsentLast(messages), olderOnServer: from !== '', endsBeforeNewest: to !== null };
}

/** Starts (or reuses) the conversation with a user, offline too; resolves to its id. */
export function useStartConversation(): (recipientId: string) => Promise<string> {
  const { ctx } = useWorkspace();
  const mutate = useMutate();
  return useCallback(
    async (recipientId: string) => {
      await mutate('dm.start', { recipientId });
      return conversationIdFor(ctx.userId, recipientId);
    },
    [ctx.userId, mutate],
  );
}

/**
 * Marks what the viewer has seen of a conversation as read: through the newest message of the other
 * participant, by the server's time. Does nothing when that is already read.
 */
export function useMarkConversationRead(): (
  conversation: LocalConversation,
  messages: readonly LocalDirectMessage[],
) => Promise<void> {
  const { ctx } = useWorkspace();
  const mutate = useMutate();
  return useCallback(
    async (conversation, messages) => {
      const newestUnread = messages.findLast((message) => isUnreadBy(message, conversation, ctx.userId));
      if (!newestUnread) return;
      await mutate('dm.markRead', { conversationId: conversation.id, through: newestUnread.createdAt });
    },
    [ctx.userId, mutate],
  );
}
