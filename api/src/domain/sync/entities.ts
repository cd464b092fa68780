import { inArray, isNull } from 'drizzle-orm';
import type { Actor, EntityName, PutChange } from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { users } from '../../db/schema';
import { toUserDto } from '../users/serialize';

/** The table behind each synced entity; each has `id` and `version` columns. */
export const syncedTables = { user: users } as const satisfies Record<EntityName, unknown>;

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
};

/** The visible current state of these ids for `actor`. */
export function loadVisible(db: Db | Tx, actor: Actor, entity: EntityName, ids: string[]): PutChange[] {
  const kind = syncedEntities[entity];
  return kind.load(db, ids).filter((change) => kind.visibleTo(actor, change));
}

/** Principals an actor holds: the rooms they join and the audiences of changes they may pull. */
export const principalsOf = (actor: Actor): string[] => ['team', `role:${actor.role}`, `user:${actor.id}`];
