import type { DBCore, DBCoreKeyRange, DBCoreMutateRequest, DBCoreMutateResponse, Dexie, Middleware } from 'dexie';

/** One committed change of a row: its new value, or its removal. */
export type RowChange =
  | { table: string; type: 'put'; key: string; row: unknown }
  | { table: string; type: 'delete'; key: string }
  /** A range of keys was deleted (a bootstrap clears every synced table); `range` says which keys. */
  | { table: string; type: 'deleteRange'; range: (key: string) => boolean };

/** Called once per committed transaction that wrote rows, with its changes in order. */
export type RowChangeListener = (changes: readonly RowChange[]) => void;

const listenersByDb = new WeakMap<Dexie, Set<RowChangeListener>>();

/**
 * Follows the rows this tab writes to `db`, as they commit (never those of a transaction that aborted).
 * Returns the unsubscribe function. Unlike Dexie's storagemutated, a bulk write reports its keys and
 * rows instead of "the whole table", so a reader (the search index) can apply a change incrementally.
 */
export function onRowChanges(db: Dexie, listener: RowChangeListener): () => void {
  let listeners = listenersByDb.get(db);
  if (!listeners) {
    listeners = new Set();
    listenersByDb.set(db, listeners);
  }
  listeners.add(listener);
  return () => listeners.delete(listener);
}

// DBCoreRangeType (a const enum of Dexie's types, so spelled out here).
const equalRange = 1;
const boundedRange = 2;
const anyRange = 3;

/**
 * Whether a string key lies in a DBCore range. A bound that is not a string (clear() spans -Infinity to
 * [[]]) sorts before or after every string key in IndexedDB's order, so it leaves that side open.
 */
function keyRangeTest(range: DBCoreKeyRange): (key: string) => boolean {
  const {
    type,
    lower,
    upper,
    lowerOpen = false,
    upperOpen = false,
  } = range as { type: number; lower: unknown; upper: unknown; lowerOpen?: boolean; upperOpen?: boolean };
  if (type === anyRange) return () => true;
  if (type === equalRange) return (key) => key === lower;
  if (type !== boundedRange) return () => false;
  return (key) =>
    (typeof lower !== 'string' || key > lower || (!lowerOpen && key === lower)) &&
    (typeof upper !== 'string' || key < upper || (!upperOpen && key === upper));
}

const changesOf = (table: string, request: DBCoreMutateRequest, response: DBCoreMutateResponse): RowChange[] => {
  const failed = (index: number) => response.failures[index] !== undefined;
  switch (request.type) {
    case 'add':
    case 'put':
      return request.values.flatMap((row: unknown, index) => {
        const key: unknown = response.results?.[index] ?? (row as { id?: unknown }).id;
        return failed(index) || typeof key !== 'string' ? [] : [{ table, type: 'put' as const, key, row }];
      });
    case 'delete':
      return request.keys.flatMap((key: unknown, index) =>
        failed(index) || typeof key !== 'string' ? [] : [{ table, type: 'delete' as const, key }],
      );
    case 'deleteRange':
      return [{ table, type: 'deleteRange', range: keyRangeTest(request.range) }];
  }
};

/** The middleware behind `onRowChanges`; costs nothing while nobody listens. */
export function rowChangesMiddleware(db: Dexie): Middleware<DBCore> {
  return {
    stack: 'dbcore',
    name: 'row-changes',
    create: (down) => ({
      ...down,
      table(name) {
        const table = down.table(name);
        return {
          ...table,
          // `then`, not `await`: Dexie's own promise keeps the transaction alive between its requests, where a
          // native await lets IndexedDB commit it early (PrematureCommitError).
          mutate: (request) =>
            table.mutate(request).then((response) => {
              const listeners = listenersByDb.get(db);
              if (!listeners?.size) return response;
              const changes = changesOf(name, request, response);
              if (changes.length === 0) return response;
              // DBCore's transaction of IndexedDB is the IDBTransaction: the changes are told once it commits.
              const transaction = request.trans as unknown as IDBTransaction & { rowChanges?: RowChange[] };
              if (!transaction.rowChanges) {
                const collected: RowChange[] = [];
                transaction.rowChanges = collected;
                transaction.addEventListener('complete', () => {
                  for (const listener of listenersByDb.get(db) ?? []) listener(collected);
                });
              }
              transaction.rowChanges.push(...changes);
              return response;
            }),
        };
      },
    }),
  };
}
