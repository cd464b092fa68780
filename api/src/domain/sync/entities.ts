import { eq, inArray, isNull } from 'drizzle-orm';
import { canSeeTask, type Actor, type EntityName, type PutChange } from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { notifications, users } from '../../db/schema';
import { listChatMessages, loadChatMessages } from '../chat/read';
import { listConversationsOf, listDirectMessagesOf, loadConversations, loadDirectMessages } from '../direct/read';
import { toNotifications } from '../notifications/notify';
import { listVisibleTasks, loadTasks } from '../tasks/read';
import { toUserDto } from '../users/serialize';

/** How sync reads one entity kind. Missing from `load` means deleted: clients drop it. */
interface SyncedEntity {
  /** The current state of these ids, whoever asks. */
  load(db: Db | Tx, ids: string[]): PutChange[];
  /** Whether `actor` may see this state of the entity. */
  visibleTo(actor: Actor, change: PutChange): boolean;
  /** Everything of this kind `actor` may see, for a bootstrap. */
  loadAllVisible(db: Db | Tx, actor: Actor): PutChange[];
}

const userChange = (row: typeof users.$inferSelect): PutChange => ({
  entity: 'user',
  op: 'put',
  id: row.id,
  data: toUserDto(row),
});

export const syncedEntities: Record<EntityName, SyncedEntity> = {
  user: {
    load: (db, ids) =>
      db
        .select()
        .from(users)
        .where(inArray(users.id, ids))
        .all()
        .filter((row) => row.deactivatedAt === null)
        .map(userChange),
    // Every signed-in user sees the whole active directory (spec section 6).
    visibleTo: () => true,
    loadAllVisible: (db) => db.select().from(users).where(isNull(users.deactivatedAt)).all().map(userChange),
  },
  task: {
    load: (db, ids) => loadTasks(db, ids).map((data) => ({ entity: 'task', op: 'put', id: data.id, data })),
    visibleTo: (actor, change) => change.entity === 'task' && canSeeTask(actor, change.data),
    loadAllVisible: (db, actor) =>
      listVisibleTasks(db, actor).map((data) => ({ entity: 'task', op: 'put', id: data.id, data })),
  },
  chatMessage: {
    load: (db, ids) =>
      loadChatMessages(db, ids).map((data) => ({ entity: 'chatMessage', op: 'put', id: data.id, data })),
    // The team chat is the whole team's.
    visibleTo: () => true,
    loadAllVisible: (db) =>
      listChatMessages(db).map((data) => ({ entity: 'chatMessage', op: 'put', id: data.id, data })),
  },
  conversation: {
    load: (db, ids) =>
      loadConversations(db, ids).map((data) => ({ entity: 'conversation', op: 'put', id: data.id, data })),
    // Security: a conversation is its two participants' alone.
    visibleTo: (actor, change) =>
      change.entity === 'conversation' && change.data.participants.some((p) => p.id === actor.id),
    loadAllVisible: (db, actor) =>
      listConversationsOf(db, actor.id).map((data) => ({ entity: 'conversation', op: 'put', id: data.id, data })),
  },
  directMessage: {
    load: (db, ids) =>
      loadDirectMessages(db, ids).map((data) => ({ entity: 'directMessage', op: 'put', id: data.id, data })),
    visibleTo: (actor, change) => change.entity === 'directMessage' && change.data.participantIds.includes(actor.id),
    loadAllVisible: (db, actor) =>
      listDirectMessagesOf(db, actor.id).map((data) => ({ entity: 'directMessage', op: 'put', id: data.id, data })),
  },
  notification: {
    load: (db, ids) =>
      toNotifications(db, db.select().from(notifications).where(inArray(notifications.id, ids)).all()).map((data) => ({
        entity: 'notification',
        op: 'put',
        id: data.id,
        data,
      })),
    // Security: a notification is its recipient's alone.
    visibleTo: (actor, change) => change.entity === 'notification' && change.data.recipient === actor.id,
    loadAllVisible: (db, actor) =>
      toNotifications(db, db.select().from(notifications).where(eq(notifications.recipientId, actor.id)).all()).map(
        (data) => ({ entity: 'notification', op: 'put', id: data.id, data }),
      ),
  },
};

/**
 * The current state of every entity these committed changes put, loaded with one query per kind (a
 * chat message puts one notification per member), keyed `entity:id`; a missing key means it is gone.
 */
export function loadCurrent(
  db: Db | Tx,
  refs: readonly { entity: EntityName; id: string; op: 'put' | 'delete' }[],
): Map<string, PutChange> {
  const idsByEntity = new Map<EntityName, Set<string>>();
  for (const ref of refs) {
    if (ref.op !== 'put') continue;
    idsByEntity.set(ref.entity, (idsByEntity.get(ref.entity) ?? new Set<string>()).add(ref.id));
  }
  const current = new Map<string, PutChange>();
  for (const [entity, idSet] of idsByEntity) {
    const ids = [...idSet];
    // Slices stay well under SQLite's bound-variable limit (marking all read puts thousands at once).
    for (let start = 0; start < ids.length; start += 500) {
      for (const change of syncedEntities[entity].load(db, ids.slice(start, start + 500)))
        current.set(`${entity}:${change.id}`, change);
    }
  }
  return current;
}

/** The visible current state of these ids for `actor`. */
export function loadVisible(db: Db | Tx, actor: Actor, entity: EntityName, ids: string[]): PutChange[] {
  const kind = syncedEntities[entity];
  return kind.load(db, ids).filter((change) => kind.visibleTo(actor, change));
}

/** Principals an actor holds: the rooms they join and the audiences of changes they may pull. */
export const principalsOf = (actor: Actor): string[] => ['team', `role:${actor.role}`, `user:${actor.id}`];
