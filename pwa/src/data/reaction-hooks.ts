import { useLiveQuery } from 'dexie-react-hooks';
import type { ReactDirectArgs, ReactChatArgs } from '@office/sync-protocol';
import { useWorkspace } from '../sync/sync-context';

/** Queued reaction changes by message id: the emojis whose change this device has not had confirmed yet. */
export type QueuedReactions = ReadonlyMap<string, ReadonlySet<string>>;

const none: QueuedReactions = new Map();

/**
 * The reactions this device changed and the server has not confirmed, read from the outbox itself: a reaction
 * does not mark its message pending (the message is sent), so the outbox is what says it is still on its way.
 */
export function useQueuedReactions(name: 'chat.react' | 'dm.react'): QueuedReactions {
  const { db } = useWorkspace();
  return (
    useLiveQuery(async () => {
      const entries = await db.outbox
        .where('status')
        .equals('pending')
        .filter((entry) => entry.name === name)
        .toArray();
      const queued = new Map<string, Set<string>>();
      for (const entry of entries) {
        // Queued through mutate(), which validated them against this name's schema.
        const args = entry.args as ReactChatArgs | ReactDirectArgs;
        queued.set(args.id, (queued.get(args.id) ?? new Set<string>()).add(args.emoji));
      }
      return queued;
    }, [db, name]) ?? none
  );
}
