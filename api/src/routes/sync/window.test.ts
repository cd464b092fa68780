import { describe, expect, test } from 'vitest';
import { and, desc, eq, inArray, isNull } from 'drizzle-orm';
import {
  chatMessagePageSchema,
  conversationIdFor,
  directMessagePageSchema,
  isUnreadBy,
  readByMarker,
  teamChatKey,
  uuidv7,
  windowCountsSchema,
  type ChatMessage,
  type ConversationForViewer,
  type DirectMessage,
  type PullResponse,
  type Task,
} from '@office/sync-protocol';
import { chatAuthorCounts, chatMessages, directMessages, notifications, tasks } from '../../db/schema';
import { inDays, uniqueText } from '../../../test/support';
import { expectRefusal, useSeededServer, type Session } from '../../../test/api-client';

// Issue 46: a device holds a window of the history. The server's window is lowered here so a few writes pass it.
const window = { teamChatMessages: 4, directMessages: 3, completedTaskDays: 30, notifications: 3 };
const { people, db, call, pull } = useSeededServer({ config: { historyWindow: window } });

const DAY_MS = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString();

/** A first sign-in's whole bootstrap in one page (the demo workspace is small): its rows and what it says. */
const bootstrap = (session: Session): Promise<PullResponse> => pull(session, uuidv7(), '0', 1000);

const puts = <E extends PullResponse['changes'][number]['entity']>(page: PullResponse, entity: E) =>
  page.changes.flatMap((change) => (change.entity === entity && change.op === 'put' ? [change.data] : [])) as Extract<
    PullResponse['changes'][number],
    { entity: E; op: 'put' }
  >['data'][];

async function sendChat(session: Session, text = uniqueText('chat')): Promise<ChatMessage> {
  const res = await call<{ message: ChatMessage }>(session, 'POST', '/api/messages', { text });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.message;
}

