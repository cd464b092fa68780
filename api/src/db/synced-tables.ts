import type { EntityName } from '@office/sync-protocol';
import {
  chatMessages,
  conversations,
  directMessages,
  notificationMarkers,
  notificationPreferences,
  notifications,
  tasks,
  users,
} from './schema';

/** The table behind each synced entity; each has `id` and `version` columns. */
export const syncedTables = {
  user: users,
  task: tasks,
  notification: notifications,
  notificationMarker: notificationMarkers,
  notificationPreferences,
  chatMessage: chatMessages,
  conversation: conversations,
  directMessage: directMessages,
} as const satisfies Record<EntityName, unknown>;
