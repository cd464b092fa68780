import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { asc, eq, gt } from 'drizzle-orm';
import { errorCatalogue, uuidv7, type Actor, type Mutation, type PushRequest } from '@office/sync-protocol';
import type { Db } from '../../db/client';
import type { WorkspaceDatabase } from '../../db/open';
import { changeLog, syncClients, syncMutations, users } from '../../db/schema';
import { seedDemo } from '../../db/seed';
import { newestSeq } from '../change-log';
import type { CommandContext, PendingEffects } from '../commands';
import { DomainError } from '../errors';
import { updateDetailsCommand } from '../users/commands';
import { openTestDatabase } from '../../../test/support';
import { processPush } from './push';

let dir: string;
let workspace: WorkspaceDatabase;
let db: Db;
interface Flushed {
  seqs: number[];
  names: string[];
  committed: boolean[];
}
/** What each flush saw: the committed changes and the user's name at that moment (read as it flushes). */
let flushes: Promise<Flushed>[];
const flushed = () => Promise.all(flushes);

const flush = (pending: PendingEffects): void => {
  const changes = pending.changes;
  flushes.push(
    (async () => ({
      seqs: changes.map((c) => c.seq),
      names: await Promise.all(
        changes.map(async (c) => (await db.select().from(users).where(eq(users.id, c.id)))[0]?.name ?? '?'),
      ),
      // Flushing happens after the commit: the change is visible outside any transaction.
      committed: await Promise.all(
        changes.map(async (c) => (await db.select().from(changeLog).where(eq(changeLog.seq, c.seq))).length === 1),
      ),
    }))(),
  );
};

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'office-push-'));
  workspace = await openTestDatabase(dir);
  db = workspace.db;
  await seedDemo(db, () => {});
  flushes = [];
});

