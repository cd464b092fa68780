import { useLiveQuery } from 'dexie-react-hooks';
import type { LocalNotification, WorkspaceDb } from './db';
import { useWorkspace } from '../sync/sync-context';

/** How many notifications the bell's list shows; older ones stay in the database and in the unread count. */
export const NOTIFICATION_LIST_LIMIT = 50;

/** The newest notifications first (ties by id, which is time-ordered too). */
export function listNotifications(db: WorkspaceDb, limit = NOTIFICATION_LIST_LIMIT): Promise<LocalNotification[]> {
  return db.notifications.orderBy('createdAt').reverse().limit(limit).toArray();
}

/** How many of the user's notifications are unread on this device, pending read marks included. */
export function countUnreadNotifications(db: WorkspaceDb): Promise<number> {
  return db.notifications.where('unread').equals(1).count();
}

/** The bell's list, live: it follows pulls, socket pokes and optimistic read marks. */
export function useNotifications(limit = NOTIFICATION_LIST_LIMIT): LocalNotification[] | undefined {
  const { db } = useWorkspace();
  return useLiveQuery(() => listNotifications(db, limit), [db, limit]);
}

/** The unread count, live (undefined while reading). */
export function useUnreadNotificationCount(): number | undefined {
  const { db } = useWorkspace();
  return useLiveQuery(() => countUnreadNotifications(db), [db]);
}
