import type { MutationArgs, MutationName } from '@office/sync-protocol';
import { syncedTableNames, type WorkspaceDb } from '../data/db';
import { mutate } from './mutate';
import type { MutatorContext } from './mutators';

/** Tries a refused write again, as a new mutation at the end of the queue; the caller then starts a sync. */
export async function retryFailed(db: WorkspaceDb, ctx: MutatorContext, entryId: number): Promise<void> {
  await db.transaction('rw', [db.outbox, db.meta, ...syncedTableNames], async () => {
    const entry = await db.outbox.get(entryId);
    if (entry?.status !== 'failed') return;
    await db.outbox.delete(entryId);
    // The args passed this name's schema when the entry was first queued.
    await mutate(db, ctx, entry.name, entry.args as MutationArgs<MutationName>);
  });
}

/** Forgets a refused write; its optimistic change was already undone. */
export async function discardFailed(db: WorkspaceDb, entryId: number): Promise<void> {
  await db.outbox.delete(entryId);
}

/** How a queued write is named to people. */
export const mutationLabels: Record<MutationName, string> = {
  'user.updateDetails': 'Profile details',
  'task.create': 'New task',
  'task.update': 'Task edit',
  'task.setStatus': 'Task status change',
  'task.edit': 'Task edit',
  'task.comment': 'Task comment',
  'task.delete': 'Task deletion',
  'chat.send': 'Chat message',
  'chat.edit': 'Chat message edit',
  'chat.delete': 'Chat message deletion',
  'chat.sendFiles': 'Chat message with files',
  'chat.react': 'Chat reaction',
  'dm.start': 'New conversation',
  'dm.send': 'Direct message',
  'dm.sendFiles': 'Direct message with files',
  'dm.delete': 'Direct message deletion',
  'dm.markRead': 'Conversation read mark',
  'dm.react': 'Direct message reaction',
  'notification.markRead': 'Notification read mark',
  'notification.markAllRead': 'Notifications read mark',
  'notification.setPreferences': 'Notification preferences',
};
