import { eq, inArray } from 'drizzle-orm';
import type { z } from 'zod';
import { isoToday, uuidv7, type Actor, type Role, type TaskPriority, type TaskStatus } from '@office/sync-protocol';
import type { Db, Tx } from '../api/src/db/client';
import { dialect } from '../api/src/db/dialect';
import { openWorkspaceDatabase } from '../api/src/db/open';
import * as tables from '../api/src/db/schema';
import { transaction } from '../api/src/db/transaction';
import { skipTeamChatHistory } from '../api/src/domain/change-log';
import { SearchIndexer } from '../api/src/domain/search/indexer';
import { newPendingEffects, runInTransaction, type Command } from '../api/src/domain/commands';
import { sendChatCommand } from '../api/src/domain/chat/commands';
import { sendDirectCommand, startConversationCommand } from '../api/src/domain/direct/commands';
import { createTaskCommand, setTaskStatusCommand } from '../api/src/domain/tasks/commands';
import { createUserCommand } from '../api/src/domain/users/commands';
import { hashPassword } from '../api/src/domain/users/passwords';
import type { BenchCredentials } from './context';
import type { Measure } from './measure';
import { seededRandom } from '../api/seeded-random';

/** How big the seeded organisation is. */
export interface OrgSize {
  users: number;
  tasks: number;
  chatMessages: number;
  conversations: number;
  /** Direct messages per conversation: between 2 and this many. */
  directMessagesMax: number;
  /**
   * Tasks completed before a device's window of history (more than 30 days ago), besides `tasks` (today's work):
   * what a longer past leaves behind. None in the history.
   */
  pastTasks: number;
  /** How many days back the team chat and the direct conversations go. */
  historyDays: number;
}

/** The history (5 000 tasks, 50 000 chat messages), for an organisation of `users` people. */
export const fullOrg = (users: number): OrgSize => ({
  users,
  tasks: 5_000,
  chatMessages: 50_000,
  conversations: 500,
  directMessagesMax: 10,
  pastTasks: 0,
  historyDays: 90,
});
/** `--quick`: less history (seeding is most of a quick run), so it stays within a few minutes. */
export const quickOrg = (users: number): OrgSize => ({
  users,
  tasks: 1_000,
  chatMessages: 2_000,
  conversations: 100,
  directMessagesMax: 6,
  pastTasks: 0,
  historyDays: 90,
});

export const BENCH_PASSWORD = 'bench-password-1234';

export interface SeededUser extends BenchCredentials {
  id: string;
  name: string;
  role: Role;
  department: string;
}

export interface SeededOrg {
  users: SeededUser[];
  /** Direct conversations as [conversation id, participant a, participant b]. */
  conversations: [string, string, string][];
  /** Each employee's assigned task ids. */
  tasksByAssignee: Map<string, string[]>;
  /** Row counts after seeding, for the table. */
  counts: Record<string, number>;
}

const departments = ['Engineering', 'Design', 'Marketing', 'Sales', 'Finance', 'Support', 'People', 'Operations'];
const firstNames = ['Ada', 'Ben', 'Chloe', 'Dev', 'Ella', 'Finn', 'Gina', 'Hugo', 'Iris', 'Jon', 'Kira', 'Liam'];
const lastNames = ['Novak', 'Okafor', 'Patel', 'Quinn', 'Rossi', 'Silva', 'Tanaka', 'Umar', 'Varga', 'Weber'];
const taskTopics = ['report', 'review', 'migration', 'campaign', 'audit', 'onboarding', 'release', 'budget', 'survey'];
const chatLines = [
  'Stand-up in ten minutes, same room as yesterday.',
  'The build is green again, thanks for the quick fix.',
  'Can someone review my pull request before lunch?',
  'Customer call moved to 3 pm, invite updated.',
  'Reminder: timesheets are due on Friday.',
  'Deploying the new release to staging now.',
  'Anyone seen the projector remote in room 2?',
  'Great job on the demo today, everyone.',
];

const DAY = 86_400_000;
/** Commands per transaction: one commit on disk per batch instead of one per command. */
const BATCH = 500;

/** The tables counted after seeding, by their SQL names (the keys of `counts`). */
const counted = {
  users: tables.users,
  tasks: tables.tasks,
  chat_messages: tables.chatMessages,
  conversations: tables.conversations,
  direct_messages: tables.directMessages,
  notifications: tables.notifications,
  notification_markers: tables.notificationMarkers,
  change_log: tables.changeLog,
  change_audience: tables.changeAudience,
};

