import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  customType,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { searchDocument } from './search-document';
import type {
  AttachmentKind,
  AuditAction,
  NotificationType,
  PresenceStatus,
  QuietHours,
  ReactionEmoji,
  Role,
  SignupPolicy,
  TaskPriority,
  TaskStatus,
  TeamChatNoticeLevel,
} from '@office/sync-protocol';
import type { StoredChangeOp } from './schema-sqlite';

// The PostgreSQL twin of schema-sqlite.ts: the same tables, columns, keys and indexes, and rows of the same TypeScript
// types, so one domain runs on either (schema-pg.test.ts holds the two together). Times stay ISO text as in
// SQLite; sequence numbers, versions, counters and sizes are bigint (read back as numbers).

/** The time as SQLite's `now` writes it (`2026-11-26T09:25:13.123Z`), taken once per statement as SQLite does. */
const now = sql`to_char(statement_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * A transaction id with its epoch (`xid8`, which never wraps around), read as its decimal text. Written only by its
 * default, `pg_current_xact_id()`: the id of the writing transaction (the top-level one, also inside a savepoint).
 */
const transactionId = customType<{ data: string; driverData: string }>({ dataType: () => 'xid8' });

/** JSON stored as text, parsed on read: what SQLite's `text(..., { mode: 'json' })` does. */
const jsonText = customType<{ data: unknown; driverData: string }>({
  dataType: () => 'text',
  toDriver: (value) => JSON.stringify(value),
  fromDriver: (value) => JSON.parse(value) as unknown,
});

export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    email: text('email').notNull(),
    passwordHash: text('password_hash'),
    googleSub: text('google_sub'),
    role: text('role').$type<Role>().notNull().default('employee'),
    department: text('department'),
    avatar: text('avatar'),
    status: text('status').$type<PresenceStatus>().notNull().default('offline'),
    lastSeen: text('last_seen'),
    deactivatedAt: text('deactivated_at'),
    /** The name's confusable skeleton (Unicode UTS #39, see domain/users/name-lookalikes.ts); null until backfilled. */
    nameSkeleton: text('name_skeleton'),
    /**
     * Set by a manager's or admin's reset: the password is a one-time code, and until its owner chooses a new one
     * every call of theirs but that choice (and signing out) is refused.
     */
    mustChangePassword: boolean('must_change_password').notNull().default(false),
    /** When the password was last reset to a one-time code: sessions started before it ended with it. */
    passwordResetAt: text('password_reset_at'),
    /** When the one-time code signed in: it signs in once. */
    passwordResetUsedAt: text('password_reset_used_at'),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
    /** The change-log sequence number of this row's last change. */
    version: bigint('version', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    uniqueIndex('users_email_unique').on(t.email),
    // A message's @mentions are looked up by name, ignoring case, without reading the whole directory.
    index('users_name_lower').on(sql`lower(${t.name})`),
    // A new name is compared with those that look like it, found by skeleton instead of reading every member.
    index('users_name_skeleton').on(t.nameSkeleton),
  ],
);

/**
 * One row per committed change. Writers run at the same time, so the identity gives no commit order on PostgreSQL:
 * readers take the changes of transactions older than the oldest one still running, in `(xid, seq)` order
 * (ARCHITECTURE.md, "Scale-out"; db/change-feed.ts). By default, not always: a compaction or an import may set `seq`.
 */
export const changeLog = pgTable(
  'change_log',
  {
    seq: bigint('seq', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    /** The writing transaction: a reader takes the change once every older transaction has ended. */
    xid: transactionId('xid')
      .notNull()
      .default(sql`pg_current_xact_id()`),
    entity: text('entity').notNull(),
    entityId: text('entity_id').notNull(),
    /** `create` is the put that made the entity: the push queue finds new team chat messages by it. */
    op: text('op').$type<StoredChangeOp>().notNull(),
    createdAt: text('created_at').notNull().default(now),
    /**
     * The audience when it is one principal (a team chat message: `team`), so that the commonest change is one row;
     * a change seen by several principals has them in change_audience instead.
     */
    principal: text('principal'),
  },
  (t) => [
    // A pull reads a person's changes by principal, in order.
    index('change_log_principal')
      .on(t.principal, t.xid, t.seq)
      .where(sql`${t.principal} IS NOT NULL`),
    // Each node's live feed reads every change, in order.
    index('change_log_position').on(t.xid, t.seq),
  ],
);

/** Who may see a change seen by several principals (`team`, `role:<role>`, `user:<id>`); one principal is on its row. */
export const changeAudience = pgTable(
  'change_audience',
  {
    principal: text('principal').notNull(),
    seq: bigint('seq', { mode: 'number' })
      .notNull()
      .references(() => changeLog.seq, { onDelete: 'cascade' }),
    /** The change's transaction (the same default in the same transaction): a pull reads these rows in order too. */
    xid: transactionId('xid')
      .notNull()
      .default(sql`pg_current_xact_id()`),
  },
  (t) => [
    primaryKey({ columns: [t.principal, t.seq] }),
    index('change_audience_seq').on(t.seq),
    index('change_audience_position').on(t.principal, t.xid, t.seq),
  ],
);

/** Each local database of the PWA is a sync client of one user. */
export const syncClients = pgTable('sync_clients', {
  clientId: text('client_id').primaryKey(),
  userId: text('user_id')
    .notNull()
    .references(() => users.id),
  lastMutationId: bigint('last_mutation_id', { mode: 'number' }).notNull().default(0),
  /** The transaction that advanced `lastMutationId` (null: before this column, long ended). */
  lastMutationXid: transactionId('last_mutation_xid'),
  /**
   * A mutation id every reader can see the effects of: `lastMutationId` as it was before the push that wrote
   * `lastMutationXid`, if that push's transaction had ended below every reader's horizon then. A pull acknowledges
   * `lastMutationId` once its transaction is below the pull's horizon, this one before (db/mutation-ack.ts).
   */
  settledMutationId: bigint('settled_mutation_id', { mode: 'number' }).notNull().default(0),
  createdAt: text('created_at').notNull().default(now),
  /** When the client's latest applied change was made (clamped): no later change of it may claim an earlier time. */
  lastChangeAt: text('last_push_at'),
  /**
   * A restore lost this client's latest acknowledged writes (they came after the backup): its next push is taken
   * from wherever its queue starts, once, instead of stopping at the gap the lost writes left.
   */
  resumesAfterRestore: boolean('resumes_after_restore').notNull().default(false),
});

/**
 * The refused mutations, with their reasons, so a replay answers the same. An applied mutation has no row: the
 * client's last mutation id says it (rows with status `applied` come from databases older than that rule).
 */
export const syncMutations = pgTable(
  'sync_mutations',
  {
    clientId: text('client_id')
      .notNull()
      .references(() => syncClients.clientId, { onDelete: 'cascade' }),
    mutationId: bigint('mutation_id', { mode: 'number' }).notNull(),
    name: text('name').notNull(),
    status: text('status').$type<'applied' | 'rejected'>().notNull(),
    code: text('code'),
    message: text('message'),
    processedAt: text('processed_at').notNull().default(now),
  },
  (t) => [primaryKey({ columns: [t.clientId, t.mutationId] })],
);

/** Small key/value facts about the database (the change-log floor). */
export const meta = pgTable('meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

export const tasks = pgTable(
  'tasks',
  {
    id: text('id').primaryKey(),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    /** Null once the assignee's account was removed: the task stays, unassigned. */
    assignedTo: text('assigned_to').references(() => users.id),
    assignedBy: text('assigned_by')
      .notNull()
      .references(() => users.id),
    priority: text('priority').$type<TaskPriority>().notNull().default('medium'),
    status: text('status').$type<TaskStatus>().notNull().default('pending'),
    dueDate: text('due_date').notNull(),
    statusVersion: bigint('status_version', { mode: 'number' }).notNull().default(0),
    /** When the user made the change that set the current status (clamped client time). */
    statusChangedAt: text('status_changed_at').notNull(),
    dueSoonNotifiedAt: text('due_soon_notified_at'),
    overdueNotifiedAt: text('overdue_notified_at'),
    deletedAt: text('deleted_at'),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
    version: bigint('version', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    index('tasks_assigned_to').on(t.assignedTo),
    index('tasks_assigned_by').on(t.assignedBy),
    index('tasks_due_date').on(t.dueDate),
    // The task list pages read the newest changes first.
    index('tasks_updated').on(t.updatedAt),
    // A device holds every open task and the completed ones of the last days (issue 46): a bootstrap reads both by
    // these, and the completed ones before a device's window are counted from the second alone (by assignee).
    index('tasks_open')
      .on(t.id)
      .where(sql`${t.status} <> 'completed' AND ${t.deletedAt} IS NULL`),
    index('tasks_completed')
      .on(t.updatedAt, t.assignedTo)
      .where(sql`${t.status} = 'completed' AND ${t.deletedAt} IS NULL`),
    // Full-text search (SQLite has an FTS5 table instead).
    index('tasks_search').using('gin', searchDocument(t.title, t.description)),
  ],
);

export const taskComments = pgTable(
  'task_comments',
  {
    id: text('id').primaryKey(),
    taskId: text('task_id')
      .notNull()
      .references(() => tasks.id),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    text: text('text').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    index('task_comments_task').on(t.taskId, t.createdAt),
    index('task_comments_search').using('gin', searchDocument(t.text)),
  ],
);

export const taskStatusHistory = pgTable(
  'task_status_history',
  {
    id: text('id').primaryKey(),
    taskId: text('task_id')
      .notNull()
      .references(() => tasks.id),
    status: text('status').$type<TaskStatus>().notNull(),
    updatedBy: text('updated_by')
      .notNull()
      .references(() => users.id),
    /** When the user made the change (clamped client time), which orders the history. */
    updatedAt: text('updated_at').notNull(),
    note: text('note'),
    superseded: boolean('superseded').notNull().default(false),
  },
  (t) => [index('task_status_history_task').on(t.taskId, t.updatedAt)],
);

export const notifications = pgTable(
  'notifications',
  {
    id: text('id').primaryKey(),
    recipientId: text('recipient_id')
      .notNull()
      .references(() => users.id),
    senderId: text('sender_id').references(() => users.id),
    type: text('type').$type<NotificationType>().notNull(),
    title: text('title').notNull(),
    message: text('message').notNull(),
    relatedTaskId: text('related_task_id'),
    data: jsonText('data')
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{}'`),
    /** The message a direct_message or mention notice is about: one notice per message. */
    messageId: text('message_id'),
    readAt: text('read_at'),
    /** Set until the background push queue has handed it to web push (api/src/push). */
    pushPending: boolean('push_pending').notNull().default(false),
    createdAt: text('created_at').notNull().default(now),
    version: bigint('version', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    index('notifications_recipient').on(t.recipientId, t.createdAt),
    // The unread count reads this index only (those after the person's read marker).
    index('notifications_unread')
      .on(t.recipientId, t.createdAt)
      .where(sql`${t.readAt} IS NULL`),
    uniqueIndex('notifications_message').on(t.recipientId, t.messageId),
    index('notifications_push_pending')
      .on(t.id)
      .where(sql`${t.pushPending} = true`),
  ],
);

