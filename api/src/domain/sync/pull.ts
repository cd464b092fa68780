import { and, eq, gt, inArray, sql } from 'drizzle-orm';
import {
  entityNames,
  type Actor,
  type Change,
  type EntityName,
  type PullQuery,
  type PullResponse,
} from '@office/sync-protocol';
import type { Db, Tx } from '../../db/client';
import { changeAudience, changeLog, meta, syncClients } from '../../db/schema';
import { CHANGE_LOG_FLOOR_KEY, changeLogFloor, currentVersion } from '../change-log';
import { loadVisible, principalsOf, syncedEntities } from './entities';

export { changeLogFloor };

/**
 * Drops change-log rows up to `seq`; clients behind it bootstrap on their next pull. The floor
 * only moves forward and never past the newest change: lowering it would let a cursor inside the
 * dropped range pull incrementally and miss changes, and raising it past the head would hide the
 * next changes from clients at the floor.
 */
export function compactChangeLog(db: Db, seq: number): void {
  db.transaction((tx) => {
    const floor = Math.max(changeLogFloor(tx), Math.min(seq, currentVersion(tx)));
    tx.delete(changeLog)
      .where(sql`${changeLog.seq} <= ${floor}`)
      .run();
    tx.insert(meta)
      .values({ key: CHANGE_LOG_FLOOR_KEY, value: String(floor) })
      .onConflictDoUpdate({ target: meta.key, set: { value: String(floor) } })
      .run();
  });
}

function lastMutationIdOf(tx: Tx, clientId: string, actor: Actor): number {
  const row = tx.select().from(syncClients).where(eq(syncClients.clientId, clientId)).get();
  if (!row) {
    // A new client is registered at its first contact (its sign-in's bootstrap), which is the floor of the times
    // its writes may claim (push.ts); another user's client is never taken over.
    tx.insert(syncClients).values({ clientId, userId: actor.id }).onConflictDoNothing().run();
    return 0;
  }
  return row.userId === actor.id ? row.lastMutationId : 0;
}

function bootstrap(tx: Tx, actor: Actor): Change[] {
  return entityNames.flatMap((name) => syncedEntities[name].loadAllVisible(tx, actor));
}

/** The changes after `cursor` that `actor` may see, as the entities' current state, in one read transaction. */
export function processPull(db: Db, actor: Actor, query: PullQuery): PullResponse {
  return db.transaction((tx) => {
    const lastMutationId = lastMutationIdOf(tx, query.clientId, actor);
    const head = currentVersion(tx);
    // A cursor ahead of the server means the server's data was replaced: start over rather than miss changes.
    if (query.cursor === 0 || query.cursor < changeLogFloor(tx) || query.cursor > head) {
      return { changes: bootstrap(tx, actor), cursor: head, more: false, reset: true, lastMutationId };
    }
    const rows = tx
      .selectDistinct({ seq: changeLog.seq, entity: changeLog.entity, entityId: changeLog.entityId })
      .from(changeLog)
      .innerJoin(changeAudience, eq(changeAudience.seq, changeLog.seq))
      .where(and(gt(changeLog.seq, query.cursor), inArray(changeAudience.principal, principalsOf(actor))))
      .orderBy(changeLog.seq)
      .limit(query.limit + 1)
      .all();
    const more = rows.length > query.limit;
    const page = more ? rows.slice(0, query.limit) : rows;
    // Without more, every row up to head was either in the page or not for this user.
    const cursor = more ? (page.at(-1)?.seq ?? query.cursor) : Math.max(head, query.cursor);

    const idsByEntity = new Map<EntityName, string[]>();
    const order: { entity: EntityName; id: string }[] = [];
    const seen = new Set<string>();
    for (const row of page.toReversed()) {
      const key = `${row.entity}:${row.entityId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const entity = row.entity as EntityName;
      order.unshift({ entity, id: row.entityId });
      idsByEntity.set(entity, [...(idsByEntity.get(entity) ?? []), row.entityId]);
    }
    const visible = new Map<string, Change>();
    for (const [entity, ids] of idsByEntity) {
      for (const change of loadVisible(tx, actor, entity, ids)) visible.set(`${entity}:${change.id}`, change);
    }
    const changes = order.map(
      ({ entity, id }): Change => visible.get(`${entity}:${id}`) ?? { entity, op: 'delete', id },
    );
    return { changes, cursor, more, reset: false, lastMutationId };
  });
}
