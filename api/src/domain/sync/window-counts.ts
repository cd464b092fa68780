import { and, count, eq, gt, gte, inArray, isNull, lt, ne, sql, type SQL } from 'drizzle-orm';
import { canManageEmployees, type Actor, type WindowCounts, type WindowCountsQuery } from '@office/sync-protocol';
import type { Db } from '../../db/client';
import { transaction } from '../../db/transaction';
import { chatAuthorCounts, chatMessages, conversations, directMessages, tasks } from '../../db/schema';
import { inSlices } from '../read-support';
import { markerOf, noStoredNotice } from '../notifications/notices';
import { visibleTasksWhere } from '../tasks/read';

// A device holds its window of the history (issue 46); its counts (unread notices and messages, the dashboard's and
// Employee Management's figures) add what it holds to what these say lies before the window's edges. Everything is
// counted on read from the shared rows and the person's markers: nothing is written per member.

const liveChat = isNull(chatMessages.deletedAt);

/** Team chat before `edge`: the person's unread notices there (as the bell counts them) and, for managers, by author. */
async function teamChatBefore(db: Db, actor: Actor, edge: string): Promise<NonNullable<WindowCounts['teamChat']>> {
  const marker = await markerOf(db, actor.id);
  // Chat notices are unread after both the start of the person's notices and the marker (notices.ts, unreadCount).
  const after =
    marker.readThrough !== null && marker.readThrough >= marker.chatSince
      ? gt(chatMessages.createdAt, marker.readThrough)
      : gte(chatMessages.createdAt, marker.chatSince);
  // A message that mentions the person is no chat notice of theirs: its stored mention notice is (on the device).
  const unreadRange = and(
    liveChat,
    after,
    lt(chatMessages.createdAt, edge),
    ne(chatMessages.userId, actor.id),
    noStoredNotice(db, actor.id),
  );
  const [others] = await db.select({ n: count() }).from(chatMessages).where(unreadRange);
  const [marked] = marker.chatReads.length
    ? await db
        .select({ n: count() })
        .from(chatMessages)
        .where(and(unreadRange, inArray(chatMessages.id, marker.chatReads)))
    : [];
  const byAuthor: Record<string, number> = {};
  if (canManageEmployees(actor)) {
    // Each author's live messages less those from the edge on: the counts per author and the window's few messages
    // are read, never the history before the edge.
    for (const { userId, n } of await db
      .select({ userId: chatAuthorCounts.userId, n: chatAuthorCounts.liveMessages })
      .from(chatAuthorCounts))
      byAuthor[userId] = n;
    const fromEdge = await db
      .select({ userId: chatMessages.userId, n: count() })
      .from(chatMessages)
      .where(and(liveChat, gte(chatMessages.createdAt, edge)))
      .groupBy(chatMessages.userId);
    for (const { userId, n } of fromEdge) {
      const before = (byAuthor[userId] ?? 0) - n;
      if (before > 0) byAuthor[userId] = before;
      else delete byAuthor[userId];
    }
  }
  return { unread: (others?.n ?? 0) - (marked?.n ?? 0), readThrough: marker.readThrough, byAuthor };
}

// As the partial index tasks_completed states it (see snapshot.ts).
const completedTask = sql`${tasks.status} = 'completed'`;

/** The completed tasks the person sees that were last changed before `edge`, in all and by assignee. */
async function tasksBefore(db: Db, actor: Actor, edge: string): Promise<NonNullable<WindowCounts['tasks']>> {
  const rows = await db
    .select({ assignedTo: tasks.assignedTo, n: count() })
    .from(tasks)
    // Bounded on both sides, so SQLite reads the range of tasks_completed rather than every task in assignee order.
    .where(and(visibleTasksWhere(actor), completedTask, gt(tasks.updatedAt, ''), lt(tasks.updatedAt, edge)))
    .groupBy(tasks.assignedTo);
  const byAssignee: Record<string, number> = {};
  let completed = 0;
  for (const { assignedTo, n } of rows) {
    completed += n;
    if (assignedTo !== null) byAssignee[assignedTo] = n;
  }
  return { completed, byAssignee };
}

/** Each named conversation of the person: the other participant's messages before its edge the person has not read. */
async function conversationsBefore(
  db: Db,
  actor: Actor,
  edges: readonly { id: string; edge: string }[],
): Promise<WindowCounts['conversations']> {
  const rows = await inSlices(
    edges.map((each) => each.id),
    (slice) => db.select().from(conversations).where(inArray(conversations.id, slice)),
  );
  const edgeOf = new Map(edges.map((each) => [each.id, each.edge]));
  const counted: WindowCounts['conversations'] = [];
  for (const row of rows) {
    // Security: only the person's own conversations are counted; others are left out of the answer.
    const lastReadAt = row.userA === actor.id ? row.userAReadAt : row.userB === actor.id ? row.userBReadAt : undefined;
    const edge = edgeOf.get(row.id);
    if (lastReadAt === undefined || edge === undefined) continue;
    const unread: SQL | undefined = and(
      eq(directMessages.conversationId, row.id),
      isNull(directMessages.deletedAt),
      ne(directMessages.senderId, actor.id),
      lt(directMessages.createdAt, edge),
      lastReadAt === null ? undefined : gt(directMessages.createdAt, lastReadAt),
    );
    const [found] = await db.select({ n: count() }).from(directMessages).where(unread);
    counted.push({ id: row.id, unread: found?.n ?? 0, lastReadAt });
  }
  return counted;
}

/** What lies before the edges of a device's window, read in one transaction so the counts agree with each other. */
export async function windowCounts(db: Db, actor: Actor, query: WindowCountsQuery): Promise<WindowCounts> {
  return transaction(
    db,
    async (tx) => ({
      teamChat: query.teamChat ? await teamChatBefore(tx, actor, query.teamChat) : null,
      tasks: query.tasks ? await tasksBefore(tx, actor, query.tasks) : null,
      conversations: await conversationsBefore(tx, actor, query.conversations ?? []),
    }),
    { snapshot: true },
  );
}