afterEach(async () => {
  vi.restoreAllMocks();
  // A test that does not look at its last flush still lets its reads finish before the database closes.
  await Promise.allSettled(flushes);
  await workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

async function actorOf(email: string): Promise<Actor & { name: string }> {
  const [row] = await db.select().from(users).where(eq(users.email, email));
  if (!row) throw new Error(`no user ${email}`);
  return { id: row.id, role: row.role, name: row.name };
}

const details = (id: number, name: string, email = 'alice@demo.local', at = new Date().toISOString()): Mutation => ({
  id,
  name: 'user.updateDetails',
  args: { name, email },
  at,
});

const request = (clientId: string, mutations: Mutation[]): PushRequest => ({ clientId, mutations });
const nameOf = async (id: string) => (await db.select().from(users).where(eq(users.id, id)))[0]?.name;
const changesAfter = (seq: number) =>
  db.select().from(changeLog).where(gt(changeLog.seq, seq)).orderBy(asc(changeLog.seq));
const mutationRows = (clientId: string) =>
  db.select().from(syncMutations).where(eq(syncMutations.clientId, clientId)).orderBy(asc(syncMutations.mutationId));
const clientRow = async (clientId: string) =>
  (await db.select().from(syncClients).where(eq(syncClients.clientId, clientId)))[0];

const realRun = updateDetailsCommand.run.bind(updateDetailsCommand);
type RunArgs = { name: string; email: string };

describe('processPush', () => {
  test('a batch runs in order in one transaction and is flushed once, after its commit', async () => {
    const alice = await actorOf('alice@demo.local');
    const clientId = uuidv7();
    const before = await newestSeq(db);
    const ran: string[] = [];
    vi.spyOn(updateDetailsCommand, 'run').mockImplementation((ctx: CommandContext, args: RunArgs) => {
      ran.push(args.name);
      return realRun(ctx, args);
    });

    const answer = await processPush(
      db,
      flush,
      alice,
      request(clientId, [details(1, 'A'), details(2, 'B'), details(3, 'C')]),
    );

    expect(answer.outcomes.map((o) => o.status)).toEqual(['applied', 'applied', 'applied']);
    expect(ran).toEqual(['A', 'B', 'C']);
    // One flush for the batch, after the commit: each change is visible and the name is the batch's last.
    expect(await flushed()).toEqual([
      { seqs: [before + 1, before + 2, before + 3], names: ['C', 'C', 'C'], committed: [true, true, true] },
    ]);
    expect((await changesAfter(before)).map((row) => row.seq)).toEqual([before + 1, before + 2, before + 3]);
    expect(await nameOf(alice.id)).toBe('C');
  });

  test('a refused command leaves none of its writes, while its outcome and the client progress commit', async () => {
    const alice = await actorOf('alice@demo.local');
    const clientId = uuidv7();
    const before = await newestSeq(db);
    vi.spyOn(updateDetailsCommand, 'run').mockImplementationOnce(async (ctx: CommandContext, args: RunArgs) => {
      await ctx.tx.update(users).set({ name: args.name }).where(eq(users.id, ctx.actor.id));
      await ctx.record({ entity: 'user', id: ctx.actor.id, op: 'put', audience: ['team'] });
      throw new DomainError('duplicate_id');
    });

    const answer = await processPush(db, flush, alice, request(clientId, [details(1, 'Refused'), details(2, 'Kept')]));

    expect(answer.outcomes).toEqual([
      { id: 1, status: 'rejected', code: 'duplicate_id', message: errorCatalogue.duplicate_id.message },
      { id: 2, status: 'applied' },
    ]);
    expect(answer.lastMutationId).toBe(2);
    expect(await nameOf(alice.id)).toBe('Kept');
    // One change, the applied one's. (Its number need not be before + 1: on PostgreSQL the refused one's rolled-back
    // append used a number of the sequence.)
    const changes = await changesAfter(before);
    expect(changes).toHaveLength(1);
    // The refused mutation publishes nothing; the applied one publishes its own change only.
    expect((await flushed()).map((f) => f.seqs)).toEqual([[changes[0]?.seq]]);
    // Only the refusal is stored: the applied one is known from the client's last id.
    expect((await mutationRows(clientId)).map((row) => [row.mutationId, row.status, row.code])).toEqual([
      [1, 'rejected', 'duplicate_id'],
    ]);
    expect((await clientRow(clientId))?.lastMutationId).toBe(2);
  });

  test('a server fault in mid-batch rolls the whole batch back: nothing of it stays, and the retry runs it all', async () => {
    const alice = await actorOf('alice@demo.local');
    const clientId = uuidv7();
    const before = await newestSeq(db);
    const batch = [details(1, 'One'), details(2, 'Two'), details(3, 'Three')];
    vi.spyOn(updateDetailsCommand, 'run')
      .mockImplementationOnce(realRun)
      .mockImplementationOnce(async (ctx: CommandContext, args: RunArgs) => {
        // Writes, then fails the way a disk or a bug would: not a DomainError.
        await realRun(ctx, args);
        throw new Error('disk I/O error');
      });

    const name = await nameOf(alice.id);
    await expect(processPush(db, flush, alice, request(clientId, batch))).rejects.toThrow('disk I/O error');

    // Not even the first mutation, which ran fine, is kept or acknowledged; nothing was published.
    expect(await nameOf(alice.id)).toBe(name);
    expect(await changesAfter(before)).toEqual([]);
    expect((await clientRow(clientId))?.lastMutationId).toBe(0);
    expect(await mutationRows(clientId)).toEqual([]);
    expect(await flushed()).toEqual([]);

    const retry = await processPush(db, flush, alice, request(clientId, batch));
    expect(retry.outcomes).toEqual([
      { id: 1, status: 'applied' },
      { id: 2, status: 'applied' },
      { id: 3, status: 'applied' },
    ]);
    expect(await nameOf(alice.id)).toBe('Three');
    expect(await changesAfter(before)).toHaveLength(3);
    expect((await clientRow(clientId))?.lastMutationId).toBe(3);
  });

  test('a replay answers applied without a stored row, and from the row an older database stored for it', async () => {
    const alice = await actorOf('alice@demo.local');
    const clientId = uuidv7();
    await processPush(db, flush, alice, request(clientId, [details(1, 'One'), details(2, 'Two')]));
    expect(await mutationRows(clientId)).toEqual([]);
    // Before only refusals were stored, every applied mutation had a row of its own.
    await db.insert(syncMutations).values({ clientId, mutationId: 2, name: 'user.updateDetails', status: 'applied' });

    const replay = await processPush(db, flush, alice, request(clientId, [details(1, 'One'), details(2, 'Two')]));

    expect(replay.outcomes).toEqual([
      { id: 1, status: 'duplicate', original: 'applied' },
      { id: 2, status: 'duplicate', original: 'applied' },
    ]);
    expect(await nameOf(alice.id)).toBe('Two');
  });

  test('the same id twice in one batch runs once and answers the second as a duplicate', async () => {
    const alice = await actorOf('alice@demo.local');
    const clientId = uuidv7();
    const before = await newestSeq(db);

    const answer = await processPush(db, flush, alice, request(clientId, [details(1, 'Once'), details(1, 'Twice')]));

    expect(answer.outcomes).toEqual([
      { id: 1, status: 'applied' },
      { id: 1, status: 'duplicate', original: 'applied' },
    ]);
    expect(await nameOf(alice.id)).toBe('Once');
    expect(await changesAfter(before)).toHaveLength(1);
  });

  test('an update that changes nothing is applied without a change-log row', async () => {
    const alice = await actorOf('alice@demo.local');
    const clientId = uuidv7();
    const before = await newestSeq(db);

    const answer = await processPush(db, flush, alice, request(clientId, [details(1, alice.name)]));

    expect(answer).toEqual({ outcomes: [{ id: 1, status: 'applied' }], lastMutationId: 1 });
    expect(await changesAfter(before)).toEqual([]);
    expect((await clientRow(clientId))?.lastMutationId).toBe(1);
    expect(await mutationRows(clientId)).toEqual([]);
  });

  test("a client id belongs to its first user: another user's push is refused before anything runs", async () => {
    const alice = await actorOf('alice@demo.local');
    const bob = await actorOf('bob@demo.local');
    const clientId = uuidv7();
    await processPush(db, flush, alice, request(clientId, [details(1, 'Alice One')]));
    const before = await newestSeq(db);
    const run = vi.spyOn(updateDetailsCommand, 'run');

    let refusal: unknown;
    try {
      await processPush(db, flush, bob, request(clientId, [details(2, 'Bob Two', 'bob@demo.local')]));
    } catch (error) {
      refusal = error;
    }

    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal).toMatchObject({ code: 'client_not_yours', status: 403 });
    expect(run).not.toHaveBeenCalled();
    expect(await nameOf(bob.id)).toBe('Bob Smith');
    expect(await changesAfter(before)).toEqual([]);
    expect(await clientRow(clientId)).toMatchObject({ userId: alice.id, lastMutationId: 1 });
  });

  /** The time each details change was made at, as the command saw it. */
  function recordMadeAt(): Date[] {
    const madeAt: Date[] = [];
    vi.spyOn(updateDetailsCommand, 'run').mockImplementation((ctx: CommandContext, args: RunArgs) => {
      madeAt.push(ctx.madeAt);
      return realRun(ctx, args);
    });
    return madeAt;
  }

  test("the time a change was made is clamped between the client's previous change and the server's now", async () => {
    const alice = await actorOf('alice@demo.local');
    const clientId = uuidv7();
    const madeAt = recordMadeAt();

    const t0 = Date.now();
    await processPush(
      db,
      flush,
      alice,
      request(clientId, [details(1, 'Future', undefined, '2999-01-01T00:00:00.000Z')]),
    );
    const t1 = Date.now();
    expect(madeAt[0]?.getTime()).toBeGreaterThanOrEqual(t0);
    expect(madeAt[0]?.getTime()).toBeLessThanOrEqual(t1);
    const firstPush = (await clientRow(clientId))?.lastChangeAt;
    expect(firstPush).toBeTruthy();

    await processPush(db, flush, alice, request(clientId, [details(2, 'Past', undefined, '2000-01-01T00:00:00.000Z')]));
    expect(madeAt[1]?.toISOString()).toBe(firstPush);

    await new Promise((resolve) => setTimeout(resolve, 5));
    const honest = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await processPush(db, flush, alice, request(clientId, [details(3, 'Honest', undefined, honest)]));
    expect(madeAt[2]?.toISOString()).toBe(honest);
  });

  test('a change made while the previous push was in flight keeps its own time, so the order stays', async () => {
    const alice = await actorOf('alice@demo.local');
    const clientId = uuidv7();
    const madeAt = recordMadeAt();
    await processPush(
      db,
      flush,
      alice,
      request(clientId, [details(1, 'Registered', undefined, new Date().toISOString())]),
    );
    // Both made before the server takes the first: the second is made after the first, before its push answers.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const first = new Date().toISOString();
    const second = new Date(Date.parse(first) + 1).toISOString();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await processPush(db, flush, alice, request(clientId, [details(2, 'First', undefined, first)]));
    await processPush(db, flush, alice, request(clientId, [details(3, 'Second', undefined, second)]));
    expect(madeAt.slice(1).map((at) => at.toISOString())).toEqual([first, second]);
  });
});