/**
 * One person's read state of notifications (its id is the user's). Team chat notices are derived from the
 * messages, not stored per person: each message by someone else since `chatSince` (null: since the person
 * joined) is one; every notice up to `readThrough` is read, later ones when marked in chat_notice_reads.
 */
export const notificationMarkers = pgTable('notification_markers', {
  id: text('id')
    .primaryKey()
    .references(() => users.id),
  chatSince: text('chat_since'),
  readThrough: text('read_through'),
  version: bigint('version', { mode: 'number' }).notNull().default(0),
});

/**
 * A person's notification preferences, once they change one or a device reports their time zone; without a
 * row, the spec's defaults. `digestDueAt` is the next 08:00 in their time zone: the digest job reads it by index.
 */
export const notificationPreferences = pgTable(
  'notification_preferences',
  {
    id: text('id')
      .primaryKey()
      .references(() => users.id),
    teamChat: text('team_chat').$type<TeamChatNoticeLevel>().notNull().default('all'),
    directMessages: boolean('direct_messages').notNull().default(true),
    taskNotices: boolean('task_notices').notNull().default(true),
    morningDigest: boolean('morning_digest').notNull().default(true),
    quietHours: jsonText('quiet_hours').$type<QuietHours | null>(),
    timeZone: text('time_zone'),
    digestDueAt: text('digest_due_at'),
    version: bigint('version', { mode: 'number' }).notNull().default(0),
  },
  (t) => [index('notification_preferences_digest_due').on(t.digestDueAt)],
);

