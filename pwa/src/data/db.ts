import { Dexie, type DBCore, type EntityTable, type Middleware } from 'dexie';
import type {
  AuditPage,
  ChatMessage,
  Conversation,
  DirectMessage,
  EntityName,
  HistoryWindow,
  MutationName,
  Notification,
  NotificationMarker,
  NotificationPreferences,
  Task,
  User,
} from '@office/sync-protocol';
import { rowChangesMiddleware } from './row-changes';

/** A row written optimistically and not yet confirmed by the server carries `pending: 1`. */
export interface LocalRow {
  pending?: 1;
}
export type LocalUser = User & LocalRow;
export type LocalTask = Task & LocalRow;
/**
 * `unreadAt` (the notice's time) exists only on unread rows, so the sparse `unreadAt` index counts those after
 * the read marker without a scan. (`unread: 1` was version 3's flag.)
 */
export type LocalNotification = Notification & LocalRow & { unreadAt?: string; unread?: 1 };
export type LocalNotificationMarker = NotificationMarker & LocalRow;
export type LocalNotificationPreferences = NotificationPreferences & LocalRow;
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
  /** The rows it touches as `table:key` (a multi-entry index: the writes of one row are found without a scan). */
  rowKeys: string[];
  error?: { code: string; message: string };
}

/** The unsent text of one composer (`drafts.ts` names the keys), kept so it outlives a reload or a closed window. */
export interface DraftRow {
  key: string;
  text: string;
  /** When it was last saved (ISO). */
  savedAt: string;
}

/**
 * A page of the audit log as an admin last read it (never synced: a copy for reading offline). `key` names its filters
 * and position (`audit-cache.ts`); `savedAt` orders the copies, so the oldest go first past the cache's bound.
 */
export interface AuditPageRow extends AuditPage {
  key: string;
  savedAt: string;
}

/** How a bootstrap is going: rows received of all it holds (progress on a first sign-in). */
export interface BootstrapState {
  /** The server's token for the next page; null once the last page is in. */
  next: string | null;
  done: number;
  total: number;
}

/** A stretch of a conversation's messages the device holds whole: every message from `from` to `to` (null: now). */
export interface HeldSpan {
  /** A message time; '' is the conversation's beginning. */
  from: string;
  to: string | null;
}

/** What lies before a conversation's window, as the server counted it for the person (issue 46). */
export interface BeforeWindow {
  /** Messages there the person has not read (team chat: their notices). */
  unread: number;
  /** The read marker the server counted with (team chat: readThrough; a conversation: the person's read time). */
  readAt: string | null;
  /** Team chat messages there by author (managers: Employee Management). */
  byAuthor: Record<string, number>;
}

/**
 * What this device holds of one conversation's history (issue 46), by `teamChatKey` or the conversation's id. The
 * window (every message from `edge` on) is always held and counted here; `spans` are what is held whole, the
 * window's span last (the older part of it is the evictable cache, fetched on demand); what lies before the window
 * is counted by the server (`before`). Without a row, the device holds the conversation's whole history.
 */
export interface HistoryRange {
  key: string;
  /** Null: every held message is the window (the device has never trimmed it). */
  edge: string | null;
  /** Oldest first, never overlapping; the last reaches now. */
  spans: HeldSpan[];
  /** Null until the server has counted it (and while `edge` is null, nothing lies before). */
  before: BeforeWindow | null;
  /** A change before the edge came by: `before` is counted again when online. */
  stale: boolean;
  /** When the person last read messages before the window (the cache is kept for a while after). */
  viewedAt: string | null;
}

/** The completed tasks this device holds: those changed from `edge` on (null: all); the server counts the rest. */
export interface TaskWindowState {
  edge: string | null;
  before: { completed: number; byAssignee: Record<string, number> } | null;
  stale: boolean;
}

export type MetaRow =
  | { key: 'clientId'; value: string }
  | { key: 'cursor' | 'nextMutationId' | 'protocolVersion'; value: number }
  | { key: 'bootstrap'; value: BootstrapState }
  | { key: 'window'; value: HistoryWindow }
  | { key: 'taskWindow'; value: TaskWindowState }
  | { key: 'storagePersisted'; value: boolean };

/** Entity tables by the sync entity they hold. */
export const entityTables = {
  user: 'users',
  task: 'tasks',
  notification: 'notifications',
  notificationMarker: 'notificationMarkers',
  notificationPreferences: 'notificationPreferences',
  chatMessage: 'chatMessages',
  conversation: 'conversations',
  directMessage: 'directMessages',
} as const satisfies Record<EntityName, string>;
export type EntityTableName = (typeof entityTables)[EntityName];