/**
 * Seeds the organisation through the app's own commands (so the change log, audiences and notifications are what
 * the real writes leave), batched in large transactions: into DATA_DIR/workspace.db, or into the PostgreSQL of
 * `databaseUrl`, which this process must have had as DATABASE_URL before the api modules loaded (dialect.ts). The
 * server is not running yet; nothing is published, exactly as the demo seed on an empty database.
 */
export async function seedOrganisation(
  database: { dataDir: string; databaseUrl: string | null },
  size: OrgSize,
): Promise<SeededOrg> {
  if ((database.databaseUrl !== null) !== (dialect === 'postgres'))
    throw new Error(
      `seeding ${database.databaseUrl ? 'PostgreSQL' : 'SQLite'} in a process whose tables are ${dialect}'s`,
    );
  // A seed writes the whole organisation in a few large transactions: no node's bounds apply to it.
  const unbounded = { statementMs: 0, lockMs: 0, idleInTransactionMs: 0, transactionMs: 0 };
  const { db, close } = await openWorkspaceDatabase({ ...database, postgresTimeouts: unbounded });
  try {
    const random = seededRandom(9);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const now = Date.now();
    // Hashing is deliberately slow (argon2id): one hash serves every account.
    const passwordHash = await hashPassword(BENCH_PASSWORD);

    const users = await seedUsers(db, size, passwordHash, pick);
    const employees = users.filter((user) => user.role === 'employee');
    const staff = users.filter((user) => user.role !== 'employee');
    const actor = (user: SeededUser): Actor => ({ id: user.id, role: user.role });

    const tasksByAssignee = await seedTasks(db, size, employees, staff, actor, random, pick, now);
    const conversations = await seedDirect(db, size, users, actor, random, now);
    await seedChat(db, size, users, actor, pick, now);
    // History, not news: nothing of it waits for web push when the server starts.
    await db.update(tables.notifications).set({ pushPending: false });
    await skipTeamChatHistory(db);
    // Everyone has read what is older than a day (their "Mark all as read"): nobody keeps 50 000 unread.
    const readThrough = new Date(now - DAY).toISOString();
    // In slices: one insert of 50 000 rows is more bound values than a statement takes.
    for (let start = 0; start < users.length; start += BATCH)
      await db
        .insert(tables.notificationMarkers)
        .values(users.slice(start, start + BATCH).map((user) => ({ id: user.id, readThrough })));
    // The server starts with its search index current, as a server that indexed the history as it came.
    await new SearchIndexer(db).catchUp(Number.POSITIVE_INFINITY);

    const counts: Record<string, number> = {};
    for (const [name, table] of Object.entries(counted)) counts[name] = await db.$count(table);
    return { users, conversations, tasksByAssignee, counts };
  } finally {
    await close();
  }
}

/** Runs many commands in one transaction; a refusal is a bug in the seed and stops it. */
async function inBatches<T>(db: Db, items: readonly T[], apply: (tx: Tx, item: T) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += BATCH) {
    await transaction(db, async (tx) => {
      for (const item of items.slice(start, start + BATCH)) await apply(tx, item);
    });
  }
}

/** Runs one command; returns its result and the ids of the notifications it created. */
async function run<S extends z.ZodType, O>(
  tx: Tx,
  actor: Actor,
  command: Command<S, O>,
  args: z.input<S>,
): Promise<{ result: O; notificationIds: string[] }> {
  const pending = newPendingEffects();
  const result = await runInTransaction(tx, actor, command, args, pending);
  return { result, notificationIds: pending.notifications };
}

async function seedUsers(
  db: Db,
  size: OrgSize,
  passwordHash: string,
  pick: <T>(items: readonly T[]) => T,
): Promise<SeededUser[]> {
  const roleOf = (index: number): Role => (index < 2 ? 'manager' : index === 2 ? 'admin' : 'employee');
  const users: SeededUser[] = Array.from({ length: size.users }, (_, index) => {
    const role = roleOf(index);
    const email = role === 'employee' ? `employee${index - 2}@bench.local` : `${role}${index + 1}@bench.local`;
    return {
      id: uuidv7(),
      name: `${pick(firstNames)} ${pick(lastNames)}`,
      email,
      password: BENCH_PASSWORD,
      role,
      department: role === 'admin' ? 'IT' : role === 'manager' ? 'Operations' : (departments[index % 8] ?? 'Support'),
    };
  });
  await inBatches(db, users, async (tx, user) => {
    const { password: _password, ...fields } = user;
    await run(tx, { id: user.id, role: user.role }, createUserCommand, { ...fields, passwordHash });
  });
  // The organisation existed before its history: everyone joined before it.
  await db.update(tables.users).set({ createdAt: new Date(Date.now() - (size.historyDays + 30) * DAY).toISOString() });
  return users;
}

