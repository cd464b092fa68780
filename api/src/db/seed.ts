import type { z } from 'zod';
import { count, eq } from 'drizzle-orm';
import { isoToday, uuidv7, type Actor, type Role, type TaskPriority, type TaskStatus } from '@office/sync-protocol';
import type { Db, Tx } from './client';
import { chatMessages, conversations, directMessages, tasks, users } from './schema';
import { addCommentCommand, createTaskCommand, setTaskStatusCommand } from '../domain/tasks/commands';
import { editChatCommand, sendChatCommand, sendChatFilesCommand } from '../domain/chat/commands';
import { sendDirectCommand, startConversationCommand } from '../domain/direct/commands';
import type { UploadStore } from '../domain/chat/uploads';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newPendingEffects, runInTransaction, type Command, type EffectsFlusher } from '../domain/commands';
import type { StoredFile } from '../domain/chat/uploads';
import { transaction } from './transaction';
import { createUserCommand } from '../domain/users/commands';
import { hashPassword } from '../domain/users/passwords';

export const DEMO_PASSWORD = 'demo1234';

/** The demo workspace's people; the README lists the same accounts. */
export const demoAccounts: { name: string; email: string; role: Role; department: string }[] = [
  { name: 'Maya Manager', email: 'manager@demo.local', role: 'manager', department: 'Operations' },
  { name: 'Adam Admin', email: 'admin@demo.local', role: 'admin', department: 'IT' },
  { name: 'Alice Johnson', email: 'alice@demo.local', role: 'employee', department: 'Engineering' },
  { name: 'Bob Smith', email: 'bob@demo.local', role: 'employee', department: 'Design' },
  { name: 'Carol Davis', email: 'carol@demo.local', role: 'employee', department: 'Marketing' },
];

export async function isEmpty(db: Db): Promise<boolean> {
  const [row] = await db.select({ n: count() }).from(users);
  return (row?.n ?? 0) === 0;
}

/** Seeds the demo workspace through the same commands the app uses, so the change log is complete. */
export interface SeedOptions {
  /** Where the demo's shared image goes; without it the demo has no attachment. */
  uploads?: UploadStore;
  now?: Date;
}

/** Runs one command of the seed in its transaction. */
type SeedCommand = <S extends z.ZodType, O>(actor: Actor, command: Command<S, O>, args: z.input<S>) => Promise<O>;

/**
 * The demo workspace in one transaction: its commands run as the app runs them, one after the other, and it is
 * published once, after the commit. One commit for the whole seed instead of one per command (about sixty): a
 * seeded test server on PostgreSQL started in 0.72-0.82 s with them, 0.51-0.65 s now.
 */
export async function seedDemo(
  db: Db,
  flush: EffectsFlusher,
  { uploads, now = new Date() }: SeedOptions = {},
): Promise<void> {
  // Hashing and the file wait for no query: they run before the transaction, which must wait for its own alone.
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  const image = uploads ? await saveDemoImage(uploads) : null;
  const pending = newPendingEffects();
  await transaction(
    db,
    async (tx) => {
      const run: SeedCommand = (actor, command, args) => runInTransaction(tx, actor, command, args, pending);
      const actors = new Map<string, Actor>();
      for (const account of demoAccounts) {
        const id = uuidv7();
        const actor: Actor = { id, role: account.role };
        await run(actor, createUserCommand, { id, passwordHash, ...account });
        // The team has worked together for a while: the morning's chat (below) is in everyone's notifications.
        await tx
          .update(users)
          .set({ createdAt: new Date(now.getTime() - 30 * 86_400_000).toISOString() })
          .where(eq(users.id, id));
        actors.set(account.email.split('@')[0] ?? account.email, actor);
      }
      await seedTasks(tx, run, actors, now);
      await seedChat(tx, run, actors, now);
      await seedDirectMessages(tx, run, actors, now);
      if (image) await seedSharedImage(tx, run, image, actors, now);
    },
    { recordsChanges: true },
  );
  flush(pending);
}

/** The app icon lives in the repository; the demo shares it in the chat as an image attachment. */
function findDemoImage(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'pwa', 'public', 'icons', 'icon-512.png');
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  return null;
}

/** Stores the demo's shared image; null when the repository's icon is not there. */
async function saveDemoImage(uploads: UploadStore): Promise<StoredFile | null> {
  const image = findDemoImage();
  return image ? uploads.saveBytes('new-app-icon.png', await readFile(image)) : null;
}

