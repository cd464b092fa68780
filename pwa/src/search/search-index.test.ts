import { describe, expect, test, vi } from 'vitest';
import {
  conversationIdFor,
  type ChatMessage,
  type DirectMessage,
  type SearchResponse,
  type Task,
} from '@office/sync-protocol';
import type { WorkspaceDb } from '../data/db';
import { aUser, freshDb } from '../../test/sync-support';
import { LiveSearchIndex } from './live-search';
import { SearchIndex, selfDocumentId, type SearchGroup } from './search-index';
import { loadItemGroups, loadServerGroups, type SearchItemGroup } from './search-results';

const id = (n: number) => `01890000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const selfId = id(1);
const bobId = id(2);
const self = aUser(selfId, { name: 'Alice Johnson', email: 'alice@demo.local' });
const bob = aUser(bobId, { name: 'Bob Smith', email: 'bob@demo.local', department: 'Design' });
const ref = (user: { id: string; name: string }) => ({ _id: user.id, id: user.id, name: user.name });

const aTask = (n: number, title: string, description = '', comments: string[] = []): Task => ({
  _id: id(n),
  id: id(n),
  title,
  description,
  assignedTo: ref(bob),
  assignedBy: ref(self),
  priority: 'medium',
  status: 'pending',
  dueDate: '2030-01-01',
  comments: comments.map((text, at) => ({
    _id: id(n * 100 + at),
    id: id(n * 100 + at),
    userId: bobId,
    userName: 'Bob Smith',
    text,
    createdAt: '2030-01-01T00:00:00.000Z',
  })),
  statusHistory: [],
  statusVersion: 1,
  createdAt: '2030-01-01T00:00:00.000Z',
  updatedAt: '2030-01-01T00:00:00.000Z',
  version: 1,
});

const aChat = (n: number, text: string): ChatMessage => ({
  _id: id(n),
  id: id(n),
  userId: { ...ref(bob), avatar: null, role: 'employee' },
  userName: 'Bob Smith',
  userAvatar: null,
  text,
  type: 'text',
  timestamp: `2030-01-01T00:00:${String(n % 60).padStart(2, '0')}.000Z`,
  edited: false,
  attachments: [],
  reactions: [],
  version: 1,
});

const aDirect = (n: number, text: string): DirectMessage => ({
  _id: id(n),
  id: id(n),
  conversationId: conversationIdFor(selfId, bobId),
  participantIds: [selfId, bobId],
  sender: { _id: bobId, id: bobId, name: 'Bob Smith', avatar: null },
  content: text,
  text,
  createdAt: '2030-01-01T00:00:00.000Z',
  attachments: [],
  reactions: [],
  version: 1,
});

/** The answer as `kind: [row ids]`, easy to compare. */
const rowsOf = (groups: SearchGroup[]) =>
  Object.fromEntries(groups.map((group) => [group.kind, group.hits.map((hit) => hit.rowId)]));

/** A database holding a little of everything, and its live index once built. */
async function seeded(): Promise<{ db: WorkspaceDb; live: LiveSearchIndex }> {
  const db = freshDb(selfId);
  await db.users.bulkPut([self, bob]);
  await db.tasks.bulkPut([
    aTask(10, 'Quarterly budget review', 'Check the travel costs'),
    aTask(11, 'Office move', 'Boxes and keys', ['The budget for movers is approved']),
  ]);
  await db.chatMessages.bulkPut([aChat(20, 'Lunch at noon?'), aChat(21, 'The budget meeting moved to Friday')]);
  await db.directMessages.bulkPut([aDirect(30, 'Can you send me the budget sheet?')]);
  const live = new LiveSearchIndex(db);
  await live.ready;
  return { db, live };
}

/** Resolves on the next change of the index. */
const nextChange = (live: LiveSearchIndex) =>
  new Promise<void>((resolve) => {
    const stop = live.subscribe(() => {
      stop();
      resolve();
    });
  });

describe('the search index', () => {
  test('finds a word across tasks (title, description, comments), team chat, direct messages and people, grouped in order', async () => {
    const { live } = await seeded();
    expect(rowsOf(live.index.search('budget', 5))).toEqual({
      task: [id(10), id(11)],
      chat: [id(21)],
      direct: [id(30)],
    });
    expect(rowsOf(live.index.search('design', 5))).toEqual({ person: [bobId] });
    expect(live.index.search('', 5)).toEqual([]);
  });

  test('matches prefixes as the user types, a typo in a longer word, and words without their accents', async () => {
    const { db, live } = await seeded();
    expect(rowsOf(live.index.search('budg', 5)).task).toEqual([id(10), id(11)]);
    expect(rowsOf(live.index.search('quartelry', 5)).task).toEqual([id(10)]);
    const changed = nextChange(live);
    await db.tasks.put(aTask(12, 'Résumé screening'));
    await changed;
    expect(rowsOf(live.index.search('resume', 5)).task).toEqual([id(12)]);
  });

  test('every word of the query must match', async () => {
    const { live } = await seeded();
    expect(rowsOf(live.index.search('budget friday', 5))).toEqual({ chat: [id(21)] });
  });

  test('counts every match but keeps only the best few of each group', async () => {
    const index = new SearchIndex();
    await index.addAll(
      'chatMessages',
      Array.from({ length: 12 }, (_, n) => aChat(100 + n, `standup notes ${n}`)),
    );
    const [group] = index.search('standup', 5);
    expect(group?.total).toBe(12);
    expect(group?.hits).toHaveLength(5);
  });

  test('leaves out the rows it is told to (the signed-in person)', async () => {
    const { live } = await seeded();
    expect(rowsOf(live.index.search('demo', 5, new Set([selfDocumentId(selfId)])))).toEqual({ person: [bobId] });
  });
});

describe('the live index follows the database', () => {
  test('a new row, an edit and a delete are applied as they commit, without a rebuild', async () => {
    const { db, live } = await seeded();
    let changed = nextChange(live);
    await db.chatMessages.put(aChat(22, 'Offsite planning starts'));
    await changed;
    expect(rowsOf(live.index.search('offsite', 5))).toEqual({ chat: [id(22)] });

    changed = nextChange(live);
    await db.chatMessages.update(id(22), { text: 'Retreat planning starts' });
    await changed;
    expect(live.index.search('offsite', 5)).toEqual([]);
    expect(rowsOf(live.index.search('retreat', 5))).toEqual({ chat: [id(22)] });

    changed = nextChange(live);
    await db.chatMessages.delete(id(22));
    await changed;
    expect(live.index.search('retreat', 5)).toEqual([]);
    expect(live.index.size).toBe(7);
  });

  test('a comment added to a task makes the task findable by it', async () => {
    const { db, live } = await seeded();
    const changed = nextChange(live);
    await db.tasks.put(aTask(10, 'Quarterly budget review', 'Check the travel costs', ['Waiting on invoices']));
    await changed;
    expect(rowsOf(live.index.search('invoices', 5))).toEqual({ task: [id(10)] });
  });

  test('a write whose transaction aborts never reaches the index', async () => {
    const { db, live } = await seeded();
    await expect(
      db.transaction('rw', db.chatMessages, async () => {
        await db.chatMessages.put(aChat(23, 'Phantom announcement'));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const changed = nextChange(live);
    await db.chatMessages.put(aChat(24, 'Real announcement'));
    await changed;
    expect(rowsOf(live.index.search('announcement', 5))).toEqual({ chat: [id(24)] });
  });

  test('a cleared table (a new bootstrap) empties its group, and the rows written after it come back', async () => {
    const { db, live } = await seeded();
    const changed = nextChange(live);
    await db.transaction('rw', db.tasks, async () => {
      await db.tasks.clear();
      await db.tasks.put(aTask(13, 'Budget forecast'));
    });
    await changed;
    expect(rowsOf(live.index.search('budget', 5)).task).toEqual([id(13)]);
    expect(rowsOf(live.index.search('budget', 5)).chat).toEqual([id(21)]);
  });

  test('changes committed while the index is being built are not lost', async () => {
    const db = freshDb(selfId);
    await db.chatMessages.bulkPut(Array.from({ length: 50 }, (_, n) => aChat(200 + n, `history ${n}`)));
    const live = new LiveSearchIndex(db);
    await db.chatMessages.put(aChat(300, 'Written during the build'));
    await db.chatMessages.delete(id(200));
    await live.ready;
    expect(rowsOf(live.index.search('during', 5))).toEqual({ chat: [id(300)] });
    expect(live.index.search('history', 100)[0]?.total).toBe(49);
  });
});

describe('a task is found by its people', () => {
  const carolId = id(3);
  const carol = aUser(carolId, { name: 'Carol Davis', email: 'carol@demo.local' });
  const withPeople = (task: Task, assignee: typeof carol | null, creator: typeof carol): Task => ({
    ...task,
    assignedTo: assignee ? ref(assignee) : null,
    assignedBy: ref(creator),
  });

  /** The answer as `kind: [row ids]`, each kind's ids sorted: the order by relevance is not what these tests are about. */
  const sortedRowsOf = (groups: SearchGroup[]) =>
    Object.fromEntries(groups.map((group) => [group.kind, group.hits.map((hit) => hit.rowId).sort()]));

  async function withCarol(): Promise<{ db: WorkspaceDb; live: LiveSearchIndex }> {
    const { db, live } = await seeded();
    const changed = nextChange(live);
    await db.users.put(carol);
    await db.tasks.bulkPut([
      withPeople(aTask(40, 'Payroll export'), carol, self),
      withPeople(aTask(41, 'Hiring plan'), bob, carol),
      withPeople(aTask(42, 'Unassigned cleanup'), null, self),
    ]);
    await changed;
    return { db, live };
  }

  test('"carol" finds the tasks assigned to Carol and those she created; every word still has to match', async () => {
    const { live } = await withCarol();
    expect(sortedRowsOf(live.index.search('carol', 5))).toEqual({ task: [id(40), id(41)], person: [carolId] });
    expect(rowsOf(live.index.search('carol payroll', 5))).toEqual({ task: [id(40)] });
    expect(rowsOf(live.index.search('davis hiring', 5))).toEqual({ task: [id(41)] });
  });

  test('the option says whose name matched: "Assigned to" or "Created by", the name marked', async () => {
    const { db, live } = await withCarol();
    const people = new Map([self, bob, carol].map((user) => [user.id, user]));
    const [tasks] = await loadItemGroups(db, live.index.search('carol', 5), { people, selfId, now: new Date() });
    const details = tasks?.items
      .map((item) => item.detail)
      .sort((a, b) => (a?.[0]?.text ?? '').localeCompare(b?.[0]?.text ?? ''));
    expect(details).toEqual([
      [
        { text: 'Assigned to ', match: false },
        { text: 'Carol', match: true },
        { text: ' Davis', match: false },
      ],
      [
        { text: 'Created by ', match: false },
        { text: 'Carol', match: true },
        { text: ' Davis', match: false },
      ],
    ]);
  });

  test('a rename indexes that person’s tasks again, by their new name, and only theirs', async () => {
    const { db, live } = await withCarol();
    const reads = vi.spyOn(db.tasks, 'bulkGet');
    await db.users.put({ ...carol, name: 'Caroline Ortiz' });

    await expect
      .poll(() => sortedRowsOf(live.index.search('ortiz', 5)))
      .toEqual({ task: [id(40), id(41)], person: [carolId] });
    expect(rowsOf(live.index.search('davis', 5))).toEqual({});
    // Only her two tasks were read again: the index is never rebuilt for a rename.
    expect(reads.mock.calls.map(([ids]) => [...ids].sort())).toEqual([[id(40), id(41)]]);
    expect(live.index.staleTaskIds).toEqual([]);
  });

  test('a task stored before its people arrive is indexed under their names once they do', async () => {
    const db = freshDb(selfId);
    await db.tasks.put(withPeople(aTask(50, 'Inventory count'), carol, self));
    const live = new LiveSearchIndex(db);
    await live.ready;
    // The task's copy of the name is an older one: the directory's name wins once it is here.
    await db.users.put({ ...carol, name: 'Carol Nguyen' });
    await expect.poll(() => rowsOf(live.index.search('nguyen', 5))).toEqual({ task: [id(50)], person: [carolId] });
  });
});

describe('what the dialog shows', () => {
  test('groups under their headings, with the task passage that matched and where each option leads', async () => {
    const { db, live } = await seeded();
    const people = new Map([self, bob].map((user) => [user.id, user]));
    const groups: SearchItemGroup[] = await loadItemGroups(db, live.index.search('budget', 5), {
      people,
      selfId,
      now: new Date('2030-01-01T12:00:00.000Z'),
    });
    expect(groups.map((group) => [group.heading, group.total])).toEqual([
      ['Tasks', 2],
      ['Team Chat', 1],
      ['Direct Messages', 1],
    ]);
    const [tasks, chat, direct] = groups;
    const marked = (parts: { text: string; match: boolean }[] | null) =>
      (parts ?? []).filter((part) => part.match).map((part) => part.text);
    expect(marked(tasks?.items[0]?.title ?? null)).toEqual(['budget']);
    expect(tasks?.items[1]).toMatchObject({
      meta: 'Comment by Bob Smith · Pending',
      target: { path: `/tasks?task=${id(11)}` },
    });
    expect(marked(tasks?.items[1]?.detail ?? null)).toEqual(['budget']);
    expect(chat?.items[0]?.target).toEqual({ path: `/chat?message=${id(21)}` });
    expect(direct?.items[0]).toMatchObject({
      title: [{ text: 'Bob Smith', match: false }],
      target: { path: `/direct-messages?conversation=${conversationIdFor(selfId, bobId)}&message=${id(30)}` },
    });
    const bobs = await loadItemGroups(db, live.index.search('bob', 5), { people, selfId, now: new Date() });
    expect(bobs.find((group) => group.kind === 'person')?.items[0]?.target).toEqual({
      person: { id: bobId, name: 'Bob Smith' },
    });
  });
});

describe('the server’s results beside the device’s', () => {
  const marked = (text: string): { text: string; match: boolean }[] => [{ text, match: true }];
  const answer: SearchResponse = {
    groups: [
      {
        kind: 'task',
        hits: [
          // Held on the device: found by the device's own search, so left out here.
          {
            kind: 'task',
            id: id(10),
            status: 'pending',
            title: marked('budget'),
            detail: null,
            commentBy: null,
            at: '',
          },
          {
            kind: 'task',
            id: id(90),
            status: 'completed',
            title: [{ text: 'Old plan', match: false }],
            detail: marked('budget'),
            commentBy: 'Bob Smith',
            at: '2029-01-01T00:00:00.000Z',
          },
        ],
        next: null,
      },
      {
        kind: 'chat',
        hits: [91, 92, 93].map((n) => ({
          kind: 'chat' as const,
          id: id(n),
          author: { id: bobId, name: 'Bob Smith' },
          at: '2029-01-01T10:00:00.000Z',
          snippet: marked(`budget ${n}`),
        })),
        next: '12',
      },
      {
        kind: 'direct',
        hits: [
          {
            kind: 'direct',
            id: id(30),
            conversationId: conversationIdFor(selfId, bobId),
            with: { id: bobId, name: 'Bob Smith' },
            sender: { id: selfId, name: 'Alice Johnson' },
            at: '2029-01-01T10:00:00.000Z',
            snippet: marked('budget'),
          },
        ],
        next: null,
      },
    ],
  };

  test('keeps only what the device lacks, at most a group’s worth, each opening its task or message', async () => {
    const { db } = await seeded();
    const people = new Map([self, bob].map((user) => [user.id, user]));
    const groups = await loadServerGroups(db, answer, 2, { people, selfId, now: new Date('2030-01-01T12:00:00Z') });
    expect(groups.map((group) => [group.source, group.heading, group.items.map((item) => item.key)])).toEqual([
      ['server', 'Tasks', [`task:${id(90)}`]],
      ['server', 'Team Chat', [`chat:${id(91)}`, `chat:${id(92)}`]],
    ]);
    const [tasks, chat] = groups;
    expect(tasks?.items[0]).toMatchObject({
      meta: 'Comment by Bob Smith · Completed',
      detail: marked('budget'),
      target: { path: `/tasks?task=${id(90)}` },
    });
    expect(chat?.total).toBe(3);
    expect(chat?.items[0]).toMatchObject({
      title: [{ text: 'Bob Smith', match: false }],
      target: { path: `/chat?message=${id(91)}` },
    });
  });

  test('a direct message the device lacks opens its conversation at the message, named by the other person', async () => {
    const db = freshDb(selfId);
    const people = new Map([self, bob].map((user) => [user.id, user]));
    const [direct] = await loadServerGroups(db, { groups: answer.groups.slice(2) }, 5, {
      people,
      selfId,
      now: new Date('2030-01-01T12:00:00Z'),
    });
    expect(direct?.items[0]).toMatchObject({
      title: [{ text: 'Bob Smith', match: false }],
      target: { path: `/direct-messages?conversation=${conversationIdFor(selfId, bobId)}&message=${id(30)}` },
    });
    expect(direct?.items[0]?.meta.startsWith('You · ')).toBe(true);
  });
});
