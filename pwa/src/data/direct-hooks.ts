import { useCallback } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import { conversationIdFor, isUnreadBy, type Participant } from '@office/sync-protocol';
import type { LocalConversation, LocalDirectMessage, WorkspaceDb } from './db';
import { useWorkspace } from '../sync/sync-context';
import { useMutate } from './hooks';
import { unsentLast } from './unsent-last';

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
  const [conversations, messages] = await Promise.all([db.conversations.toArray(), db.directMessages.toArray()]);
  const byId = new Map(conversations.map((c) => [c.id, c]));
  const unread = new Map<string, number>();
  for (const message of messages) {
    const conversation = byId.get(message.conversationId);
    if (conversation && isUnreadBy(message, conversation, selfId))
      unread.set(conversation.id, (unread.get(conversation.id) ?? 0) + 1);
  }
  const activity = (c: LocalConversation) => c.lastMessageAt ?? c.createdAt;
  return conversations
    .flatMap((conversation) => {
      const other = otherParticipant(conversation, selfId);
      return other ? [{ conversation, other, unreadCount: unread.get(conversation.id) ?? 0 }] : [];
    })
    .sort((a, b) => activity(b.conversation).localeCompare(activity(a.conversation)));
}

/** The messages of one conversation, oldest first; unsent ones last (see `unsentLast`). */
export function useConversationMessages(conversationId: string | null): LocalDirectMessage[] | undefined {
  const { db } = useWorkspace();
  return useLiveQuery(
    async () =>
      conversationId
        ? unsentLast(
            await db.directMessages
              .where('[conversationId+createdAt]')
              .between([conversationId, ''], [conversationId, '\uffff'])
              .toArray(),
          )
        : [],
    [db, conversationId],
  );
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
