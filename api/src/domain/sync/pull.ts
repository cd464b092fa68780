import { and, eq } from 'drizzle-orm';
import {
  initialCursor,
  type Actor,
  type Change,
  type EntityName,
  type PullQuery,
  type PullResponse,
} from '@office/sync-protocol';
import {
  changedBetween,
  changeLogFloor,
  changesOf,
  comparePositions,
  compactUpTo,
  formatPosition,
  parsePosition,
  placeNumber,
  placeOfNumber,
  reachedPosition,
  readablePosition,
  type LogPosition,
} from '../../db/change-feed';
import type { Db, Tx } from '../../db/client';
import { acknowledgedMutations } from '../../db/mutation-ack';
import { transaction } from '../../db/transaction';
import { syncClients } from '../../db/schema';
import type { HistoryWindowSizes } from '../../config';
import { compactableUpTo, restoredBelow } from '../change-log';
import { indexChanges } from '../search/indexer';
import { loadVisible, principalsOf } from './entities';
import { historyStartsIn, snapshotParts, windowAt, type WindowAt } from './snapshot';

export { changeLogFloor };

/**
 * Drops the change log up to `upTo`; clients behind it bootstrap on their next pull. The floor only moves forward
 * and never past what can be read now: lowering it would let a cursor inside the dropped range pull incrementally
 * and miss changes, and raising it past the readable end would hide the next changes from clients at the floor.
 * Nor past a team chat message the push queue has yet to push: the queue finds those by their changes.
 */
export async function compactChangeLog(db: Db, upTo: LogPosition): Promise<void> {
  await transaction(db, async (tx) => {
    const limit = await compactableUpTo(tx);
    const through = comparePositions(upTo, limit) < 0 ? upTo : limit;
    // The search indexer (SQLite) reads changes from the log: what it has not read yet is indexed before it goes.
    while (await indexChanges(tx, 5_000, through.seq));
    await compactUpTo(tx, through);
  });
}

/** The client's last mutation whose effects this pull holds (see mutation-ack.ts); registers a new client. */
async function lastMutationIdOf(tx: Tx, clientId: string, actor: Actor, readable: LogPosition): Promise<number> {
  const row = await acknowledgedMutations(tx, clientId, readable);
  if (!row) {
    // A new client is registered at its first contact (its sign-in's bootstrap), which is the floor of the times
    // its writes may claim (push.ts); another user's client is never taken over.
    await tx.insert(syncClients).values({ clientId, userId: actor.id }).onConflictDoNothing();
    return 0;
  }
  return row.userId === actor.id ? row.lastMutationId : 0;
}

/**
 * A device that synced before the workspace was restored: writes of it the server acknowledged after the backup
 * was taken are gone with the replaced data, so its queue may start past what this server holds of it. Its next
 * push is taken from there (once); its queued writes arrive once, as on the server it came from.
 */
async function resumeAfterRestore(tx: Tx, clientId: string, actor: Actor): Promise<void> {
  await tx
    .update(syncClients)
    .set({ resumesAfterRestore: true })
    .where(and(eq(syncClients.clientId, clientId), eq(syncClients.userId, actor.id)));
}

/** Where a bootstrap is: the place in the log its pages read from, the part being sent, the last id sent of it, rows sent, rows in all. */
interface SnapshotPlace {
  version: LogPosition;
  kind: number;
  after: string | null;
  done: number;
  total: number;
}

const encodePlace = (place: SnapshotPlace): string =>
  `${placeNumber(place.version)}.${place.kind}.${place.after ?? ''}.${place.done}.${place.total}`;

function decodePlace(token: string): SnapshotPlace | null {
  const [version = '', kind, after, done, total] = token.split('.');
  const numbers = [kind, done, total].map(Number);
  const position = placeOfNumber(version);
  if (!position || after === undefined || numbers.some((n) => !Number.isSafeInteger(n) || n < 0)) return null;
  const [k, d, t] = numbers as [number, number, number];
  return { version: position, kind: k, after: after === '' ? null : after, done: d, total: t };
}

/**
 * One page of a bootstrap: the window of the history (snapshot.ts). The pages read the entities as they are when
 * each is served, in keyset order from where the previous page ended (the client's token), so a slow link resumes
 * instead of starting over. The last page hands over the version the first one started at: pulling from there
 * brings whatever changed while the pages were read (newer states replace older ones), so the device ends
 * consistent.
 */
