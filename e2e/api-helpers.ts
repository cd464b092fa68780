import { randomUUID } from 'node:crypto';
import { expect, type ApiClient } from './fixtures';

// What the server answers (the fields the specs read) and the HTTP calls several specs make to set
// up their data. Each helper asserts the status it expects, so a failed setup names the call.

/** A short random tag that keeps a test's titles, names and texts apart from every other test's. */
export const unique = (): string => `${Date.now()}-${randomUUID().slice(0, 6)}`;

/** An ISO date (UTC, as the app compares due dates) `days` from today. */
export const isoDate = (days = 0): string => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** The statuses of a task, in the order the app lists them. */
export const taskStatuses = ['pending', 'working', 'completed', 'waiting'] as const;
export type TaskStatus = (typeof taskStatuses)[number];
/** How the app writes each task status. */
export const taskStatusLabel: Record<TaskStatus, string> = {
  pending: 'Pending',
  working: 'Working',
  completed: 'Completed',
  waiting: 'Waiting',
};
export type TaskPriority = 'low' | 'medium' | 'high' | 'critical';
/** How the app writes each task priority. */
export const taskPriorityLabel: Record<TaskPriority, string> = {
  low: 'Low',
  medium: 'Medium',
  high: 'High',
  critical: 'Critical',
};

/** A task as GET /api/tasks answers it (the fields the specs read). */
export interface ServerTask {
  id: string;
  title: string;
  description: string;
  status: TaskStatus;
  priority: TaskPriority;
  dueDate: string;
  updatedAt: string;
  assignedTo: { id: string; name: string } | null;
  assignedBy: { id: string; name: string };
  statusHistory: { status: TaskStatus; updatedBy: { name: string }; note: string | null; superseded: boolean }[];
  comments: { text: string; userName: string }[];
}

/** The tasks `api`'s user sees (GET /api/tasks). */
export async function serverTasks(api: ApiClient): Promise<ServerTask[]> {
  const answer = await api.get<{ tasks: ServerTask[] }>('/api/tasks');
  expect(answer.status, 'GET /api/tasks').toBe(200);
  return answer.body.tasks;
}

/**
 * Creates a task over HTTP as `api`'s user (a manager); the title is made unique by the caller.
 * Unless given, it has no description, medium priority and is due in 5 days.
 */
export async function createTask(
  api: ApiClient,
  fields: {
    title: string;
    assignedTo: string;
    description?: string;
    status?: TaskStatus;
    priority?: TaskPriority;
    dueDate?: string;
  },
): Promise<ServerTask> {
  const answer = await api.post<{ task: ServerTask }>('/api/tasks', {
    description: '',
    priority: 'medium',
    dueDate: isoDate(5),
    ...fields,
  });
  expect(answer.status, `creating the task "${fields.title}"`).toBe(201);
  return answer.body.task;
}

/** A notification as GET /api/notifications answers it (the fields the specs read). */
export interface ServerNotification {
  id: string;
  type: string;
  title: string;
  message: string;
  read: boolean;
  relatedTask: string | null;
}

/** GET /api/notifications: the caller's notifications, newest first, and how many are unread. */
export interface NotificationsAnswer {
  notifications: ServerNotification[];
  unreadCount: number;
}

/** The notifications of `api`'s user (GET /api/notifications). */
export async function serverNotifications(api: ApiClient): Promise<NotificationsAnswer> {
  const answer = await api.get<NotificationsAnswer>('/api/notifications');
  expect(answer.status, 'GET /api/notifications').toBe(200);
  return answer.body;
}

/** A conversation as GET /api/direct-messages/conversations answers it for the caller. */
export interface ServerConversation {
  id: string;
  participants: { id: string }[];
  unreadCount: number;
}

/** The direct conversations of `api`'s user (GET /api/direct-messages/conversations). */
export async function serverConversations(api: ApiClient): Promise<ServerConversation[]> {
  const answer = await api.get<{ conversations: ServerConversation[] }>('/api/direct-messages/conversations');
  expect(answer.status, 'GET /api/direct-messages/conversations').toBe(200);
  return answer.body.conversations;
}

/** Starts (or reopens) the conversation of `api`'s user with `other` over HTTP; returns its id. */
export async function startConversation(api: ApiClient, other: { id: string }): Promise<string> {
  const answer = await api.post<{ conversation: { id: string } }>('/api/direct-messages/conversations', {
    recipientId: other.id,
  });
  expect([200, 201], 'starting the conversation').toContain(answer.status);
  return answer.body.conversation.id;
}

/** Posts `text` to the team chat as `api`'s user, over HTTP; returns the message's id. */
export async function postChat(api: ApiClient, text: string): Promise<string> {
  const answer = await api.post<{ message: { id: string } }>('/api/messages', { text });
  expect(answer.status, 'POST /api/messages').toBe(201);
  return answer.body.message.id;
}

/** Sends a direct message with `text` into the conversation, as `api`'s user, over HTTP. */
export async function sendDirectMessage(api: ApiClient, conversationId: string, text: string): Promise<void> {
  const answer = await api.post(`/api/direct-messages/conversations/${conversationId}/messages`, { text });
  expect(answer.status, 'sending a direct message over HTTP').toBe(201);
}