/** Team chat notices a person marked read one by one, after their marker's readThrough. */
export const chatNoticeReads = pgTable(
  'chat_notice_reads',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    messageId: text('message_id').notNull(),
    /** The message's time: marks at or before a new readThrough are dropped. */
    messageCreatedAt: text('message_created_at').notNull(),
    readAt: text('read_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.messageId] }),
    index('chat_notice_reads_time').on(t.userId, t.messageCreatedAt),
  ],
);

export const chatMessages = pgTable(
  'chat_messages',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    text: text('text').notNull().default(''),
    type: text('type').$type<'text' | 'file'>().notNull().default('text'),
    edited: boolean('edited').notNull().default(false),
    deletedAt: text('deleted_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    version: bigint('version', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    // Every read of messages by time reads live ones: chat_messages_live serves them. The push queue finds new
    // messages by their `create` change (see push-queue.ts): no flag, no index of flagged ones in every message's commit.
    // Team chat notices are listed newest first and counted from it alone: the author is in it, so a person's unread
    // count (messages after the marker less their own) is one pass over the index. Not an index by author: a message
    // then wrote a page of it per author in the commit (at 8 authors, 11 of a commit's 24 pages). `deleted_at`, null
    // in every entry, is there because SQLite reads the table for a column the index's condition names.
    index('chat_messages_live')
      .on(t.createdAt, t.id, t.userId, t.deletedAt)
      .where(sql`${t.deletedAt} IS NULL`),
    index('chat_messages_search').using('gin', searchDocument(t.text)),
  ],
);