const priorities: TaskPriority[] = ['low', 'medium', 'medium', 'high', 'high', 'critical'];

async function seedTasks(
  db: Db,
  size: OrgSize,
  employees: SeededUser[],
  staff: SeededUser[],
  actor: (user: SeededUser) => Actor,
  random: () => number,
  pick: <T>(items: readonly T[]) => T,
  now: number,
): Promise<Map<string, string[]>> {
  const managers = staff.filter((user) => user.role === 'manager');
  const tasksByAssignee = new Map<string, string[]>();
  const today = isoToday(new Date(now));
  // Made due later than any day the seeding may reach (a long one passes midnight), then moved to its date below.
  const madeDue = isoToday(new Date(now + 2 * DAY));
  const assignerOf = (index: number): SeededUser => {
    const assigner = managers[index % managers.length] ?? staff[0];
    if (!assigner) throw new Error('the organisation has nobody who may assign tasks');
    return assigner;
  };
  const plan = (index: number, completedAt: number | null) => {
    const assignee = employees[index % employees.length] as SeededUser;
    // A fifth of the open work is overdue; the rest is due within the next two months.
    const dueInDays = random() < 0.2 ? -Math.ceil(random() * 30) : Math.floor(random() * 60);
    const roll = random();
    const steps: TaskStatus[] =
      completedAt !== null || roll >= 0.7
        ? ['working', 'completed']
        : roll < 0.35
          ? []
          : roll < 0.6
            ? ['working']
            : ['working', 'waiting'];
    return {
      id: uuidv7(completedAt ?? now),
      title: `${pick(departments)} ${pick(taskTopics)} #${index + 1}`,
      assignee,
      by: assignerOf(index),
      priority: pick(priorities),
      dueInDays,
      steps,
      completedAt,
    };
  };
  // Today's work, then the past's: completed between the device's window (31 days ago) and the history's start.
  const pastSpan = Math.max(0, size.historyDays - 31) * DAY;
  const plans = [
    ...Array.from({ length: size.tasks }, (_, index) => plan(index, null)),
    ...Array.from({ length: size.pastTasks }, (_, index) =>
      plan(size.tasks + index, now - 31 * DAY - Math.floor(random() * pastSpan)),
    ),
  ];
  await inBatches(db, plans, async (tx, plan) => {
    const created = await run(tx, actor(plan.by), createTaskCommand, {
      id: plan.id,
      title: plan.title,
      description: `Seeded by the benchmark for ${plan.assignee.department}.`,
      assignedTo: plan.assignee.id,
      priority: plan.priority,
      dueDate: madeDue,
    });
    const notificationIds = [...created.notificationIds];
    for (const status of plan.steps)
      notificationIds.push(
        ...(await run(tx, actor(plan.assignee), setTaskStatusCommand, { id: plan.id, status })).notificationIds,
      );
    // The command refuses a past due date (as the app does), so overdue work is moved back afterwards; a past task
    // was made a week before it was completed and due that day, and its notices are as old as it.
    const done = plan.completedAt;
    const dueDate =
      done === null
        ? new Date(Date.parse(`${today}T00:00:00Z`) + plan.dueInDays * DAY).toISOString().slice(0, 10)
        : new Date(done).toISOString().slice(0, 10);
    if (done === null) {
      await tx.update(tables.tasks).set({ dueDate }).where(eq(tables.tasks.id, plan.id));
    } else {
      const completed = new Date(done).toISOString();
      const createdAt = new Date(done - 7 * DAY).toISOString();
      await tx
        .update(tables.tasks)
        .set({ dueDate, createdAt, updatedAt: completed, statusChangedAt: completed })
        .where(eq(tables.tasks.id, plan.id));
      await tx
        .update(tables.notifications)
        .set({ createdAt: completed })
        .where(inArray(tables.notifications.id, notificationIds));
    }
    tasksByAssignee.set(plan.assignee.id, [...(tasksByAssignee.get(plan.assignee.id) ?? []), plan.id]);
  });
  return tasksByAssignee;
}

