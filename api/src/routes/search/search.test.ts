import { describe, expect, test } from 'vitest';
import {
  searchResponseSchema,
  type ChatMessage,
  type DirectMessage,
  type SearchHit,
  type SearchResponse,
  type Task,
} from '@office/sync-protocol';
import { expectRefusal, useSeededServer, type Session } from '../../../test/api-client';
import { inDays } from '../../../test/support';
import { readablePosition } from '../../db/change-feed';
import { compactChangeLog } from '../../domain/sync/pull';

// Issue 46: the server's full-text search of history a device may not hold. It finds team chat, the searcher's own
// direct messages and the tasks they may see (the same audience as a pull), pages, and refuses bad input. The same
// file runs on PostgreSQL (api-pg).

const { server, people, call } = useSeededServer();

let words = 0;
/** A word no other test uses, so each test reads only its own rows. */
const uniqueWord = (stem: string) => `${stem}${++words}q${Date.now().toString(36)}`;

async function search(session: Session, query: Record<string, string | number>): Promise<SearchResponse> {
  const res = await call<SearchResponse>(
    session,
    'GET',
    `/api/search?${new URLSearchParams(stringified(query)).toString()}`,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return searchResponseSchema.parse(res.body);
}

const stringified = (query: Record<string, string | number>) =>
  Object.fromEntries(Object.entries(query).map(([key, value]) => [key, String(value)]));

const hitsOf = (answer: SearchResponse, kind: SearchHit['kind']) =>
  answer.groups.find((group) => group.kind === kind)?.hits ?? [];
const marked = (parts: { text: string; match: boolean }[] | null) =>
  (parts ?? []).filter((part) => part.match).map((part) => part.text);

async function chat(session: Session, text: string): Promise<ChatMessage> {
  const res = await call<{ message: ChatMessage }>(session, 'POST', '/api/messages', { text });
  expect(res.status).toBe(201);
  return res.body.message;
}

async function direct(from: Session, to: Session, text: string): Promise<DirectMessage> {
  const started = await call<{ conversation: { id: string } }>(from, 'POST', '/api/direct-messages/conversations', {
    recipientId: to.user.id,
  });
  const res = await call<{ message: DirectMessage }>(
    from,
    'POST',
    `/api/direct-messages/conversations/${started.body.conversation.id}/messages`,
    { text },
  );
  expect(res.status).toBe(201);
  return res.body.message;
}

async function task(fields: { title: string; description?: string; assignee: Session }): Promise<Task> {
  const res = await call<{ task: Task }>(people.manager, 'POST', '/api/tasks', {
    title: fields.title,
    description: fields.description ?? '',
    assignedTo: fields.assignee.user.id,
    dueDate: inDays(3),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.task;
}

describe('GET /api/search', () => {
  test('finds team chat messages, newest first, with the matched words marked as text', async () => {
    const word = uniqueWord('budget');
    const older = await chat(people.alice, `The ${word} is approved`);
    const newer = await chat(people.bob, `Who owns the ${word.toUpperCase()}? <b>ask</b> me`);
    await chat(people.bob, 'Nothing to see here');

    const answer = await search(people.carol, { q: word });
    const hits = hitsOf(answer, 'chat');
    expect(hits.map((hit) => hit.id)).toEqual([newer.id, older.id]);
    expect(hits[0]).toMatchObject({ kind: 'chat', author: { id: people.bob.user.id, name: 'Bob Smith' } });
    if (hits[0]?.kind !== 'chat') throw new Error('not a chat hit');
    expect(marked(hits[0].snippet)).toEqual([word.toUpperCase()]);
    // Markup in a message is text like any other: nothing in the answer is HTML.
    expect(hits[0].snippet.map((part) => part.text).join('')).toBe(`Who owns the ${word.toUpperCase()}? <b>ask</b> me`);
    expect(answer.groups.map((group) => group.kind)).toEqual(['task', 'chat', 'direct']);
  });

  test('every word must match, the last one being typed also as a prefix; accents and case do not matter', async () => {
    const word = uniqueWord('forecast');
    const both = await chat(people.alice, `Résumé of the ${word} meeting`);
    await chat(people.alice, `The ${word} alone`);

    const prefix = await search(people.bob, { q: `resume ${word.slice(0, -3)}` });
    expect(hitsOf(prefix, 'chat').map((hit) => hit.id)).toEqual([both.id]);
    const hit = hitsOf(prefix, 'chat')[0];
    if (hit?.kind !== 'chat') throw new Error('not a chat hit');
    expect(marked(hit.snippet)).toEqual(['Résumé', word]);
    expect(hitsOf(await search(people.bob, { q: `${word} nowhere` }), 'chat')).toEqual([]);
  });

  test('an edited message is found by its new words, a deleted one not at all', async () => {
    const before = uniqueWord('draft');
    const after = uniqueWord('final');
    const edited = await chat(people.alice, `The ${before} text`);
    const deleted = await chat(people.alice, `Gone ${after}`);
    expect((await call(people.alice, 'PUT', `/api/messages/${edited.id}`, { text: `The ${after} text` })).status).toBe(
      200,
    );
    expect((await call(people.alice, 'DELETE', `/api/messages/${deleted.id}`)).status).toBe(200);

    expect(hitsOf(await search(people.bob, { q: before }), 'chat')).toEqual([]);
    expect(hitsOf(await search(people.bob, { q: after }), 'chat').map((hit) => hit.id)).toEqual([edited.id]);
  });

  test('finds the searcher’s own direct messages and never another pair’s', async () => {
    const word = uniqueWord('salary');
    const theirs = await direct(people.alice, people.bob, `About the ${word} review`);
    const carols = await direct(people.carol, people.alice, `My ${word} question`);

    const alice = hitsOf(await search(people.alice, { q: word }), 'direct');
    expect(alice.map((hit) => hit.id)).toEqual([carols.id, theirs.id]);
    expect(alice[1]).toMatchObject({
      conversationId: theirs.conversationId,
      with: { id: people.bob.user.id, name: 'Bob Smith' },
      sender: { id: people.alice.user.id },
    });
    expect(hitsOf(await search(people.bob, { q: word }), 'direct').map((hit) => hit.id)).toEqual([theirs.id]);
    expect(hitsOf(await search(people.carol, { q: word }), 'direct').map((hit) => hit.id)).toEqual([carols.id]);
    // Not even a manager reads other people's direct messages.
    expect(hitsOf(await search(people.manager, { q: word }), 'direct')).toEqual([]);
  });

  test('finds tasks by title, description or comment, only those the searcher may see', async () => {
    const word = uniqueWord('audit');
    const byTitle = await task({ title: `Quarterly ${word}`, assignee: people.alice });
    const byDescription = await task({ title: 'Plan', description: `Prepare the ${word} files`, assignee: people.bob });
    const byComment = await task({ title: 'Review', assignee: people.alice });
    const commented = await call(people.alice, 'POST', `/api/tasks/${byComment.id}/comments`, {
      text: `Waiting for the ${word} numbers`,
    });
    expect(commented.status).toBe(201);

    const alice = hitsOf(await search(people.alice, { q: word }), 'task');
    expect(alice.map((hit) => hit.id)).toEqual([byComment.id, byTitle.id]);
    expect(alice[0]).toMatchObject({ status: 'pending', commentBy: 'Alice Johnson' });
    if (alice[0]?.kind !== 'task' || alice[1]?.kind !== 'task') throw new Error('not task hits');
    expect(marked(alice[0].detail)).toEqual([word]);
    expect(marked(alice[1].title)).toEqual([word]);
    expect(alice[1].detail).toBeNull();
    // Bob's task is not Alice's to see, nor Alice's his; Carol sees none; the manager sees all three.
    expect(hitsOf(await search(people.bob, { q: word }), 'task').map((hit) => hit.id)).toEqual([byDescription.id]);
    expect(hitsOf(await search(people.carol, { q: word }), 'task')).toEqual([]);
    expect(hitsOf(await search(people.manager, { q: word }), 'task').map((hit) => hit.id)).toEqual([
      byComment.id,
      byDescription.id,
      byTitle.id,
    ]);
  });

  test('a reassigned task is found by its new assignee and no longer by the former one', async () => {
    const word = uniqueWord('handover');
    const moved = await task({ title: `The ${word}`, assignee: people.alice });
    expect(hitsOf(await search(people.alice, { q: word }), 'task')).toHaveLength(1);
    const res = await call(people.manager, 'PUT', `/api/tasks/${moved.id}`, { assignedTo: people.carol.user.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(hitsOf(await search(people.alice, { q: word }), 'task')).toEqual([]);
    expect(hitsOf(await search(people.carol, { q: word }), 'task').map((hit) => hit.id)).toEqual([moved.id]);
  });

  test('pages one kind with its `next` cursor, newest first, each hit once', async () => {
    const word = uniqueWord('sprint');
    const sent: string[] = [];
    for (let n = 1; n <= 5; n++) sent.push((await chat(people.alice, `${word} update ${n}`)).id);
    const newestFirst = [...sent].reverse();

    const first = await search(people.bob, { q: word, limit: 2 });
    const chatGroup = first.groups.find((group) => group.kind === 'chat');
    expect(chatGroup?.hits.map((hit) => hit.id)).toEqual(newestFirst.slice(0, 2));
    const seen = [...(chatGroup?.hits ?? [])];
    let next = chatGroup?.next ?? null;
    while (next !== null) {
      const page = await search(people.bob, { q: word, kind: 'chat', before: next, limit: 2 });
      expect(page.groups.map((group) => group.kind)).toEqual(['chat']);
      seen.push(...(page.groups[0]?.hits ?? []));
      next = page.groups[0]?.next ?? null;
    }
    expect(seen.map((hit) => hit.id)).toEqual(newestFirst);
  });

  test('what compaction drops from the change log is in the index first: nothing written is lost to search', async () => {
    const word = uniqueWord('archive');
    const kept = await chat(people.alice, `The ${word} of last year`);
    await compactChangeLog(server.app.db, await readablePosition(server.app.db));
    expect(hitsOf(await search(people.bob, { q: word }), 'chat').map((hit) => hit.id)).toEqual([kept.id]);
  });

  test('refuses bad input with the error shape: 400 invalid_input', async () => {
    const refused = async (query: string) => {
      const res = await call(people.alice, 'GET', `/api/search?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body, query).toMatchObject({ code: 'invalid_input' });
      expect(typeof (res.body as { message?: unknown }).message, query).toBe('string');
      return res;
    };
    await refused('');
    await refused('q=');
    await refused(`q=${encodeURIComponent('?! …')}`);
    await refused(`q=${'a'.repeat(201)}`);
    await refused('q=budget&limit=51');
    await refused('q=budget&limit=0');
    await refused('q=budget&kind=notes');
    await refused('q=budget&before=12');
    expectRefusal(
      await refused('q=budget&kind=chat&before=not%20a%20cursor'),
      400,
      'invalid_input',
      'Use the `next` value of a previous answer',
    );
    // A cursor of the right form the server never gave (another dialect's, say) is refused as well.
    await refused(`q=budget&kind=chat&before=${encodeURIComponent('2026-01-01T00:00:00.000Z|x')}`);
    expect((await call(null, 'GET', '/api/search?q=budget')).status).toBe(401);
  });
});
