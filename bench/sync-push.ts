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
import { median, type Measure, type Watcher } from './measure';
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

export interface PushThroughputOptions extends Omit<PushFigureOptions, 'url' | 'dataDir'> {
  /** One server, or the nodes of one workspace: device i pushes to node i mod n. */
  url: string | string[];
  /** Watches the runs. */
  watch?: Watcher;
}

const employeesWithWork = (sessions: BenchSession[], org: SeededOrg) =>
  sessions.filter(
    (s) =>
      s.user.role === 'employee' &&
      (org.tasksByAssignee.get(s.user.id)?.length ?? 0) > 0 &&
      org.conversations.some(([, a, b]) => a === s.user.id || b === s.user.id),
  );

/**
 * Several devices push batches of 100 queued team chat messages (contiguous mutation ids) as fast as the
 * server applies them. Returns the median rate in mutations per second, every mutation applied, and the measure.
 */
export async function measurePushThroughput(
  { url, org, sessions, quick, runs, log, watch }: PushThroughputOptions,
  members: number,
): Promise<{ rate: number; rates: number[]; applied: number; measure: Measure }> {
  const urls = typeof url === 'string' ? [url] : url;
  const [clientCount, batchSize] = quick ? [4, limits.pushBatchMax] : [8, limits.pushBatchMax];
  const seconds = quick ? 4 : 10;
  const pushers = sessions.slice(0, clientCount);
  const rates: number[] = [];
  let total = 0;
  for (let run = 0; run < runs; run++) {
    log(`sync push: run ${run + 1}/${runs} (${pushers.length} clients × ${batchSize} chat messages, ${seconds} s)`);
    const clients = pushers.map((session) => newClient(session, org));
    let applied = 0;
    // Timed inside the watch, which may run work of its own before the load: its seconds.
    const load = async () => {
      const started = performance.now();
      const until = started + seconds * 1000;
      await Promise.all(
        clients.map(async (client, index) => {
          const node = urls[index % urls.length] as string;
          while (performance.now() < until) {
            const batch = Array.from({ length: batchSize }, () => chatMutation(client));
            // Awaited first: `applied += await …` would read `applied` before the await and lose the other clients' counts.
            const answer = await push(node, client, batch);
            applied += answer.outcomes.length;
          }
        }),
      );
      return (performance.now() - started) / 1000;
    };
    const elapsed = await (watch ? watch.around(load) : load());
    rates.push(applied / elapsed);
    total += applied;
  }
  const rate = median(rates);
  return {
    rate,
    rates,
    applied: total,
    measure: {
      name: `/api/sync/push: ${pushers.length} devices × batches of ${batchSize} chat messages, ${members} members`,
      target: '≥ 3 000 mutations/s',
      result: `${Math.round(rate)} mutations/s (median of ${runs})`,
      met: rate >= 3000,
      values: { mutationsPerSecond: rate, clients: pushers.length, batch: batchSize, runs, members },
      note: 'One transaction per batch, a savepoint per mutation, one group fsync per batch.',
    },
  };
}

/** The next queued team chat message of a device. */
function chatMutation(client: PushClient): Mutation {
  client.made += 1;
  return {
    id: client.nextMutationId++,
    at: new Date().toISOString(),
    name: 'chat.send',
    args: { id: uuidv7(), text: `Queued chat ${client.made} of ${client.clientId.slice(-6)}` },
  };
}

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
  let cursor = String(headVersion(dataDir));
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
      target: '≤ 1 s',
      result: `${seconds.toFixed(2)} s, ${pulls} pulls${missing ? `, ${missing} missing` : ''}`,
      met: seconds <= 1 && missing === 0,
      values: { seconds, pulls, missing, writes: QUEUED },
      note: 'Mix: team chat message, task comment, task status change, direct message; pushed in batches of 100 while the other user pulls.',
    },
    'The reader polls every 20 ms (the PWA pulls on a socket change); the load generator shares the 2 cores.',
  );
}
