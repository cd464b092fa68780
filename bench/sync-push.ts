import Database from 'better-sqlite3';
import { join } from 'node:path';
import {
  conversationIdFor,
  limits,
  taskStatuses,
  uuidv7,
  type Change,
  type Mutation,
  type PullResponse,
  type PushResponse,
} from '@office/sync-protocol';
import { median, type Measure } from './measure';
import { explainMiss } from './report';
import type { SeededOrg } from './seed-org';
import { call, type BenchSession } from './session';

/** One simulated device: its own clientId and mutation ids 1, 2, 3 ... */
interface PushClient {
  session: BenchSession;
  clientId: string;
  nextMutationId: number;
  tasks: string[];
  conversations: string[];
  made: number;
}

/** What a batch of queued writes created, so a reader can check it holds every one. */
interface Expected {
  chatMessages: Set<string>;
  directMessages: Set<string>;
  comments: Set<string>;
  /** The last status this client set on each task. */
  statuses: Map<string, string>;
}

const newExpected = (): Expected => ({
  chatMessages: new Set(),
  directMessages: new Set(),
  comments: new Set(),
  statuses: new Map(),
});

function newClient(session: BenchSession, org: SeededOrg): PushClient {
  const me = session.user.id;
  return {
    session,
    clientId: uuidv7(),
    nextMutationId: 1,
    tasks: org.tasksByAssignee.get(me) ?? [],
    conversations: org.conversations.filter(([, a, b]) => a === me || b === me).map(([id]) => id),
    made: 0,
  };
}

/**
 * The next queued write of an employee working offline, in a fixed mix: a team chat message, a
 * comment on one of their tasks, a status change of one, a direct message.
 */
function nextMutation(client: PushClient, expected: Expected): Mutation {
  const kind = client.made % 4;
  const task = client.tasks[Math.floor(client.made / 4) % Math.max(1, client.tasks.length)];
  const conversationId = client.conversations[Math.floor(client.made / 4) % Math.max(1, client.conversations.length)];
  client.made += 1;
  const base = { id: client.nextMutationId++, at: new Date().toISOString() };
  const text = `Queued write ${client.made} of ${client.clientId.slice(-6)}`;
  if (kind === 1 && task) {
    const id = uuidv7();
    expected.comments.add(id);
    return { ...base, name: 'task.comment', args: { taskId: task, id, text } };
  }
  if (kind === 2 && task) {
    const status = taskStatuses[client.made % taskStatuses.length] ?? 'working';
    expected.statuses.set(task, status);
    return { ...base, name: 'task.setStatus', args: { id: task, status } };
  }
  if (kind === 3 && conversationId) {
    const id = uuidv7();
    expected.directMessages.add(id);
    return { ...base, name: 'dm.send', args: { id, conversationId, text } };
  }
  const id = uuidv7();
  expected.chatMessages.add(id);
  return { ...base, name: 'chat.send', args: { id, text } };
}

