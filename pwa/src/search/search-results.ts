import {
  highlightParts,
  matchesTerms,
  mentionsAny,
  snippetParts,
  taskMatch,
  type SearchHit,
  type SearchResponse,
  type TaskMatch,
  type TaskStatus,
  type TextPart,
  type WordMatch,
} from '@office/sync-protocol';
import type { LocalChatMessage, LocalDirectMessage, LocalTask, LocalUser, WorkspaceDb } from '../data/db';
import { nameOf, type People } from '../data/people';
import { displayStatus, statusLabels } from '../components/tasks/task-display';
import { roleLabel } from '../components/role-badge';
import { formatChatTime } from '../components/messages/message-format';
import { kindTables, type SearchGroup, type SearchKind } from './search-index';

/** Where Enter takes the user: a route, or a direct message with a person (started if needed). */
export type SearchTarget = { path: string } | { person: { id: string; name: string } };

/** Where an option was found: in what this device holds, or by the server in history the device does not hold. */
export type SearchSource = 'device' | 'server';

/** One option of the dialog. */
export interface SearchItem {
  /** Unique in the answer: `<kind>:<row id>` (the same row found on the device and by the server is one option). */
  key: string;
  kind: SearchKind;
  title: TextPart[];
  /** The matched passage (a description, a comment, a message, an email); null when the title says it all. */
  detail: TextPart[] | null;
  /** Who and when, or a status: plain text under the title. */
  meta: string;
  target: SearchTarget;
}

/** A group of the dialog, under its heading. */
export interface SearchItemGroup {
  kind: SearchKind;
  source: SearchSource;
  heading: string;
  items: SearchItem[];
  /** How many matched in all (on the device); for the server's, how many it sent that the device lacks. */
  total: number;
}

export const groupHeadings: Record<SearchKind, string> = {
  task: 'Tasks',
  chat: 'Team Chat',
  direct: 'Direct Messages',
  person: 'People',
};

/** A task option, from the device's row or the server's hit. */
function taskOption(task: { id: string; status: TaskStatus }, { title, detail, commentBy }: TaskMatch): SearchItem {
  const status = statusLabels[displayStatus(task.status)];
  return {
    key: `task:${task.id}`,
    kind: 'task',
    title,
    detail,
    meta: commentBy === null ? status : `Comment by ${commentBy} · ${status}`,
    target: { path: `/tasks?task=${task.id}` },
  };
}

/**
 * What matched of a task on the device: its title, description or a comment, or else its assignee or creator (as
 * the directory names them now, which is what the index holds).
 */
function deviceTaskMatch(task: LocalTask, matches: WordMatch, people: People): TaskMatch {
  const match = taskMatch(task, matches);
  if (match.detail !== null) return match;
  const person = [
    ...(task.assignedTo ? [{ role: 'Assigned to', name: nameOf(people, task.assignedTo) }] : []),
    { role: 'Created by', name: nameOf(people, task.assignedBy) },
  ].find(({ name }) => mentionsAny(name, matches));
  if (!person) return match;
  return { ...match, detail: [{ text: `${person.role} `, match: false }, ...highlightParts(person.name, matches)] };
}

/** A team chat option: its author, the passage and when. */
function chatOption(
  message: { id: string; author: { id: string; name: string }; at: string; snippet: TextPart[] },
  context: ItemContext,
): SearchItem {
  return {
    key: `chat:${message.id}`,
    kind: 'chat',
    title: [{ text: nameOf(context.people, message.author), match: false }],
    detail: message.snippet,
    meta: formatChatTime(message.at, context.now),
    target: { path: `/chat?message=${message.id}` },
  };
}

/** A direct message option: the other person, the passage, who wrote it and when. */
function directOption(
  message: {
    id: string;
    conversationId: string;
    other: { id: string; name: string };
    sender: { id: string; name: string };
    at: string;
    snippet: TextPart[];
  },
  context: ItemContext,
): SearchItem {
  const senderName = message.sender.id === context.selfId ? 'You' : nameOf(context.people, message.sender);
  return {
    key: `direct:${message.id}`,
    kind: 'direct',
    title: [{ text: context.people.get(message.other.id)?.name ?? message.other.name, match: false }],
    detail: message.snippet,
    meta: `${senderName} · ${formatChatTime(message.at, context.now)}`,
    target: { path: `/direct-messages?conversation=${message.conversationId}&message=${message.id}` },
  };
}

/** A task: its title, and the description, the first comment, or the assignee or creator that matched. */
export const taskItem = (task: LocalTask, matches: WordMatch, people: People): SearchItem =>
  taskOption(task, deviceTaskMatch(task, matches, people));