/**
 * How many live team chat messages each person wrote: Employee Management's "Messages" and a device's counts before
 * its window read these rows rather than every message of the history. Kept by the chat's send and delete commands
 * (one row per author, written in the message's own transaction).
 */
export const chatAuthorCounts = pgTable('chat_author_counts', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id),
  liveMessages: integer('live_messages').notNull().default(0),
});

export const chatAttachments = pgTable(
  'chat_attachments',
  {
    filename: text('filename').primaryKey(),
    messageId: text('message_id')
      .notNull()
      .references(() => chatMessages.id),
    originalName: text('original_name').notNull(),
    mimetype: text('mimetype').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    kind: text('kind').$type<AttachmentKind>().notNull(),
  },
  (t) => [index('chat_attachments_message').on(t.messageId)],
);

/**
 * One person's reaction to a team chat message: one row, whatever the size of the team. The key makes a
 * reaction given twice one row; reactions are read per message through the key's leading column.
 */
export const chatReactions = pgTable(
  'chat_reactions',
  {
    messageId: text('message_id')
      .notNull()
      .references(() => chatMessages.id),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    emoji: text('emoji').$type<ReactionEmoji>().notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.userId, t.emoji] })],
);

/** A conversation between two users; its id follows from theirs (conversationIdFor). */
export const conversations = pgTable(
  'conversations',
  {
    id: text('id').primaryKey(),
    /** The participants in id order, with how far each has read (server time of the newest message read). */
    userA: text('user_a')
      .notNull()
      .references(() => users.id),
    userB: text('user_b')
      .notNull()
      .references(() => users.id),
    userAReadAt: text('user_a_read_at'),
    userBReadAt: text('user_b_read_at'),
    /** Null when there is no message yet, or the last one was deleted (spec section 4). */
    lastMessageId: text('last_message_id'),
    lastMessageAt: text('last_message_at'),
    createdAt: text('created_at').notNull(),
    version: bigint('version', { mode: 'number' }).notNull().default(0),
  },
  (t) => [uniqueIndex('conversations_pair').on(t.userA, t.userB), index('conversations_user_b').on(t.userB)],
);

export const directMessages = pgTable(
  'direct_messages',
  {
    id: text('id').primaryKey(),
    conversationId: text('conversation_id')
      .notNull()
      .references(() => conversations.id),
    senderId: text('sender_id')
      .notNull()
      .references(() => users.id),
    text: text('text').notNull().default(''),
    deletedAt: text('deleted_at'),
    createdAt: text('created_at').notNull(),
    version: bigint('version', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    index('direct_messages_conversation').on(t.conversationId, t.createdAt),
    index('direct_messages_search').using('gin', searchDocument(t.text)),
  ],
);

export const directAttachments = pgTable(
  'direct_attachments',
  {
    filename: text('filename').primaryKey(),
    messageId: text('message_id')
      .notNull()
      .references(() => directMessages.id),
    originalName: text('original_name').notNull(),
    mimetype: text('mimetype').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    kind: text('kind').$type<AttachmentKind>().notNull(),
  },
  (t) => [index('direct_attachments_message').on(t.messageId)],
);

/** One person's reaction to a direct message, as chatReactions is for the team chat. */
export const directReactions = pgTable(
  'direct_reactions',
  {
    messageId: text('message_id')
      .notNull()
      .references(() => directMessages.id),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    emoji: text('emoji').$type<ReactionEmoji>().notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.userId, t.emoji] })],
);

/** A browser's web push subscription; one user may have several devices. */
export const pushSubscriptions = pgTable(
  'push_subscriptions',
  {
    endpoint: text('endpoint').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    p256dh: text('p256dh').notNull(),
    auth: text('auth').notNull(),
    createdAt: text('created_at').notNull().default(now),
  },
  (t) => [index('push_subscriptions_user').on(t.userId)],
);