async function bootstrapPage(
  tx: Tx,
  actor: Actor,
  query: PullQuery,
  lastMutationId: number,
  head: LogPosition,
  floor: LogPosition,
  window: WindowAt,
): Promise<PullResponse> {
  const resumed = query.snapshot ? decodePlace(query.snapshot) : null;
  // A token from before a compaction, or from data since replaced, starts over.
  const usable =
    resumed !== null &&
    comparePositions(resumed.version, floor) >= 0 &&
    comparePositions(resumed.version, head) <= 0 &&
    resumed.kind < snapshotParts.length;
  let place: SnapshotPlace;
  if (usable) place = resumed;
  else {
    let total = 0;
    for (const part of snapshotParts) total += await part.count(tx, actor, window);
    place = { version: head, kind: 0, after: null, done: 0, total };
  }
  const changes: Change[] = [];
  let { kind, after } = place;
  while (changes.length < query.limit && kind < snapshotParts.length) {
    const part = snapshotParts[kind];
    if (!part) break;
    const { entity } = part;
    const wanted = query.limit - changes.length;
    const ids = await part.ids(tx, actor, after, wanted, window);
    if (ids.length) {
      const loaded = new Map((await loadVisible(tx, actor, entity, ids)).map((change) => [change.id, change]));
      for (const id of ids) {
        const change = loaded.get(id);
        if (change) changes.push(change);
      }
      after = ids.at(-1) ?? null;
    }
    if (ids.length < wanted) {
      kind += 1;
      after = null;
    }
  }
  const done = place.done + changes.length;
  const total = Math.max(place.total, done);
  const last = kind >= snapshotParts.length;
  // Nothing changed since the first page read: the device is as far as what can be read now.
  const more = !last || (await changedBetween(tx, place.version, head));
  return {
    changes,
    cursor: last ? formatPosition(more ? place.version : head) : initialCursor,
    more,
    reset: !usable,
    bootstrap: {
      next: last ? null : encodePlace({ version: place.version, kind, after, done, total }),
      done,
      total,
      historyStarts: await historyStartsIn(tx, changes),
    },
    lastMutationId,
    window: wireWindow(window),
  };
}

/** The window as a pull answer tells it. */
const wireWindow = (window: WindowAt): PullResponse['window'] => ({
  teamChatMessages: window.teamChatMessages,
  directMessages: window.directMessages,
  completedTaskDays: window.completedTaskDays,
  notifications: window.notifications,
  completedSince: window.completedSince,
});

/**
 * The changes after the client's cursor that `actor` may see, as the entities' current state, in one read
 * transaction: only those that can be read now (readablePosition), in the log's order, so a cursor never passes a
 * change that could still appear before it. A bootstrap sends the window of history `sizes` sets; every answer
 * tells the device that window.
 */
export async function processPull(
  db: Db,
  actor: Actor,
  query: PullQuery,
  sizes: HistoryWindowSizes,
): Promise<PullResponse> {
  const window = windowAt(sizes);
  return transaction(
    db,
    async (tx) => {
      const readable = await readablePosition(tx);
      const lastMutationId = await lastMutationIdOf(tx, query.clientId, actor, readable);
      const floor = await changeLogFloor(tx);
      const after = query.cursor === initialCursor ? null : parsePosition(query.cursor);
      // Another dialect's cursor, or one ahead of the server (its data was replaced): start over rather than miss changes.
      if (!after || comparePositions(after, floor) < 0 || comparePositions(after, readable) > 0) {
        const restored = after && (await restoredBelow(tx));
        if (after && restored && comparePositions(after, restored) < 0)
          await resumeAfterRestore(tx, query.clientId, actor);
        return bootstrapPage(tx, actor, query, lastMutationId, readable, floor, window);
      }
      const rows = await changesOf(tx, principalsOf(actor), after, readable, query.limit + 1);
      const more = rows.length > query.limit;
      const page = more ? rows.slice(0, query.limit) : rows;
      // Without more, every change up to what can be read was either in the page or not for this user.
      const cursor = more ? (page.at(-1)?.position ?? after) : await reachedPosition(tx, after, readable);

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
        for (const change of await loadVisible(tx, actor, entity, ids)) visible.set(`${entity}:${change.id}`, change);
      }
      const changes = order.map(
        ({ entity, id }): Change => visible.get(`${entity}:${id}`) ?? { entity, op: 'delete', id },
      );
      return {
        changes,
        cursor: formatPosition(cursor),
        more,
        reset: false,
        bootstrap: null,
        lastMutationId,
        window: wireWindow(window),
      };
    },
    { snapshot: true },
  );
}
