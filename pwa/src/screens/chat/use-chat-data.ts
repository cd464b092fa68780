import { useEffect, useState } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import type { LocalChatMessage } from '../../data/db';
import { api } from '../../api/http';
import { useWorkspace } from '../../sync/sync-context';
import { TypingAnnouncer } from './typing-announcer';
import { addTypingEntry, expireTypingEntries, removeTypingEntry, typingCheckMs, type TypingEntry } from './typing';

/** Every team chat message on this device, oldest first; pending ones included. */
export function useChatMessages(): LocalChatMessage[] | undefined {
  const { db } = useWorkspace();
  return useLiveQuery(() => db.chatMessages.orderBy('timestamp').toArray(), [db]);
}

/**
 * Who is typing in the team chat (conversation null) or one conversation, from the socket's `user-typing`
 * and `stop-typing`. Entries expire 5 s after their last refresh, checked every second; the viewer's own never show.
 */
export function useTypingUsers(selfId: string, conversationId: string | null = null): readonly TypingEntry[] {
  const { socket } = useWorkspace();
  const [entries, setEntries] = useState<readonly TypingEntry[]>([]);

  useEffect(() => {
    const handleTyping = (event: { userId: string; userName: string; conversationId: string | null }) => {
      if (event.conversationId !== conversationId) return;
      setEntries((current) => addTypingEntry(current, event, Date.now(), selfId));
    };
    const handleStop = (event: { userId: string; conversationId: string | null }) => {
      if (event.conversationId !== conversationId) return;
      setEntries((current) => removeTypingEntry(current, event.userId));
    };
    socket.on('user-typing', handleTyping);
    socket.on('stop-typing', handleStop);
    const timer = window.setInterval(
      () => setEntries((current) => expireTypingEntries(current, Date.now())),
      typingCheckMs,
    );
    return () => {
      socket.off('user-typing', handleTyping);
      socket.off('stop-typing', handleStop);
      window.clearInterval(timer);
    };
  }, [socket, selfId, conversationId]);

  return entries;
}

/** Announces this user's typing to the team (fire-and-forget); announces the stop when the screen closes. */
export function useTypingAnnouncer(): TypingAnnouncer {
  const [announcer] = useState(
    () =>
      new TypingAnnouncer((isTyping) => {
        // Typing is a hint for people online right now: nothing to queue while offline.
        if (!navigator.onLine) return;
        api.post('/messages/typing', { isTyping }).catch(() => undefined);
      }),
  );
  useEffect(() => () => announcer.stop(), [announcer]);
  return announcer;
}