/**
 * A signed-in device: every token names one (its `sid`). Logout ends it, a password change ends the user's
 * others and deactivation all of them; an ended session's row is gone, so its token is refused at once.
 */
export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    createdAt: text('created_at').notNull(),
    /** The token's own expiry: a row past it is kept only until the user's next sign-in clears it. */
    expiresAt: text('expires_at').notNull(),
  },
  (t) => [index('sessions_user').on(t.userId)],
);

/** A push waiting to be sent to one subscription, or to be tried again (bounded; see api/src/push). */
export const pushDeliveries = pgTable(
  'push_deliveries',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    endpoint: text('endpoint')
      .notNull()
      .references(() => pushSubscriptions.endpoint, { onDelete: 'cascade' }),
    /** The PushPayload as JSON; it is encrypted to the subscription's keys when sent. */
    payload: text('payload').notNull(),
    /** The push service's Topic header: a newer push with the same topic replaces an undelivered one. */
    topic: text('topic'),
    // Bounded by the queue's maxAttempts: the one counter that stays a plain integer.
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: text('next_attempt_at').notNull(),
    createdAt: text('created_at').notNull().default(now),
  },
  (t) => [index('push_deliveries_due').on(t.nextAttemptAt)],
);

/** Per person: when a team chat push last went out, and the messages held since (one push per 30 s). */
export const pushChatStates = pgTable(
  'push_chat_states',
  {
    userId: text('user_id')
      .primaryKey()
      .references(() => users.id),
    lastSentAt: text('last_sent_at'),
    heldCount: bigint('held_count', { mode: 'number' }).notNull().default(0),
    /** The newest held message: named when it is the only one. */
    heldMessageId: text('held_message_id'),
    /** When the held messages are summed up in one push; null while none is held. */
    flushAt: text('flush_at'),
  },
  (t) => [index('push_chat_states_flush').on(t.flushAt)],
);

/**
 * The audit trail (issue 44): one row per administrative act, written in the act's own transaction (a failed
 * sign-in, which writes nothing else, in one of its own). No route changes or deletes a record; the retention job
 * drops those older than AUDIT_KEEP_DAYS.
 */
export const auditRecords = pgTable(
  'audit_records',
  {
    /** UUIDv7: in the order the acts were recorded, so the newest first is the id order reversed. */
    id: text('id').primaryKey(),
    at: text('at').notNull(),
    action: text('action').$type<AuditAction>().notNull(),
    actorId: text('actor_id'),
    actorName: text('actor_name'),
    targetId: text('target_id'),
    targetName: text('target_name'),
    ip: text('ip'),
    /** A JSON object of strings (the email of a failed sign-in, a role before and after). */
    details: text('details').notNull().default('{}'),
  },
  (t) => [
    index('audit_records_actor').on(t.actorId, t.id),
    index('audit_records_target').on(t.targetId, t.id),
    index('audit_records_action').on(t.action, t.id),
    index('audit_records_at').on(t.at),
  ],
);

/**
 * The workspace's own settings: one row (id `workspace`), written when an admin first changes one; until then the
 * server's defaults (SIGNUP_POLICY, SIGNUP_DOMAINS) apply.
 */
export const workspaceSettings = pgTable('workspace_settings', {
  id: text('id').primaryKey(),
  signupPolicy: text('signup_policy').$type<SignupPolicy>().notNull(),
  /** The domains of the `domains` policy, comma-separated. */
  signupDomains: text('signup_domains').notNull().default(''),
  updatedAt: text('updated_at').notNull(),
  updatedBy: text('updated_by').references(() => users.id),
});

/**
 * An invitation link. Its token is shown once and kept only as a SHA-256 hash (it is long and random, so a fast hash
 * suffices); it admits `maxUses` sign-ups, or one for its `email`, until it expires or is withdrawn.
 */
export const invitations = pgTable(
  'invitations',
  {
    id: text('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    email: text('email'),
    createdBy: text('created_by')
      .notNull()
      .references(() => users.id),
    createdAt: text('created_at').notNull(),
    expiresAt: text('expires_at').notNull(),
    maxUses: integer('max_uses').notNull().default(1),
    uses: integer('uses').notNull().default(0),
    revokedAt: text('revoked_at'),
  },
  (t) => [uniqueIndex('invitations_token_hash').on(t.tokenHash), index('invitations_created').on(t.createdAt)],
);
