import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import {
  conversationIdFor,
  historyWindow,
  type ChatMessage,
  type Conversation,
  type DirectMessage,
  type HistoryWindow,
  type PullResponse,
  type Task,
  type TaskStatus,
  type User,
} from '@office/sync-protocol';
import { openWorkspaceDb, type WorkspaceDb } from '../src/data/db';

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

/** A test id as a UUID: `id(12)` is ...000000000012. */
export const testId = (n: number): string => `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`;

const author = { _id: testId(900), id: testId(900), name: 'Maya Manager', avatar: null, role: 'manager' as const };

/** A team chat message by Maya at `timestamp`. */
export const aChatMessage = (n: number, timestamp: string, overrides: Partial<ChatMessage> = {}): ChatMessage => ({
  _id: testId(n),
  id: testId(n),
  userId: author,
  userName: author.name,
  userAvatar: null,
  text: `message ${n}`,
  type: 'text',
  timestamp,
  edited: false,
  attachments: [],
  reactions: [],
  version: 1,
  ...overrides,
});

/** A conversation of `selfId` with Maya, read by neither. */
export const aConversation = (selfId: string, overrides: Partial<Conversation> = {}): Conversation => {
  const person = (id: string) => ({
    _id: id,
    id,
    name: id === selfId ? 'Me' : author.name,
    avatar: null,
    role: 'employee' as const,
    lastReadAt: null,
  });
  const id = conversationIdFor(selfId, author.id);
  return {
    _id: id,
    id,
    participants: [person(selfId), person(author.id)],
    lastMessage: null,
    lastMessageAt: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    version: 1,
    ...overrides,
  };
};

/** A direct message of Maya's in the conversation of `selfId` with her. */
export const aDirectMessage = (selfId: string, n: number, createdAt: string): DirectMessage => ({
  _id: testId(n),
  id: testId(n),
  conversationId: conversationIdFor(selfId, author.id),
  participantIds: [selfId, author.id],
  sender: { _id: author.id, id: author.id, name: author.name, avatar: null },
  content: `direct ${n}`,
  text: `direct ${n}`,
  createdAt,
  attachments: [],
  reactions: [],
  version: 1,
});

/** A task assigned to `assignee` by Maya. */
export const aTask = (n: number, assignee: string, status: TaskStatus, updatedAt: string): Task => ({
  _id: testId(n),
  id: testId(n),
  title: `task ${n}`,
  description: '',
  assignedTo: { _id: assignee, id: assignee, name: 'Me' },
  assignedBy: { _id: author.id, id: author.id, name: author.name },
  priority: 'medium',
  status,
  dueDate: '2026-12-31',
  comments: [],
  statusHistory: [],
  statusVersion: 0,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt,
  version: 1,
});

/** A pull answer: incremental unless `overrides` say otherwise. */
export const aPage = (changes: PullResponse['changes'], overrides: Partial<PullResponse> = {}): PullResponse => ({
  changes,
  cursor: '1',
  more: false,
  reset: false,
  bootstrap: null,
  lastMutationId: 0,
  window: testWindow,
  ...overrides,
});

/** The puts of these rows, as a page carries them. */
export const putsOf = <E extends PullResponse['changes'][number]['entity']>(
  entity: E,
  rows: { id: string }[],
): PullResponse['changes'] =>
  rows.map((data) => ({ entity, op: 'put', id: data.id, data }) as PullResponse['changes'][number]);