async function seedSharedImage(
  tx: Tx,
  run: SeedCommand,
  file: StoredFile,
  actors: Map<string, Actor>,
  now: Date,
): Promise<void> {
  const bob = actors.get('bob');
  if (!bob) return;
  const id = uuidv7(now.getTime() - 10 * 60_000);
  await run(bob, sendChatFilesCommand, {
    id,
    text: 'Here is the new app icon for the launch deck.',
    files: [file],
  });
  await tx
    .update(chatMessages)
    .set({ createdAt: new Date(now.getTime() - 10 * 60_000).toISOString() })
    .where(eq(chatMessages.id, id));
}

/** A morning of team conversation: [author, minutes before now, text, edited text]. */
const demoChat: [string, number, string, string?][] = [
  ['manager', 300, 'Good morning everyone! Stand-up in 15 minutes.'],
  ['alice', 296, 'Morning! I will share the Q4 numbers there.'],
  ['bob', 290, 'The landing page sketches are ready for review.'],
  [
    'carol',
    240,
    'Offsite venue shortlist is in the planning doc.',
    'Offsite venue shortlist (two options) is in the planning doc.',
  ],
  ['manager', 180, 'Thanks Carol, let us decide by Friday.'],
  ['alice', 95, 'CI migration is blocked on the firewall rule, IT is on it.'],
  ['admin', 60, 'Firewall change is scheduled for this afternoon.'],
  ['bob', 20, 'Anyone up for lunch at 12:30?'],
];

async function seedChat(tx: Tx, run: SeedCommand, actors: Map<string, Actor>, now: Date): Promise<void> {
  for (const [author, minutesAgo, text, edited] of demoChat) {
    const actor = actors.get(author);
    if (!actor) throw new Error(`demo actor ${author} missing`);
    const id = uuidv7(now.getTime() - minutesAgo * 60_000);
    await run(actor, sendChatCommand, { id, text });
    if (edited) await run(actor, editChatCommand, { id, text: edited });
    // Spread over the morning; the commands stamp their own time.
    const at = new Date(now.getTime() - minutesAgo * 60_000).toISOString();
    await tx.update(chatMessages).set({ createdAt: at }).where(eq(chatMessages.id, id));
  }
}

/** Direct messages: [from, to, minutes before now, text, still unread by the recipient]. */
const demoDirectMessages: [string, string, number, string, boolean?][] = [
  ['alice', 'bob', 230, 'Hi Bob, could you send me the hero image in 2x?'],
  ['bob', 'alice', 226, 'Sure, exporting it now.'],
  ['bob', 'alice', 220, 'Done, it is in the shared folder.'],
  ['alice', 'bob', 218, 'Perfect, thank you!'],
  ['manager', 'alice', 120, 'Alice, can you join the budget review at 3?'],
  ['manager', 'alice', 45, 'Also please bring the Q4 numbers.', true],
  ['carol', 'bob', 70, 'Bob, do you have the brand colours for the flyer?'],
  ['bob', 'carol', 66, 'Yes: navy #1f3a5f and coral #ff6f59.'],
  ['carol', 'bob', 15, 'Thanks! Draft coming this afternoon.', true],
];

async function seedDirectMessages(tx: Tx, run: SeedCommand, actors: Map<string, Actor>, now: Date): Promise<void> {
  const actor = (name: string): Actor => {
    const found = actors.get(name);
    if (!found) throw new Error(`demo actor ${name} missing`);
    return found;
  };
  /** For each conversation and reader: the newest message time they have read. */
  const readUpTo = new Map<string, Map<string, string>>();
  for (const [from, to, minutesAgo, text, unread] of demoDirectMessages) {
    const sender = actor(from);
    const recipient = actor(to);
    const { conversation } = await run(sender, startConversationCommand, {
      recipientId: recipient.id,
    });
    const id = uuidv7(now.getTime() - minutesAgo * 60_000);
    await run(sender, sendDirectCommand, { id, conversationId: conversation.id, text });
    const at = new Date(now.getTime() - minutesAgo * 60_000).toISOString();
    await tx.update(directMessages).set({ createdAt: at }).where(eq(directMessages.id, id));
    await tx.update(conversations).set({ lastMessageAt: at }).where(eq(conversations.id, conversation.id));
    const reads = readUpTo.get(conversation.id) ?? new Map<string, string>();
    reads.set(sender.id, at);
    if (!unread) reads.set(recipient.id, at);
    readUpTo.set(conversation.id, reads);
  }
  for (const [conversationId, reads] of readUpTo) {
    const [row] = await tx.select().from(conversations).where(eq(conversations.id, conversationId));
    if (!row) continue;
    await tx
      .update(conversations)
      .set({ userAReadAt: reads.get(row.userA) ?? null, userBReadAt: reads.get(row.userB) ?? null })
      .where(eq(conversations.id, conversationId));
  }
}