async function sendDirect(from: Session, to: Session, text = uniqueText('dm')): Promise<DirectMessage> {
  const conversationId = conversationIdFor(from.user.id, to.user.id);
  await call(from, 'POST', '/api/direct-messages/conversations', { recipientId: to.user.id });
  const res = await call<{ message: DirectMessage }>(
    from,
    'POST',
    `/api/direct-messages/conversations/${conversationId}/messages`,
    { text },
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.message;
}

/** The times of the newest `n` live team chat messages on the server, newest first. */
const newestChatTimes = async (n: number) =>
  (
    await db()
      .select({ createdAt: chatMessages.createdAt })
      .from(chatMessages)
      .where(isNull(chatMessages.deletedAt))
      .orderBy(desc(chatMessages.createdAt))
      .limit(n)
  ).map((row) => row.createdAt);

async function createTask(assignee: Session, status: Task['status']): Promise<string> {
  const res = await call<{ task: Task }>(people.manager, 'POST', '/api/tasks', {
    title: uniqueText('task'),
    assignedTo: assignee.user.id,
    dueDate: inDays(3),
    status,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.task.id;
}

describe('a first pull holds the window of the history (issue 46)', () => {
  test('it sends the newest team chat messages, from the time of the window’s oldest on, and nothing older', async () => {
    for (let i = 0; i < 6; i++) await sendChat(people.alice);
    const first = await bootstrap(people.carol);

    const edge = (await newestChatTimes(window.teamChatMessages)).at(-1) ?? '';
    const expected = await db()
      .select({ id: chatMessages.id })
      .from(chatMessages)
      .where(isNull(chatMessages.deletedAt));
    const inWindow = (
      await db().select({ id: chatMessages.id, createdAt: chatMessages.createdAt }).from(chatMessages)
    ).filter((row) => row.createdAt >= edge && expected.some((live) => live.id === row.id));
    expect(new Set(puts(first, 'chatMessage').map((message) => message.id))).toEqual(
      new Set(inWindow.map((row) => row.id)),
    );
    expect(puts(first, 'chatMessage').length).toBeGreaterThanOrEqual(window.teamChatMessages);
    expect(puts(first, 'chatMessage').every((message) => message.timestamp >= edge)).toBe(true);
    // The team chat is older than its window: the device does not hold its beginning.
    expect(first.bootstrap?.historyStarts).not.toContain(teamChatKey);
    expect(first.window).toMatchObject({ ...window });
  });

  test('it sends the newest messages of each conversation, and names those it sends whole', async () => {
    for (let i = 0; i < 5; i++) await sendDirect(people.bob, people.carol);
    await sendDirect(people.admin, people.carol);
    const first = await bootstrap(people.carol);

    const long = conversationIdFor(people.bob.user.id, people.carol.user.id);
    const short = conversationIdFor(people.admin.user.id, people.carol.user.id);
    const serverTimes = (
      await db()
        .select({ createdAt: directMessages.createdAt })
        .from(directMessages)
        .where(and(eq(directMessages.conversationId, long), isNull(directMessages.deletedAt)))
        .orderBy(desc(directMessages.createdAt))
    ).map((row) => row.createdAt);
    const edge = serverTimes[window.directMessages - 1] ?? '';
    const held = puts(first, 'directMessage').filter((message) => message.conversationId === long);
    expect(held.map((message) => message.createdAt).sort()).toEqual(serverTimes.filter((t) => t >= edge).sort());
    expect(held.length).toBeLessThan(serverTimes.length);
    expect(puts(first, 'directMessage').filter((message) => message.conversationId === short)).toHaveLength(1);
    expect(first.bootstrap?.historyStarts).toContain(short);
    expect(first.bootstrap?.historyStarts).not.toContain(long);
    // Every conversation comes, with its read markers.
    expect(puts(first, 'conversation').map((conversation) => conversation.id)).toEqual(
      expect.arrayContaining([long, short]),
    );
  });

  test('it sends every open task however old, and the completed ones changed within the window’s days', async () => {
    const oldOpen = await createTask(people.bob, 'working');
    const oldDone = await createTask(people.bob, 'completed');
    const recentDone = await createTask(people.bob, 'completed');
    await db()
      .update(tasks)
      .set({ updatedAt: daysAgo(400) })
      .where(eq(tasks.id, oldOpen));
    await db()
      .update(tasks)
      .set({ updatedAt: daysAgo(31) })
      .where(eq(tasks.id, oldDone));
    await db()
      .update(tasks)
      .set({ updatedAt: daysAgo(29) })
      .where(eq(tasks.id, recentDone));

    for (const session of [people.manager, people.bob]) {
      const first = await bootstrap(session);
      const ids = puts(first, 'task').map((task) => task.id);
      expect(ids).toEqual(expect.arrayContaining([oldOpen, recentDone]));
      expect(ids).not.toContain(oldDone);
      expect(puts(first, 'task').every((task) => task.status !== 'completed' || task.updatedAt >= daysAgo(30.01))).toBe(
        true,
      );
    }
  });

  test('it sends the person’s newest notices and every unread one, not their older read ones', async () => {
    // Six notices for carol (direct messages from bob), the oldest three read one by one.
    const sent = [];
    for (let i = 0; i < 6; i++) sent.push(await sendDirect(people.bob, people.carol));
    const theirs = await db()
      .select({ id: notifications.id, createdAt: notifications.createdAt })
      .from(notifications)
      .where(eq(notifications.recipientId, people.carol.user.id))
      .orderBy(desc(notifications.createdAt), desc(notifications.id));
    const readOnes = theirs.slice(window.notifications, window.notifications + 2);
    for (const { id } of readOnes)
      expect((await call(people.carol, 'PATCH', `/api/notifications/${id}/read`)).status).toBe(200);

    const first = await bootstrap(people.carol);
    const held = new Set(puts(first, 'notification').map((notice) => notice.id));
    const rows = await db()
      .select()
      .from(notifications)
      .where(eq(notifications.recipientId, people.carol.user.id))
      .orderBy(desc(notifications.createdAt), desc(notifications.id));
    const edge = rows[window.notifications - 1]?.createdAt ?? '';
    for (const row of rows) expect(held.has(row.id), row.id).toBe(row.createdAt >= edge || row.readAt === null);
    for (const { id } of readOnes) expect(held.has(id)).toBe(false);
  });
});

/** The person's unread team chat notices among the bootstrap's messages, as the device counts them. */
function unreadChatNoticesIn(first: PullResponse, selfId: string): number {
  const [marker] = puts(first, 'notificationMarker');
  if (!marker) throw new Error('no marker');
  return puts(first, 'chatMessage').filter(
    (message) =>
      message.userId.id !== selfId &&
      message.timestamp >= marker.chatSince &&
      !readByMarker(marker, message.timestamp) &&
      !marker.chatReads.includes(message.id),
  ).length;
}

const oldestOf = (times: string[]) => [...times].sort()[0] ?? '';

describe('POST /api/sync/window-counts', () => {
  test('what lies before the window, added to what the device holds, gives the server’s own counts', async () => {
    // A mention before the edge is one notice, the stored one every device holds: never counted again as a message.
    await sendChat(people.bob, `@${people.alice.user.name}, ${uniqueText('before the edge')}`);
    for (let i = 0; i < 6; i++) await sendChat(people.bob);
    for (let i = 0; i < 5; i++) await sendDirect(people.bob, people.alice);
    const first = await bootstrap(people.alice);
    const conversationId = conversationIdFor(people.alice.user.id, people.bob.user.id);
    const chatEdge = oldestOf(puts(first, 'chatMessage').map((message) => message.timestamp));
    const held = puts(first, 'directMessage').filter((message) => message.conversationId === conversationId);
    const directEdge = oldestOf(held.map((message) => message.createdAt));

    const res = await call(people.alice, 'POST', '/api/sync/window-counts', {
      teamChat: chatEdge,
      conversations: [{ id: conversationId, edge: directEdge }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const counts = windowCountsSchema.parse(res.body);

    // The bell: stored unread notices (all on the device) + chat notices unread in the window + those before it.
    const bell = await call<{ unreadCount: number }>(people.alice, 'GET', '/api/notifications');
    const [marker] = puts(first, 'notificationMarker');
    const storedUnread = puts(first, 'notification').filter(
      (notice) => !notice.read && marker && !readByMarker(marker, notice.createdAt),
    ).length;
    expect(counts.teamChat?.unread).toBeGreaterThan(0);
    expect(storedUnread + unreadChatNoticesIn(first, people.alice.user.id) + (counts.teamChat?.unread ?? 0)).toBe(
      bell.body.unreadCount,
    );
    expect(counts.teamChat?.readThrough).toBe(marker?.readThrough ?? null);
    // Messages by author are Employee Management's: a manager's alone.
    expect(counts.teamChat?.byAuthor).toEqual({});

    // A conversation: unread ones held + unread ones before the edge = the conversation list's count.
    const list = await call<{ conversations: ConversationForViewer[] }>(
      people.alice,
      'GET',
      '/api/direct-messages/conversations',
    );
    const listed = list.body.conversations.find((conversation) => conversation.id === conversationId);
    const conversation = puts(first, 'conversation').find((c) => c.id === conversationId);
    if (!conversation) throw new Error('no conversation');
    const heldUnread = held.filter((message) => isUnreadBy(message, conversation, people.alice.user.id)).length;
    const [before] = counts.conversations;
    expect(before?.unread).toBeGreaterThan(0);
    expect(heldUnread + (before?.unread ?? 0)).toBe(listed?.unreadCount);
  });

  test('a manager gets the team chat’s messages by author, and completed tasks by assignee, before the edges', async () => {
    const edge = new Date().toISOString();
    const doneTask = await createTask(people.carol, 'completed');
    await db()
      .update(tasks)
      .set({ updatedAt: daysAgo(45) })
      .where(eq(tasks.id, doneTask));

    const res = await call(people.manager, 'POST', '/api/sync/window-counts', { teamChat: edge, tasks: daysAgo(30) });
    const counts = windowCountsSchema.parse(res.body);
    const live = await db()
      .select({ userId: chatMessages.userId })
      .from(chatMessages)
      .where(isNull(chatMessages.deletedAt));
    const before = live.length;
    expect(Object.values(counts.teamChat?.byAuthor ?? {}).reduce((sum, n) => sum + n, 0)).toBe(before);
    expect(counts.teamChat?.byAuthor[people.alice.user.id]).toBe(
      live.filter((row) => row.userId === people.alice.user.id).length,
    );
    const oldCompleted = (
      await db()
        .select({ id: tasks.id, assignedTo: tasks.assignedTo, status: tasks.status, updatedAt: tasks.updatedAt })
        .from(tasks)
        .where(isNull(tasks.deletedAt))
    ).filter((task) => task.status === 'completed' && task.updatedAt < daysAgo(30));
    expect(counts.tasks?.completed).toBe(oldCompleted.length);
    expect(counts.tasks?.byAssignee[people.carol.user.id]).toBe(
      oldCompleted.filter((task) => task.assignedTo === people.carol.user.id).length,
    );

    // An employee counts only the tasks they see.
    const mine = windowCountsSchema.parse(
      (await call(people.bob, 'POST', '/api/sync/window-counts', { tasks: daysAgo(30) })).body,
    );
    expect(mine.tasks?.byAssignee[people.carol.user.id]).toBeUndefined();
  });

  test('the messages by author before an edge inside the history follow sends and deletes, as Employee Management counts them', async () => {
    const [first, second, third] = [
      await sendChat(people.alice),
      await sendChat(people.alice),
      await sendChat(people.alice),
    ];
    expect(first && second && third).toBeTruthy();
    const removed = await call(people.alice, 'DELETE', `/api/messages/${first?.id}`);
    expect(removed.status).toBe(200);
    const edge = third?.timestamp ?? '';
    const aliceLive = await db()
      .select({ createdAt: chatMessages.createdAt })
      .from(chatMessages)
      .where(and(eq(chatMessages.userId, people.alice.user.id), isNull(chatMessages.deletedAt)));

    const counts = windowCountsSchema.parse(
      (await call(people.manager, 'POST', '/api/sync/window-counts', { teamChat: edge })).body,
    ).teamChat;
    expect(counts?.byAuthor[people.alice.user.id]).toBe(aliceLive.filter((row) => row.createdAt < edge).length);
    const employees = await call<{ employees: { user: { id: string }; teamChatMessages: number }[] }>(
      people.manager,
      'GET',
      '/api/employees',
    );
    expect(employees.body.employees.find((e) => e.user.id === people.alice.user.id)?.teamChatMessages).toBe(
      aliceLive.length,
    );
    // What the database holds: one count per author, equal to their live messages.
    const [stored] = await db()
      .select({ n: chatAuthorCounts.liveMessages })
      .from(chatAuthorCounts)
      .where(eq(chatAuthorCounts.userId, people.alice.user.id));
    expect(stored?.n).toBe(aliceLive.length);
  });

  test('a conversation of other people is left out, and bad edges are refused', async () => {
    await sendDirect(people.bob, people.carol);
    const theirs = conversationIdFor(people.bob.user.id, people.carol.user.id);
    const res = await call(people.alice, 'POST', '/api/sync/window-counts', {
      conversations: [{ id: theirs, edge: new Date().toISOString() }],
    });
    expect(windowCountsSchema.parse(res.body).conversations).toEqual([]);
    const bad = await call(people.alice, 'POST', '/api/sync/window-counts', { teamChat: 'yesterday' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'invalid_input' });
  });
});

describe('pages of messages before, after and around one (issue 46)', () => {
  test('the team chat’s pages chain without gaps, never ending inside a run of one time', async () => {
    const sent: ChatMessage[] = [];
    for (let i = 0; i < 7; i++) sent.push(await sendChat(people.carol));
    // Three of them at one time: a page must hold all three or none.
    const sameTime = sent.slice(2, 5).map((message) => message.id);
    const at = new Date(Date.now() - 1000).toISOString();
    await db().update(chatMessages).set({ createdAt: at }).where(inArray(chatMessages.id, sameTime));

    const page = async (query: string) => {
      const res = await call(people.alice, 'GET', `/api/messages?${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return chatMessagePageSchema.parse(res.body);
    };
    const around = await page(`around=${sameTime[1]}&limit=2`);
    expect(around.messages.map((message) => message.id)).toEqual(expect.arrayContaining(sameTime));
    const ids = around.messages.map((m) => m.id);
    expect(ids).toContain(sameTime[1]);

    // Walk older and newer from there: every live message once, in order.
    const older = async (before: string | null, acc: string[]): Promise<string[]> => {
      if (!before) return acc;
      const next = await page(`before=${before}&limit=3`);
      return older(next.nextBefore, [...next.messages.map((m) => m.id), ...acc]);
    };
    const newer = async (after: string | null, acc: string[]): Promise<string[]> => {
      if (!after) return acc;
      const next = await page(`after=${after}&limit=3`);
      return newer(next.nextAfter, [...acc, ...next.messages.map((m) => m.id)]);
    };
    const all = await newer(around.nextAfter, await older(around.nextBefore, ids));
    const everything = (await page('limit=200')).messages.map((m) => m.id);
    expect(all.slice(-everything.length)).toEqual(everything);
    expect(new Set(all).size).toBe(all.length);

    expect((await page(`around=${uuidv7()}`)).messages).toEqual([]);
    const both = await call(people.alice, 'GET', `/api/messages?before=${ids[0]}&after=${ids[0]}`);
    expectRefusal(both, 400, 'invalid_input', 'Use one of before, after and around at most.');
  });

  test('a conversation answers every message without a page, or a page around one of its messages', async () => {
    const sent: DirectMessage[] = [];
    for (let i = 0; i < 5; i++) sent.push(await sendDirect(people.admin, people.bob));
    const conversationId = conversationIdFor(people.admin.user.id, people.bob.user.id);
    const url = `/api/direct-messages/conversations/${conversationId}/messages`;
    const whole = await call<{ messages: DirectMessage[] }>(people.bob, 'GET', url);
    expect(whole.body.messages.map((m) => m.id)).toEqual(sent.map((m) => m.id));

    const target = sent[1]?.id ?? '';
    const res = await call(people.bob, 'GET', `${url}?around=${target}&limit=3`);
    const page = directMessagePageSchema.parse(res.body);
    expect(page.messages.map((m) => m.id)).toEqual(sent.slice(0, 3).map((m) => m.id));
    expect(page.nextBefore).toBeNull();
    expect(page.nextAfter).toBe(sent[2]?.id);
    expect(page.messages[0]?.readBy).toEqual(expect.any(Array));
    const before = directMessagePageSchema.parse(
      (await call(people.bob, 'GET', `${url}?before=${sent[3]?.id}&limit=2`)).body,
    );
    expect(before.messages.map((m) => m.id)).toEqual(sent.slice(1, 3).map((m) => m.id));
    // Someone else's conversation stays closed.
    expect((await call(people.alice, 'GET', `${url}?around=${target}`)).status).toBe(403);
  });
});
