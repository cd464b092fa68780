import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { PresenceStatus, Role } from '@office/sync-protocol';

const now = sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;

export const users = sqliteTable(
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
    /** Bumped by deactivation and password change so older tokens stop working at once. */
    tokenVersion: integer('token_version').notNull().default(0),
    deactivatedAt: text('deactivated_at'),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
    /** The change-log sequence number of this row's last change. */
    version: integer('version').notNull().default(0),
  },
  (t) => [uniqueIndex('users_email_unique').on(t.email)],
);

/** One row per committed change, in commit order (SQLite has one writer). */
export const changeLog = sqliteTable('change_log', {
  seq: integer('seq').primaryKey({ autoIncrement: true }),
  entity: text('entity').notNull(),
  entityId: text('entity_id').notNull(),
  op: text('op').$type<'put' | 'delete'>().notNull(),
  createdAt: text('created_at').notNull().default(now),
});

/** Who may see a change: `team`, `role:<role>` or `user:<id>`. */
export const changeAudience = sqliteTable(
  'change_audience',
  {
    principal: text('principal').notNull(),
    seq: integer('seq')
      .notNull()
      .references(() => changeLog.seq, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.principal, t.seq] }), index('change_audience_seq').on(t.seq)],
);

/** Each local database of the PWA is a sync client of one user. */
export const syncClients = sqliteTable('sync_clients', {
  clientId: text('client_id').primaryKey(),
  userId: text('user_id')
    .notNull()
    .references(() => users.id),
  lastMutationId: integer('last_mutation_id').notNull().default(0),
  createdAt: text('created_at').notNull().default(now),
  lastPushAt: text('last_push_at'),
});

/** The stored outcome of each processed mutation, so a replay answers the same. */
export const syncMutations = sqliteTable(
  'sync_mutations',
  {
    clientId: text('client_id')
      .notNull()
      .references(() => syncClients.clientId, { onDelete: 'cascade' }),
    mutationId: integer('mutation_id').notNull(),
    name: text('name').notNull(),
    status: text('status').$type<'applied' | 'rejected'>().notNull(),
    code: text('code'),
    message: text('message'),
    processedAt: text('processed_at').notNull().default(now),
  },
  (t) => [primaryKey({ columns: [t.clientId, t.mutationId] })],
);

/** Small key/value facts about the database (the change-log floor). */
export const meta = sqliteTable('meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});
