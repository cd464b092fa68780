import { useCallback, useSyncExternalStore } from 'react';
import { useLiveQuery } from 'dexie-react-hooks';
import type { MutationArgs, MutationName } from '@office/sync-protocol';
import { isoToday } from '@office/sync-protocol';
import type { LocalChatMessage, LocalTask, LocalUser, OutboxEntry, TaskWindowState } from './db';
import { readTaskWindow } from '../sync/window';
import { mutate } from '../sync/mutate';
import { useWorkspace } from '../sync/sync-context';
import type { SyncState } from '../sync/engine';

/** Every user of the directory, by name. */
export function useUsers(): LocalUser[] | undefined {
  const { db } = useWorkspace();
  return useLiveQuery(() => db.users.orderBy('name').toArray(), [db]);
}

/** One user as this device knows them. */
export function useLocalUser(id: string | null): LocalUser | undefined {
  const { db } = useWorkspace();
  return useLiveQuery(() => (id ? db.users.get(id) : undefined), [db, id]);
}

/** The writes waiting for the server or refused by it, oldest first. */
export function useOutbox(): OutboxEntry[] | undefined {
  const { db } = useWorkspace();
  return useLiveQuery(() => db.outbox.orderBy('id').toArray(), [db]);
}

/** A local write: optimistic in IndexedDB at once, queued for the server, pushed right away when online. */
export function useMutate() {
  const { db, ctx, engine } = useWorkspace();
  return useCallback(
    async <N extends MutationName>(name: N, args: MutationArgs<N>): Promise<number> => {
      const id = await mutate(db, ctx, name, args);
      engine.kick();
      return id;
    },
    [db, ctx, engine],
  );
}

/** The sync loop's phase, live. */
export function useSyncState(): SyncState {
  const { engine } = useWorkspace();
  return useSyncExternalStore(engine.subscribe, engine.getState);
}

const subscribeOnline = (notify: () => void) => {
  window.addEventListener('online', notify);
  window.addEventListener('offline', notify);
  return () => {
    window.removeEventListener('online', notify);
    window.removeEventListener('offline', notify);
  };
};

/** Whether the browser believes it has a network. */
export const useOnline = (): boolean => useSyncExternalStore(subscribeOnline, () => navigator.onLine);

/** Every task this user may see, most recently updated first. */
export function useTasks(): LocalTask[] | undefined {
  const { db } = useWorkspace();
  return useLiveQuery(() => db.tasks.orderBy('updatedAt').reverse().toArray(), [db]);
}

/** Which completed tasks this device holds and what the server counted before them (issue 46), live. */
export function useTaskWindow(): TaskWindowState | undefined {
  const { db } = useWorkspace();
  return useLiveQuery(() => readTaskWindow(db), [db]);
}

/** One task, live. */
export function useTask(id: string | null): LocalTask | undefined {
  const { db } = useWorkspace();
  return useLiveQuery(() => (id ? db.tasks.get(id) : undefined), [db, id]);
}

/** Today's ISO date, as the spec compares due dates; re-read on each render. */
export const useToday = (): string => isoToday();

/** The latest team chat messages, newest first. */
export function useLatestChatMessages(count: number): LocalChatMessage[] | undefined {
  const { db } = useWorkspace();
  return useLiveQuery(() => db.chatMessages.orderBy('timestamp').reverse().limit(count).toArray(), [db, count]);
}

/** Whether this device has pulled everything from the server at least once: no bootstrap under way (undefined while reading). */
export function useHasSynced(): boolean | undefined {
  const { db } = useWorkspace();
  return useLiveQuery(
    async () => (await db.meta.get('cursor')) !== undefined && (await db.meta.get('bootstrap')) === undefined,
    [db],
  );
}