export type WorkspaceDb = Dexie & {
  users: EntityTable<LocalUser, 'id'>;
  tasks: EntityTable<LocalTask, 'id'>;
  notifications: EntityTable<LocalNotification, 'id'>;
  notificationMarkers: EntityTable<LocalNotificationMarker, 'id'>;
  notificationPreferences: EntityTable<LocalNotificationPreferences, 'id'>;
  chatMessages: EntityTable<LocalChatMessage, 'id'>;
  conversations: EntityTable<LocalConversation, 'id'>;
  directMessages: EntityTable<LocalDirectMessage, 'id'>;
  outbox: EntityTable<OutboxEntry, 'id'>;
  meta: EntityTable<MetaRow, 'key'>;
  drafts: EntityTable<DraftRow, 'key'>;
  historyRanges: EntityTable<HistoryRange, 'key'>;
  auditPages: EntityTable<AuditPageRow, 'key'>;
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
  // Protocol 5: team chat notices are derived from the messages with the person's read marker; an unread
  // notice is counted after that marker; a write finds the queued writes of its rows by index.
  db.version(5)
    .stores({
      notifications: 'id, createdAt, pending, unreadAt',
      notificationMarkers: 'id',
      chatMessages: 'id, timestamp, pending, [userId.id+timestamp]',
      outbox: 'id, status, *rowKeys',
    })
    .upgrade(async (tx) => {
      await tx
        .table<LocalNotification, string>('notifications')
        .toCollection()
        .modify((row) => {
          withUnreadAt(row);
        });
      await tx
        .table<OutboxEntry, number>('outbox')
        .toCollection()
        .modify((entry) => {
          entry.rowKeys = rowKeysOf(entry.undo);
        });
    });
  // Protocol 6: messages carry their reactions. Rows kept from before show none until the re-bootstrap the
  // new protocol starts brings them, so a chat opened offline right after the update still renders.
  db.version(6)
    .stores({})
    .upgrade(async (tx) => {
      for (const name of ['chatMessages', 'directMessages'] as const) {
        await tx
          .table<LocalChatMessage | LocalDirectMessage, string>(name)
          .toCollection()
          .modify((row) => {
            row.reactions = (row as Partial<Pick<LocalChatMessage, 'reactions'>>).reactions ?? [];
          });
      }
    });
  // The bell's Mentions filter lists the newest mention notices by index (issue 18).
  db.version(7).stores({ notifications: 'id, createdAt, pending, unreadAt, [type+createdAt]' });
  // Protocol 9: the person's notification preferences (issue 18), one row, synced from their other devices.
  db.version(8).stores({ notificationPreferences: 'id' });
  // The dashboard counts tasks by status and finds the overdue ones by index: a manager holds every task.
  db.version(9).stores({ tasks: 'id, updatedAt, pending, status, [status+dueDate]' });
  // Issue 46: the device holds a window of the history. What it holds of each conversation (a device updated from
  // protocol 9 has none: it holds everything, and trims to the window without a download); completed tasks leave
  // by the time they last changed; messages are read by time, and evicted oldest first.
  db.version(10).stores({
    historyRanges: 'key',
    tasks: 'id, updatedAt, pending, status, [status+dueDate], [status+updatedAt]',
  });
  // An admin's audit log pages, kept to be read offline (issue 44), the oldest dropped past a bound.
  db.version(11).stores({ auditPages: 'key, savedAt' });
  db.use(unreadKeyMiddleware);
  db.use(rowChangesMiddleware(db));
  return db;
}

export const syncedTableNames = Object.values(entityTables);

/** The `table:key` names of the rows a write touches. */
export const rowKeysOf = (rows: readonly { table: string; key: string }[]): string[] => [
  ...new Set(rows.map(({ table, key }) => rowKey(table, key))),
];
export const rowKey = (table: string, key: string): string => `${table}:${key}`;

/** Sets or removes the `unread` index key from `read`; mutates and returns the row (version 3's upgrade). */
function withUnreadKey(row: LocalNotification): LocalNotification {
  if (row.read) delete row.unread;
  else row.unread = 1;
  return row;
}

/** Sets or removes the `unreadAt` index key from `read`; mutates and returns the row. */
function withUnreadAt(row: LocalNotification): LocalNotification {
  delete row.unread;
  if (row.read) delete row.unreadAt;
  else row.unreadAt = row.createdAt;
  return row;
}

/**
 * Derives `unreadAt` on every write of a notification (server pulls, live changes, read marks, undo),
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
          const values = (request.values as LocalNotification[]).map((row) => withUnreadAt({ ...row }));
          return table.mutate({ ...request, values });
        },
      };
    },
  }),
};
