import { Dexie, type DBCore, type EntityTable, type Middleware } from 'dexie';
import type {
  ChatMessage,
  Conversation,
  DirectMessage,
  EntityName,
  MutationName,
  Notification,
  Task,
  User,
} from '@office/sync-protocol';

/** A row written optimistically and not yet confirmed by the server carries `pending: 1`. */
export interface LocalRow {
  pending?: 1;
}
export type LocalUser = User & LocalRow;
export type LocalTask = Task & LocalRow;
/** `unread: 1` exists only on unread rows, so the sparse `unread` index counts them without a scan. */
export type LocalNotification = Notification & LocalRow & { unread?: 1 };
export type LocalChatMessage = ChatMessage & LocalRow;
export type LocalConversation = Conversation & LocalRow;
export type LocalDirectMessage = DirectMessage & LocalRow;

/** The server's row as the device last heard it, so a rejected write can be undone. `row` null: the server has none. */
export interface UndoRecord {
  table: EntityTableName;
  key: string;
  row: (LocalRow & { version?: number }) | null;
}

/** One queued local write. Its id is the client's mutation id (1, 2, 3 ...). */
export interface OutboxEntry {
  id: number;
  name: MutationName;
  args: unknown;
  /** When the user made the change (ISO). */
  at: string;
  status: 'pending' | 'failed';
  undo: UndoRecord[];
  error?: { code: string; message: string };
}

/** The unsent text of one composer (`drafts.ts` names the keys), kept so it outlives a reload or a closed window. */
export interface DraftRow {
  key: string;
  text: string;
  /** When it was last saved (ISO). */
  savedAt: string;
}

export interface MetaRow {
  key: 'clientId' | 'cursor' | 'nextMutationId';
  value: string | number;
}

/** Entity tables by the sync entity they hold. */
export const entityTables = {
  user: 'users',
  task: 'tasks',
  notification: 'notifications',
  chatMessage: 'chatMessages',
  conversation: 'conversations',
  directMessage: 'directMessages',
} as const satisfies Record<EntityName, string>;
export type EntityTableName = (typeof entityTables)[EntityName];

export type WorkspaceDb = Dexie & {
  users: EntityTable<LocalUser, 'id'>;
  tasks: EntityTable<LocalTask, 'id'>;
  notifications: EntityTable<LocalNotification, 'id'>;
  chatMessages: EntityTable<LocalChatMessage, 'id'>;
  conversations: EntityTable<LocalConversation, 'id'>;
  directMessages: EntityTable<LocalDirectMessage, 'id'>;
  outbox: EntityTable<OutboxEntry, 'id'>;
  meta: EntityTable<MetaRow, 'key'>;
  drafts: EntityTable<DraftRow, 'key'>;
};

/** The local database of one signed-in user: one user's outbox is never replayed as another's. */
export const databaseName = (userId: string): string => `office-workspace-${userId}`;

/** Tests pass fake-indexeddb's factory and key range; the browser's are used otherwise. */
export interface IndexedDbDeps {
  indexedDB: IDBFactory;
  IDBKeyRange: typeof IDBKeyRange;
}

export function openWorkspaceDb(userId: string, deps?: IndexedDbDeps): WorkspaceDb {
  const db = new Dexie(databaseName(userId), deps ?? {}) as WorkspaceDb;
  db.version(1).stores({
    users: 'id, name, role, pending',
    tasks: 'id, updatedAt, pending',
    chatMessages: 'id, timestamp, pending',
    conversations: 'id, lastMessageAt, pending',
    directMessages: 'id, conversationId, createdAt, pending',
    notifications: 'id, createdAt, pending',
    outbox: 'id, status',
    meta: 'key',
  });
  // Direct messages are read per conversation in time order.
  db.version(2).stores({ directMessages: 'id, conversationId, [conversationId+createdAt], createdAt, pending' });
  // The bell counts unread notifications on every change; a manager holds tens of thousands.
  db.version(3)
    .stores({ notifications: 'id, createdAt, pending, unread' })
    .upgrade((tx) =>
      tx
        .table<LocalNotification, string>('notifications')
        .toCollection()
        .modify((row) => {
          withUnreadKey(row);
        }),
    );
  // Unsent composer texts, per conversation (never synced: a draft belongs to this device).
  db.version(4).stores({ drafts: 'key' });
  db.use(unreadKeyMiddleware);
  return db;
}

export const syncedTableNames = Object.values(entityTables);

/** Sets or removes the `unread` index key from `read`; mutates and returns the row. */
function withUnreadKey(row: LocalNotification): LocalNotification {
  if (row.read) delete row.unread;
  else row.unread = 1;
  return row;
}

/**
 * Derives `unread` on every write of a notification (server pulls, live changes, read marks, undo),
 * in one place below all of them: Dexie's put, add, update and modify all reach DBCore as put or add.
 */
const unreadKeyMiddleware: Middleware<DBCore> = {
  stack: 'dbcore',
  name: 'notification-unread-key',
  create: (down) => ({
    ...down,
    table(name) {
      const table = down.table(name);
      if (name !== 'notifications') return table;
      return {
        ...table,
        mutate(request) {
          if (request.type !== 'put' && request.type !== 'add') return table.mutate(request);
          const values = (request.values as LocalNotification[]).map((row) => withUnreadKey({ ...row }));
          return table.mutate({ ...request, values });
        },
      };
    },
  }),
};
