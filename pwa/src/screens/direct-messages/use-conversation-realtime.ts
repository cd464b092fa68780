import { useEffect, useMemo } from 'react';
import { useWorkspace } from '../../sync/sync-context';
import { TypingAnnouncer } from '../chat/typing-announcer';

/**
 * Joins the conversation's room while it is open, so typing reaches it, and leaves it on close.
 * `live` is false while the conversation exists only on this device: the server would refuse the room.
 * The data itself comes through sync, not this room.
 */
export function useConversationRoom(conversationId: string, live: boolean): void {
  const { socket } = useWorkspace();
  useEffect(() => {
    if (!live) return undefined;
    const ref = { conversationId };
    const join = () => socket.emit('join-conversation', ref);
    if (socket.connected) join();
    // A reconnect starts with no rooms but the ones the server puts the user in.
    socket.on('connect', join);
    return () => {
      socket.off('connect', join);
      if (socket.connected) socket.emit('leave-conversation', ref);
    };
  }, [socket, conversationId, live]);
}

/**
 * Announces this user's typing in one conversation over the socket (a hint for whoever is online now:
 * nothing is queued offline); announces the stop when the conversation closes.
 */
export function useConversationTypingAnnouncer(conversationId: string, live: boolean): TypingAnnouncer {
  const { socket } = useWorkspace();
  const announcer = useMemo(
    () =>
      new TypingAnnouncer((isTyping) => {
        if (!live || !navigator.onLine || !socket.connected) return;
        socket.emit(isTyping ? 'typing-start' : 'typing-stop', { conversationId });
      }),
    [socket, conversationId, live],
  );
  useEffect(() => () => announcer.stop(), [announcer]);
  return announcer;
}
