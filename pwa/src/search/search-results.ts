import type { LocalChatMessage, LocalDirectMessage, LocalTask, LocalUser, WorkspaceDb } from '../data/db';
import { nameOf, type People } from '../data/people';
import { displayStatus, statusLabels } from '../components/tasks/task-display';
import { roleLabel } from '../components/role-badge';
import { formatChatTime } from '../screens/chat/chat-format';
import { kindTables, normalizeWord, wordSeparator, type SearchGroup, type SearchKind } from './search-index';

/** A piece of shown text; `match` pieces are the words the search matched (shown in <mark>). */
export interface TextPart {
  text: string;
  match: boolean;
}

/** Where Enter takes the user: a route, or a direct message with a person (started if needed). */
export type SearchTarget = { path: string } | { person: { id: string; name: string } };

/** One option of the dialog. */
export interface SearchItem {
  /** Unique in the answer: `<kind>:<row id>`. */
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
  heading: string;
  items: SearchItem[];
  total: number;
}

export const groupHeadings: Record<SearchKind, string> = {
  task: 'Tasks',
  chat: 'Team Chat',
  direct: 'Direct Messages',
  person: 'People',
};

/** Splits `text` into words and separators, marking the words whose indexed form is one of `terms`. */
export function highlightParts(text: string, terms: ReadonlySet<string>): TextPart[] {
  const parts: TextPart[] = [];
  const push = (piece: string, match: boolean) => {
    if (piece === '') return;
    const last = parts.at(-1);
    if (last && last.match === match) last.text += piece;
    else parts.push({ text: piece, match });
  };
  const separators = new RegExp(wordSeparator.source, 'gu');
  let from = 0;
  for (const separator of text.matchAll(separators)) {
    const word = text.slice(from, separator.index);
    push(word, terms.has(normalizeWord(word) ?? ''));
    push(separator[0], false);
    from = separator.index + separator[0].length;
  }
  const word = text.slice(from);
  push(word, terms.has(normalizeWord(word) ?? ''));
  return parts;
}

/** Whether any word of `text` is one of `terms`. */
export const mentionsAny = (text: string, terms: ReadonlySet<string>): boolean =>
  text.split(wordSeparator).some((word) => terms.has(normalizeWord(word) ?? ''));

/** How much of a long text is shown around its first match, in characters. */
export const snippetLength = 140;
const contextBefore = 40;

/**
 * The passage of `text` around its first matched word, at most about `snippetLength` characters, with
 * an ellipsis where it was cut; whitespace runs are shown as one space.
 */
export function snippetParts(text: string, terms: ReadonlySet<string>): TextPart[] {
  const flat = text.replace(/\s+/g, ' ').trim();
  const parts = highlightParts(flat, terms);
  if (flat.length <= snippetLength) return parts;
  let offset = 0;
  let firstMatch = 0;
  for (const part of parts) {
    if (part.match) {
      firstMatch = offset;
      break;
    }
    offset += part.text.length;
  }
  const start = Math.max(0, Math.min(firstMatch - contextBefore, flat.length - snippetLength));
  const end = Math.min(flat.length, start + snippetLength);
  // Cut at word boundaries, so a marked word is never split.
  const from = start === 0 ? 0 : flat.indexOf(' ', start) + 1 || start;
  const lastSpace = flat.lastIndexOf(' ', end);
  const to = end === flat.length || lastSpace <= from ? end : lastSpace;
  const shown = highlightParts(flat.slice(from, to), terms);
  if (from > 0) shown.unshift({ text: '…', match: false });
  if (to < flat.length) shown.push({ text: '…', match: false });
  return shown;
}

const statusText = (task: LocalTask): string => statusLabels[displayStatus(task.status)];

/**
 * A task: its title, and the description, the first comment, or the assignee or creator (as the directory names
 * them now) that matched.
 */
export function taskItem(task: LocalTask, terms: ReadonlySet<string>, people: People): SearchItem {
  const base = { key: `task:${task.id}`, kind: 'task' as const, target: { path: `/tasks?task=${task.id}` } };
  const title = highlightParts(task.title, terms);
  if (mentionsAny(task.description, terms))
    return { ...base, title, detail: snippetParts(task.description, terms), meta: statusText(task) };
  const comment = task.comments.find((candidate) => mentionsAny(candidate.text, terms));
  if (comment)
    return {
      ...base,
      title,
      detail: snippetParts(comment.text, terms),
      meta: `Comment by ${comment.userName} · ${statusText(task)}`,
    };
  const person = [
    ...(task.assignedTo ? [{ role: 'Assigned to', name: nameOf(people, task.assignedTo) }] : []),
    { role: 'Created by', name: nameOf(people, task.assignedBy) },
  ].find(({ name }) => mentionsAny(name, terms));
  if (person)
    return {
      ...base,
      title,
      detail: [{ text: `${person.role} `, match: false }, ...highlightParts(person.name, terms)],
      meta: statusText(task),
    };
  return { ...base, title, detail: null, meta: statusText(task) };
}

export function chatItem(message: LocalChatMessage, terms: ReadonlySet<string>, people: People, now: Date): SearchItem {
  const author = nameOf(people, { id: message.userId.id, name: message.userName });
  return {
    key: `chat:${message.id}`,
    kind: 'chat',
    title: [{ text: author, match: false }],
    detail: snippetParts(message.text, terms),
    meta: formatChatTime(message.timestamp, now),
    target: { path: `/chat?message=${message.id}` },
  };
}

export function directItem(
  message: LocalDirectMessage,
  terms: ReadonlySet<string>,
  people: People,
  selfId: string,
  now: Date,
): SearchItem {
  const otherId = message.participantIds.find((id) => id !== selfId) ?? message.sender.id;
  const other = people.get(otherId);
  const otherName = other?.name ?? (message.sender.id === otherId ? message.sender.name : 'Direct message');
  const senderName = message.sender.id === selfId ? 'You' : nameOf(people, message.sender);
  return {
    key: `direct:${message.id}`,
    kind: 'direct',
    title: [{ text: otherName, match: false }],
    detail: snippetParts(message.text, terms),
    meta: `${senderName} · ${formatChatTime(message.createdAt, now)}`,
    target: { path: `/direct-messages?conversation=${message.conversationId}&message=${message.id}` },
  };
}

export function personItem(user: LocalUser, terms: ReadonlySet<string>): SearchItem {
  const facts = [roleLabel(user.role), user.department].filter(Boolean).join(' · ');
  return {
    key: `person:${user.id}`,
    kind: 'person',
    title: highlightParts(user.name, terms),
    detail: highlightParts(user.email, terms),
    meta: facts,
    target: { person: { id: user.id, name: user.name } },
  };
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
        const terms = new Set(hit.terms);
        switch (group.kind) {
          case 'task':
            return [taskItem(row as LocalTask, terms, context.people)];
          case 'chat':
            return [chatItem(row as LocalChatMessage, terms, context.people, context.now)];
          case 'direct':
            return [directItem(row as LocalDirectMessage, terms, context.people, context.selfId, context.now)];
          case 'person':
            return [personItem(row as LocalUser, terms)];
        }
      });
      return { kind: group.kind, heading: groupHeadings[group.kind], items, total: group.total };
    }),
  );
  return loaded.filter((group) => group.items.length > 0);
}