interface DemoTask {
  title: string;
  description: string;
  assignee: 'alice' | 'bob' | 'carol';
  priority: TaskPriority;
  /** Days from today; negative is past due. */
  due: number;
  /** Status changes the assignee made after creation, with notes. */
  steps: [TaskStatus, string | null][];
  comments: ['manager' | 'alice' | 'bob' | 'carol', string][];
}

const demoTasks: DemoTask[] = [
  {
    title: 'Prepare Q4 sales report',
    description: 'Collect the numbers from each region and summarise the quarter for the leadership meeting.',
    assignee: 'alice',
    priority: 'high',
    due: 3,
    steps: [['working', 'Pulled the regional numbers, drafting the summary now.']],
    comments: [
      ['manager', 'Please include the comparison with Q3.'],
      ['alice', 'Will do, adding a chart for it.'],
    ],
  },
  {
    title: 'Update onboarding checklist',
    description: 'Add the new security training and the laptop setup steps.',
    assignee: 'alice',
    priority: 'medium',
    due: 1,
    steps: [],
    comments: [],
  },
  {
    title: 'Fix login page layout on mobile',
    description: 'The sign-in button is cut off on small phones.',
    assignee: 'alice',
    priority: 'critical',
    due: -2,
    steps: [],
    comments: [['manager', 'Customers are reporting this one, please prioritise.']],
  },
  {
    title: 'Migrate CI pipeline',
    description: 'Move the build from the old runner to the new one and check the caches.',
    assignee: 'alice',
    priority: 'critical',
    due: -1,
    steps: [
      ['working', null],
      ['waiting', 'Blocked until IT opens the firewall rule.'],
    ],
    comments: [],
  },
  {
    title: 'Design new landing page hero',
    description: 'Three options for the hero section, in the new brand colours.',
    assignee: 'bob',
    priority: 'high',
    due: 5,
    steps: [['waiting', 'Waiting for the copy from marketing.']],
    comments: [['bob', 'First sketches are in the shared folder.']],
  },
  {
    title: 'Refresh brand colour palette',
    description: 'Check contrast of every text colour against the new background.',
    assignee: 'bob',
    priority: 'low',
    due: -1,
    steps: [
      ['working', null],
      ['completed', 'All pairs pass AA now.'],
    ],
    comments: [],
  },
  {
    title: 'Renew software licences',
    description: 'Design tool licences run out this month.',
    assignee: 'bob',
    priority: 'high',
    due: -3,
    steps: [],
    comments: [],
  },
  {
    title: 'Customer interview notes',
    description: 'Write up the five interviews from last week.',
    assignee: 'bob',
    priority: 'medium',
    due: 10,
    steps: [],
    comments: [],
  },
  {
    title: 'Organise team offsite',
    description: 'Venue, agenda and travel for the spring offsite.',
    assignee: 'carol',
    priority: 'medium',
    due: -4,
    steps: [['working', 'Two venues shortlisted.']],
    comments: [['manager', 'Budget is confirmed, go ahead with booking.']],
  },
  {
    title: 'Write blog post on product launch',
    description: 'A post for the launch day, about 800 words.',
    assignee: 'carol',
    priority: 'high',
    due: 7,
    steps: [],
    comments: [],
  },
  {
    title: 'Audit social media accounts',
    description: 'List every account, its owner and its last post.',
    assignee: 'carol',
    priority: 'low',
    due: 2,
    steps: [
      ['working', null],
      ['completed', 'Spreadsheet shared with the team.'],
    ],
    comments: [['carol', 'Found two accounts nobody owned, closed them.']],
  },
];

const daysFrom = (today: string, days: number): string =>
  new Date(Date.parse(`${today}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

async function seedTasks(tx: Tx, run: SeedCommand, actors: Map<string, Actor>, now: Date): Promise<void> {
  const actor = (key: string): Actor => {
    const found = actors.get(key);
    if (!found) throw new Error(`demo actor ${key} missing`);
    return found;
  };
  const today = isoToday(now);
  for (const demo of demoTasks) {
    const id = uuidv7();
    const assignee = actor(demo.assignee);
    // Created through the command (due dates cannot be in the past there), then moved to the demo date.
    await run(actor('manager'), createTaskCommand, {
      id,
      title: demo.title,
      description: demo.description,
      assignedTo: assignee.id,
      priority: demo.priority,
      dueDate: daysFrom(today, Math.max(0, demo.due)),
    });
    if (demo.due < 0)
      await tx
        .update(tasks)
        .set({ dueDate: daysFrom(today, demo.due) })
        .where(eq(tasks.id, id));
    for (const [status, note] of demo.steps) {
      await run(assignee, setTaskStatusCommand, { id, status, ...(note ? { note } : {}) });
    }
    for (const [author, text] of demo.comments) {
      await run(actor(author), addCommentCommand, { taskId: id, id: uuidv7(), text });
    }
  }
}