async function seedDirect(
  db: Db,
  size: OrgSize,
  users: SeededUser[],
  actor: (user: SeededUser) => Actor,
  random: () => number,
  now: number,
): Promise<[string, string, string][]> {
  // Distinct pairs, drawn at random: listing every pair first took n²/2 of memory (1.25 billion at 50 000 people).
  // A small organisation has fewer pairs than the history asks for.
  const wanted = Math.min(size.conversations, (users.length * (users.length - 1)) / 2);
  const drawn = new Set<string>();
  const chosen: [SeededUser, SeededUser][] = [];
  while (chosen.length < wanted) {
    const a = Math.floor(random() * users.length);
    const b = Math.floor(random() * users.length);
    const key = a < b ? `${a}:${b}` : `${b}:${a}`;
    if (a === b || drawn.has(key)) continue;
    drawn.add(key);
    chosen.push([users[Math.min(a, b)] as SeededUser, users[Math.max(a, b)] as SeededUser]);
  }
  const conversations: [string, string, string][] = [];
  await inBatches(db, chosen, async (tx, [first, second]) => {
    const { result } = await run(tx, actor(first), startConversationCommand, { recipientId: second.id });
    const conversationId = result.conversation.id;
    const messages = 2 + Math.floor(random() * (size.directMessagesMax - 1));
    // Conversations began at any time of the history, and each went on for some hours.
    let at = now - Math.floor(random() * size.historyDays * DAY);
    for (let i = 0; i < messages; i++) {
      at += Math.floor(random() * 3_600_000);
      const sender = i % 2 === 0 ? first : second;
      const id = uuidv7(at);
      const { notificationIds } = await run(tx, actor(sender), sendDirectCommand, {
        id,
        conversationId,
        text: `${chatLines[i % chatLines.length] ?? 'Hello'} (${i + 1})`,
      });
      const stamp = new Date(Math.min(at, now)).toISOString();
      await tx.update(tables.directMessages).set({ createdAt: stamp }).where(eq(tables.directMessages.id, id));
      if (notificationIds.length)
        await tx
          .update(tables.notifications)
          .set({ createdAt: stamp })
          .where(inArray(tables.notifications.id, notificationIds));
    }
    // Both have read everything: the conversation list opens without unread badges.
    const last = new Date(Math.min(at, now)).toISOString();
    await tx
      .update(tables.conversations)
      .set({ lastMessageAt: last, userAReadAt: last, userBReadAt: last })
      .where(eq(tables.conversations.id, conversationId));
    conversations.push([conversationId, first.id, second.id]);
  });
  return conversations;
}

async function seedChat(
  db: Db,
  size: OrgSize,
  users: SeededUser[],
  actor: (user: SeededUser) => Actor,
  pick: <T>(items: readonly T[]) => T,
  now: number,
): Promise<void> {
  // Spread over the history's days, oldest first, like a real history.
  const span = size.historyDays * DAY;
  const messages = Array.from({ length: size.chatMessages }, (_, index) => ({
    at: now - span + Math.floor(((index + 1) * span) / (size.chatMessages + 1)),
    author: pick(users),
    text: `${pick(chatLines)} [${index + 1}]`,
  }));
  await inBatches(db, messages, async (tx, message) => {
    const id = uuidv7(message.at);
    // One row for the whole team: its notices are derived from it (nothing per member).
    await run(tx, actor(message.author), sendChatCommand, { id, text: message.text });
    const stamp = new Date(message.at).toISOString();
    await tx
      .update(tables.chatMessages)
      .set({ createdAt: stamp, updatedAt: stamp })
      .where(eq(tables.chatMessages.id, id));
  });
}

/** The seeding's row of the table: how long it took and what it made. */
export function seedingMeasure(
  org: SeededOrg,
  seconds: number,
  members: number,
  { quick, database }: { quick: boolean; database: 'SQLite' | 'PostgreSQL' },
): Measure {
  return {
    name: `Seeding through the domain commands, ${members} members${database === 'PostgreSQL' ? ', on PostgreSQL' : ''}${quick ? ' (quick: less history)' : ''}`,
    target: '—',
    result: `${seconds.toFixed(1)} s: ${org.counts.users} users, ${org.counts.tasks} tasks, ${org.counts.chat_messages} chat messages, ${org.counts.conversations} conversations, ${org.counts.direct_messages} direct messages, ${org.counts.notifications} notifications`,
    met: null,
    values: { seconds, ...org.counts },
    // Said once, under SQLite's row.
    ...(database === 'SQLite'
      ? {
          note: 'Every member has one precomputed password hash. Team chat notices are derived, so a chat message is one row.',
        }
      : {}),
  };
}
