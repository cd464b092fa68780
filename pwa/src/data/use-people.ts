import { useCallback, useMemo, useSyncExternalStore } from 'react';
import type { PresenceStatus } from '@office/sync-protocol';
import { useWorkspace } from '../sync/sync-context';
import { useOnline, useUsers } from './hooks';
import { presenceOf, type People } from './people';

/**
 * The directory by user id, live. Screens name and picture people from here by id rather than from
 * the copy a task, message or notification carries, so a rename on another device shows everywhere.
 */
export function usePeople(): People {
  const users = useUsers();
  return useMemo(() => new Map((users ?? []).map((user) => [user.id, user])), [users]);
}

/** Whether the realtime connection is up now. */
function useSocketConnected(): boolean {
  const { socket } = useWorkspace();
  const subscribe = useCallback(
    (notify: () => void) => {
      socket.on('connect', notify);
      socket.on('disconnect', notify);
      return () => {
        socket.off('connect', notify);
        socket.off('disconnect', notify);
      };
    },
    [socket],
  );
  return useSyncExternalStore(subscribe, () => socket.connected);
}

/** The one presence selector of every screen: `presenceOf` with this device's user and connection. */
export function usePresence(): (person: { id: string; status: PresenceStatus }) => PresenceStatus {
  const { ctx } = useWorkspace();
  const socketConnected = useSocketConnected();
  const browserOnline = useOnline();
  const connected = socketConnected && browserOnline;
  return useCallback((person) => presenceOf(person, ctx.userId, connected), [ctx.userId, connected]);
}
