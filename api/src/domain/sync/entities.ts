import { and, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import { canSeeTask, type Actor, type EntityName, type PutChange } from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { chatMessages, conversations, directMessages, notifications, users } from '../../db/schema';
import { loadChatMessages } from '../chat/read';
import { involving, loadConversations, loadDirectMessages } from '../direct/read';
import { markersOf } from '../notifications/notices';
import { preferencesOf } from '../notifications/preferences';
import { toNotifications } from '../notifications/notify';
import { loadTasks, visibleTasksWhere } from '../tasks/read';
import { toUserDto } from '../users/serialize';

/** How sync reads one entity kind. Missing from `load` means deleted: clients drop it. */
interface SyncedEntity {
  /** The current state of these ids, whoever asks. */
  load(db: Db | Tx, ids: string[]): Promise<PutChange[]>;
  /** Whether `actor` may see this state of the entity. */
  visibleTo(actor: Actor, change: PutChange): boolean;
}

/**
 * The rows of each message and task kind `actor` may see, as a condition on its table: what a bootstrap sends and
 * what a search may find (domain/search). The team chat is the whole team's; a direct message is its two
 * participants'; staff see every task, an employee those assigned to or by them.
 */
export const visibleRowsOf = {
  task: visibleTasksWhere,
  chatMessage: (): SQL | undefined => isNull(chatMessages.deletedAt),
  directMessage: (actor: Actor): SQL | undefined =>
    and(
      isNull(directMessages.deletedAt),
      sql`${directMessages.conversationId} IN (SELECT ${conversations.id} FROM ${conversations} WHERE ${involving(actor.id)})`,
    ),
};

const userChange = (row: typeof users.$inferSelect): PutChange => ({
  entity: 'user',
  op: 'put',
  id: row.id,
  data: toUserDto(row),
});

export const syncedEntities: Record<EntityName, SyncedEntity> = {
  user: {
    load: async (db, ids) =>
      (await db.select().from(users).where(inArray(users.id, ids)))
        .filter((row) => row.deactivatedAt === null)
        .map(userChange),
    // Every signed-in user sees the whole active directory (spec section 6).
    visibleTo: () => true,
  },
  task: {
    load: async (db, ids) =>
      (await loadTasks(db, ids)).map((data) => ({ entity: 'task', op: 'put', id: data.id, data })),
    visibleTo: (actor, change) => change.entity === 'task' && canSeeTask(actor, change.data),
  },
  chatMessage: {
    load: async (db, ids) =>
      (await loadChatMessages(db, ids)).map((data) => ({ entity: 'chatMessage', op: 'put', id: data.id, data })),
    // The team chat is the whole team's.
    visibleTo: () => true,
  },
  conversation: {
    load: async (db, ids) =>
      (await loadConversations(db, ids)).map((data) => ({ entity: 'conversation', op: 'put', id: data.id, data })),
    // Security: a conversation is its two participants' alone.
    visibleTo: (actor, change) =>
      change.entity === 'conversation' && change.data.participants.some((p) => p.id === actor.id),
  },
  directMessage: {
    load: async (db, ids) =>
      (await loadDirectMessages(db, ids)).map((data) => ({ entity: 'directMessage', op: 'put', id: data.id, data })),
    visibleTo: (actor, change) => change.entity === 'directMessage' && change.data.participantIds.includes(actor.id),
  },
  notification: {
    // `read` is the notice's own mark: devices combine it with the person's marker, which travels on its own
    // (marking all moves the marker only, so no notice changes).
    load: async (db, ids) => {
      const rows = await db.select().from(notifications).where(inArray(notifications.id, ids));
      return (await toNotifications(db, rows)).map((data) => ({
        entity: 'notification',
        op: 'put',
        id: data.id,
        data,
      }));
    },
    // Security: a notification is its recipient's alone.
    visibleTo: (actor, change) => change.entity === 'notification' && change.data.recipient === actor.id,
  },
  notificationMarker: {
    // Everyone has one, stored or not yet (before their first read mark).
    load: async (db, ids) =>
      [...(await markersOf(db, ids)).values()].map((data) => ({
        entity: 'notificationMarker',
        op: 'put',
        id: data.id,
        data,
      })),
    // Security: a person's read state is theirs alone.
    visibleTo: (actor, change) => change.entity === 'notificationMarker' && change.id === actor.id,
  },
  notificationPreferences: {
    // Everyone has them, stored or the defaults.
    load: async (db, ids) =>
      [...(await preferencesOf(db, ids)).values()].map((data) => ({
        entity: 'notificationPreferences',
        op: 'put',
        id: data.id,
        data,
      })),
    // Security: a person's preferences are theirs alone.
    visibleTo: (actor, change) => change.entity === 'notificationPreferences' && change.id === actor.id,
  },
};

/**
 * The current state of every entity these committed changes put, loaded with one query per kind, keyed
 * `entity:id`; a missing key means it is gone.
 */
export async function loadCurrent(
  db: Db | Tx,
  refs: readonly { entity: EntityName; id: string; op: 'put' | 'delete' }[],
): Promise<Map<string, PutChange>> {
  const idsByEntity = new Map<EntityName, Set<string>>();
  for (const ref of refs) {
    if (ref.op !== 'put') continue;
    idsByEntity.set(ref.entity, (idsByEntity.get(ref.entity) ?? new Set<string>()).add(ref.id));
  }
  const current = new Map<string, PutChange>();
  for (const [entity, idSet] of idsByEntity) {
    const ids = [...idSet];
    // Slices stay well under SQLite's bound-variable limit.
    for (let start = 0; start < ids.length; start += 500) {
      for (const change of await syncedEntities[entity].load(db, ids.slice(start, start + 500)))
        current.set(`${entity}:${change.id}`, change);
    }
  }
  return current;
}

/** The visible current state of these ids for `actor`. */
export async function loadVisible(db: Db | Tx, actor: Actor, entity: EntityName, ids: string[]): Promise<PutChange[]> {
  const kind = syncedEntities[entity];
  return (await kind.load(db, ids)).filter((change) => kind.visibleTo(actor, change));
}

/** Principals an actor holds: the rooms they join and the audiences of changes they may pull. */
export const principalsOf = (actor: Actor): string[] => ['team', `role:${actor.role}`, `user:${actor.id}`];
