import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { historyWindow, type HistoryWindow, type User } from '@office/sync-protocol';
import { openWorkspaceDb, type WorkspaceDb } from '../data/db';

/** A fresh local database on a fresh fake IndexedDB, so tests never share state. */
export function freshDb(userId: string): WorkspaceDb {
  return openWorkspaceDb(userId, { indexedDB: new IDBFactory(), IDBKeyRange });
}

export const aUser = (id: string, overrides: Partial<User> = {}): User => ({
  id,
  _id: id,
  name: 'Alice Johnson',
  email: 'alice@demo.local',
  role: 'employee',
  department: 'Engineering',
  avatar: null,
  status: 'offline',
  lastSeen: null,
  createdAt: '2026-11-01T00:00:00.000Z',
  updatedAt: '2026-11-01T00:00:00.000Z',
  version: 1,
  ...overrides,
});

/** The window of history a server tells its devices by default (a pull answer's `window`). */
export const testWindow: HistoryWindow = {
  ...historyWindow,
  completedSince: new Date(Date.now() - historyWindow.completedTaskDays * 86_400_000).toISOString(),
};