export const chatItem = (message: LocalChatMessage, matches: WordMatch, context: ItemContext): SearchItem =>
  chatOption(
    {
      id: message.id,
      author: { id: message.userId.id, name: message.userName },
      at: message.timestamp,
      snippet: snippetParts(message.text, matches),
    },
    context,
  );

export function directItem(message: LocalDirectMessage, matches: WordMatch, context: ItemContext): SearchItem {
  const otherId = message.participantIds.find((id) => id !== context.selfId) ?? message.sender.id;
  const otherName = message.sender.id === otherId ? message.sender.name : 'Direct message';
  return directOption(
    {
      id: message.id,
      conversationId: message.conversationId,
      other: { id: otherId, name: otherName },
      sender: message.sender,
      at: message.createdAt,
      snippet: snippetParts(message.text, matches),
    },
    context,
  );
}

export function personItem(user: LocalUser, matches: WordMatch): SearchItem {
  const facts = [roleLabel(user.role), user.department].filter(Boolean).join(' · ');
  return {
    key: `person:${user.id}`,
    kind: 'person',
    title: highlightParts(user.name, matches),
    detail: highlightParts(user.email, matches),
    meta: facts,
    target: { person: { id: user.id, name: user.name } },
  };
}

/** A hit of the server's search as an option (its passages come marked). */
export function serverItem(hit: SearchHit, context: ItemContext): SearchItem {
  switch (hit.kind) {
    case 'task':
      return taskOption(hit, hit);
    case 'chat':
      return chatOption(hit, context);
    case 'direct':
      return directOption({ ...hit, other: hit.with }, context);
  }
}

/** What the items are drawn from besides the rows. */
export interface ItemContext {
  people: People;
  selfId: string;
  now: Date;
}

/**
 * Reads the rows of the hits (a handful per group, by primary key) and shapes them as options. A row
 * deleted since the search is left out.
 */
export async function loadItemGroups(
  db: WorkspaceDb,
  groups: readonly SearchGroup[],
  context: ItemContext,
): Promise<SearchItemGroup[]> {
  const loaded = await Promise.all(
    groups.map(async (group): Promise<SearchItemGroup> => {
      const rows = await db.table(kindTables[group.kind]).bulkGet(group.hits.map((hit) => hit.rowId));
      const items = group.hits.flatMap((hit, at) => {
        const row: unknown = rows[at];
        if (row === undefined) return [];
        const matches = matchesTerms(new Set(hit.terms));
        switch (group.kind) {
          case 'task':
            return [taskItem(row as LocalTask, matches, context.people)];
          case 'chat':
            return [chatItem(row as LocalChatMessage, matches, context)];
          case 'direct':
            return [directItem(row as LocalDirectMessage, matches, context)];
          case 'person':
            return [personItem(row as LocalUser, matches)];
        }
      });
      return { kind: group.kind, source: 'device', heading: groupHeadings[group.kind], items, total: group.total };
    }),
  );
  return loaded.filter((group) => group.items.length > 0);
}

/**
 * The server's hits as groups of options, each kind at most `perGroup`, without what this device holds: a row on
 * the device is found (and shown) by the device's own search, so the server's groups are history it lacks.
 */
export async function loadServerGroups(
  db: WorkspaceDb,
  answer: SearchResponse,
  perGroup: number,
  context: ItemContext,
): Promise<SearchItemGroup[]> {
  const loaded = await Promise.all(
    answer.groups.map(async (group): Promise<SearchItemGroup> => {
      const held = await db.table(kindTables[group.kind]).bulkGet(group.hits.map((hit) => hit.id));
      const missing = group.hits.filter((_, at) => held[at] === undefined);
      return {
        kind: group.kind,
        source: 'server',
        heading: groupHeadings[group.kind],
        items: missing.slice(0, perGroup).map((hit) => serverItem(hit, context)),
        total: missing.length,
      };
    }),
  );
  return loaded.filter((group) => group.items.length > 0);
}

/**
 * The server's groups without the options the device's own groups show: a row that reached the device after the
 * server's answer was read (a live change) is found by both, and is one option, the device's.
 */
export function withoutDeviceItems(server: SearchItemGroup[], device: SearchItemGroup[]): SearchItemGroup[] {
  const onDevice = new Set(device.flatMap((group) => group.items.map((item) => item.key)));
  return server
    .map((group) => {
      const items = group.items.filter((item) => !onDevice.has(item.key));
      return { ...group, items, total: group.total - (group.items.length - items.length) };
    })
    .filter((group) => group.items.length > 0);
}
