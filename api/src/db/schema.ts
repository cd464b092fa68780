import { dialect } from './dialect';
import * as pg from './schema-pg';
import * as sqlite from './schema-sqlite';

/**
 * The tables the domain builds its queries on: SQLite's (schema-sqlite.ts) or, with DATABASE_URL, PostgreSQL's
 * (schema-pg.ts). The domain is typed against the SQLite tables; the PostgreSQL ones have the same names, columns
 * and row types (schema-pg.test.ts holds the two together), so one domain runs on either.
 */
const tables = (dialect === 'postgres' ? pg : sqlite) as unknown as typeof sqlite;

export const {
  users,
  changeLog,
  changeAudience,
  syncClients,
  syncMutations,
  meta,
  tasks,
  taskComments,
  taskStatusHistory,
  notifications,
  notificationMarkers,
  notificationPreferences,
  chatNoticeReads,
  chatMessages,
  chatAuthorCounts,
  chatAttachments,
  chatReactions,
  conversations,
  directMessages,
  directAttachments,
  directReactions,
  pushSubscriptions,
  sessions,
  pushDeliveries,
  pushChatStates,
  auditRecords,
  workspaceSettings,
  invitations,
} = tables;