async function push(url: string, client: PushClient, mutations: Mutation[]): Promise<PushResponse> {
  const answer = await call<PushResponse>(url, client.session.token, 'POST', '/api/sync/push', {
    clientId: client.clientId,
    mutations,
  });
  if (answer.status !== 200) throw new Error(`push answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  const refused = answer.body.outcomes.filter((outcome) => outcome.status !== 'applied');
  if (refused.length) throw new Error(`push refused ${refused.length} mutations: ${JSON.stringify(refused[0])}`);
  if (answer.body.outcomes.length !== mutations.length) throw new Error('push stopped before the end of its batch');
  return answer.body;
}

/** The newest change-log sequence number, read from the database file as a client's cursor would be. */
export function headVersion(dataDir: string): number {
  const db = new Database(join(dataDir, 'workspace.db'), { readonly: true });
  try {
    return (db.prepare('SELECT coalesce(max(seq), 0) AS head FROM change_log').get() as { head: number }).head;
  } finally {
    db.close();
  }
}

export interface PushFigureOptions {
  url: string;
  dataDir: string;
  org: SeededOrg;
  sessions: BenchSession[];
  quick: boolean;
  runs: number;
  log: (line: string) => void;
}

const employeesWithWork = (sessions: BenchSession[], org: SeededOrg) =>
  sessions.filter(
    (s) =>
      s.user.role === 'employee' &&
      (org.tasksByAssignee.get(s.user.id)?.length ?? 0) > 0 &&
      org.conversations.some(([, a, b]) => a === s.user.id || b === s.user.id),
  );

/** Several devices push batches of 100 contiguous mutations as fast as the server applies them. */
export async function measurePushThroughput({
  url,
  org,
  sessions,
  quick,
  runs,
  log,
}: PushFigureOptions): Promise<Measure> {
  // Quick: fewer mutations in flight, so the last batches drain quickly after the time is up.
  const [clientCount, batchSize] = quick ? [4, 50] : [8, limits.pushBatchMax];
  const seconds = quick ? 5 : 10;
  const pushers = employeesWithWork(sessions, org).slice(0, clientCount);
  const rates: number[] = [];
  for (let run = 0; run < runs; run++) {
    log(`sync push: throughput run ${run + 1}/${runs} (${pushers.length} clients, ${seconds} s)`);
    const clients = pushers.map((session) => newClient(session, org));
    const expected = newExpected();
    let applied = 0;
    const started = performance.now();
    const until = started + seconds * 1000;
    await Promise.all(
      clients.map(async (client) => {
        while (performance.now() < until) {
          const batch = Array.from({ length: batchSize }, () => nextMutation(client, expected));
          // Awaited first: `applied += await …` would read `applied` before the await and lose the other clients' counts.
          const answer = await push(url, client, batch);
          applied += answer.outcomes.length;
        }
      }),
    );
    rates.push(applied / ((performance.now() - started) / 1000));
  }
  const rate = median(rates);
  return explainMiss(
    {
      name: `/api/sync/push sustained (${pushers.length} clients × batches of ${batchSize})`,
      target: '≥ 1 000 mutations/s',
      result: `${Math.round(rate)} mutations/s (median of ${runs})`,
      met: rate >= 1000,
      values: { mutationsPerSecond: rate, clients: pushers.length, batch: batchSize, runs },
      note: 'Mix: chat message, task comment, task status change, direct message.',
    },
    perMutationCost,
  );
}

/** Why pushed mutations cannot reach 1 000/s here, for the rows that miss. */
const perMutationCost =
  'Each mutation runs in its own transaction (its writes, the client’s last mutation id and its stored outcome commit together; the answer waits for one group fsync), and a chat message among them notifies 49 users: a few ms of one core each, which is where the time goes. 1 000/s needs one transaction per pushed batch (a savepoint per mutation), which changes what a fault in mid-batch keeps; that is a decision on the push contract, not a tuning.';

/** Everything `expected` names is in what the reader holds. */
function missingFrom(held: Map<string, Change>, expected: Expected): number {
  let missing = 0;
  for (const id of expected.chatMessages) if (!held.has(`chatMessage:${id}`)) missing++;
  for (const id of expected.directMessages) if (!held.has(`directMessage:${id}`)) missing++;
  const comments = new Set<string>();
  for (const change of held.values())
    if (change.entity === 'task' && change.op === 'put') for (const c of change.data.comments) comments.add(c.id);
  for (const id of expected.comments) if (!comments.has(id)) missing++;
  for (const [taskId, status] of expected.statuses) {
    const task = held.get(`task:${taskId}`);
    if (task?.entity !== 'task' || task.op !== 'put' || task.data.status !== status) missing++;
  }
  return missing;
}

/**
 * 1 000 writes queued offline by one employee reach a manager's device: the employee's device pushes
 * them in batches of `pushBatchMax` while the manager's device pulls, until it holds every one.
 */
export async function measureOfflineQueue({
  url,
  dataDir,
  org,
  sessions,
  quick,
  log,
}: PushFigureOptions): Promise<Measure> {
  const QUEUED = 1000;
  const writer = employeesWithWork(sessions, org).at(-1);
  const reader = sessions.find((s) => s.user.role === 'manager');
  if (!writer || !reader) throw new Error('the seeded organisation has no employee with work or no manager');
  const client = newClient(writer, org);
  // The reader is one of the writer's conversations, so the direct messages reach it too.
  client.conversations = [conversationIdFor(writer.user.id, reader.user.id)];
  const expected = newExpected();
  const queue: Mutation[] = [
    {
      id: client.nextMutationId++,
      name: 'dm.start',
      args: { recipientId: reader.user.id },
      at: new Date().toISOString(),
    },
  ];
  client.made = 0;
  while (queue.length < QUEUED) queue.push(nextMutation(client, expected));

  const readerClientId = uuidv7();
  let cursor = headVersion(dataDir);
  const held = new Map<string, Change>();
  log(`offline queue: ${QUEUED} writes from ${writer.user.email}, pulled by ${reader.user.email}`);
  const started = performance.now();
  let pushed = false;
  const pushing = (async () => {
    for (let i = 0; i < queue.length; i += limits.pushBatchMax) {
      await push(url, client, queue.slice(i, i + limits.pushBatchMax));
    }
    pushed = true;
  })();
  let pulls = 0;
  // Past this the figure is a clear miss; waiting longer only makes the run slower.
  const deadline = started + (quick ? 20_000 : 60_000);
  let missing = Number.POSITIVE_INFINITY;
  while (performance.now() < deadline) {
    const answer = await call<PullResponse>(
      url,
      reader.token,
      'GET',
      `/api/sync/pull?clientId=${readerClientId}&cursor=${cursor}&limit=${limits.pullPageMax}`,
    );
    if (answer.status !== 200) throw new Error(`pull answered ${answer.status}`);
    pulls += 1;
    for (const change of answer.body.changes) held.set(`${change.entity}:${change.id}`, change);
    cursor = answer.body.cursor;
    if (answer.body.more) continue;
    missing = missingFrom(held, expected);
    if (missing === 0 && pushed) break;
    // The PWA pulls on a socket poke; polling every 20 ms stands in for it.
    await new Promise((done) => setTimeout(done, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  await pushing;
  return explainMiss(
    {
      name: '1 000 queued offline writes, first push until another user holds all',
      target: '≤ 2 s',
      result: `${seconds.toFixed(2)} s, ${pulls} pulls${missing ? `, ${missing} missing` : ''}`,
      met: seconds <= 2 && missing === 0,
      values: { seconds, pulls, missing, writes: QUEUED },
    },
    perMutationCost,
  );
}
