import { describe, expect, test } from 'vitest';
import { and, eq } from 'drizzle-orm';
import {
  chatMessageSchema,
  compareCursors,
  conversationIdFor,
  directMessageSchema,
  directTexts,
  errorCatalogue,
  unknownReactionMessage,
  uuidv7,
  type ChatMessage,
  type DirectMessage,
} from '@office/sync-protocol';
import { chatReactions, directReactions } from '../../db/schema';
import { newestSeq } from '../../domain/change-log';
import { changesWithAudienceAfter, cursorNow, nextEventWhere, uniqueText } from '../../../test/support';
import { expectRefusal, mutation, useSeededServer, type Session } from '../../../test/api-client';

// One seeded server for the whole file; every test reacts to messages it sends itself and reads its
// expectations from the database, so the tests do not depend on each other.
const { server, people, db, call, pull, push } = useSeededServer();

const dmBase = '/api/direct-messages/conversations';
const chatReaction = (id: string, emoji: string) => `/api/messages/${id}/reactions/${encodeURIComponent(emoji)}`;
const dmReaction = (conversationId: string, id: string, emoji: string) =>
  `${dmBase}/${conversationId}/messages/${id}/reactions/${encodeURIComponent(emoji)}`;

async function sendChat(by: Session): Promise<ChatMessage> {
  const res = await call<{ message: ChatMessage }>(by, 'POST', '/api/messages', {
    id: uuidv7(),
    text: uniqueText('React to me'),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return chatMessageSchema.parse(res.body.message);
}

async function reactChat(by: Session, id: string, emoji: string, on: boolean): Promise<ChatMessage> {
  const res = await call<{ message: ChatMessage }>(by, 'PUT', chatReaction(id, emoji), { on });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return chatMessageSchema.parse(res.body.message);
}

async function sendDirect(by: Session, to: Session): Promise<DirectMessage> {
  const start = await call(by, 'POST', dmBase, { recipientId: to.user.id });
  expect([200, 201], JSON.stringify(start.body)).toContain(start.status);
  const conversationId = conversationIdFor(by.user.id, to.user.id);
  const res = await call<{ message: DirectMessage }>(by, 'POST', `${dmBase}/${conversationId}/messages`, {
    text: uniqueText('Direct'),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return directMessageSchema.parse(res.body.message);
}

const chatRows = (messageId: string) => db().select().from(chatReactions).where(eq(chatReactions.messageId, messageId));
const directRows = (messageId: string) =>
  db().select().from(directReactions).where(eq(directReactions.messageId, messageId));

describe('reactions on team chat messages', () => {
  test('a member sets a reaction on and off; the message lists who gave each emoji, earliest first', async () => {
    const message = await sendChat(people.alice);
    expect(message.reactions).toEqual([]);

    await reactChat(people.bob, message.id, '👍', true);
    await reactChat(people.carol, message.id, '🎉', true);
    const both = await reactChat(people.manager, message.id, '👍', true);
    expect(both.reactions).toEqual([
      { emoji: '👍', userIds: [people.bob.user.id, people.manager.user.id] },
      { emoji: '🎉', userIds: [people.carol.user.id] },
    ]);
    expect(await chatRows(message.id)).toHaveLength(3);

    const off = await reactChat(people.bob, message.id, '👍', false);
    expect(off.reactions).toEqual([
      { emoji: '👍', userIds: [people.manager.user.id] },
      { emoji: '🎉', userIds: [people.carol.user.id] },
    ]);
    expect(
      await db()
        .select()
        .from(chatReactions)
        .where(and(eq(chatReactions.messageId, message.id), eq(chatReactions.userId, people.bob.user.id))),
    ).toEqual([]);

    // GET /api/messages carries the reactions too.
    const list = await call<{ messages: ChatMessage[] }>(people.carol, 'GET', '/api/messages');
    expect(list.body.messages.find((m) => m.id === message.id)?.reactions).toEqual(off.reactions);
  });

  test('a reaction is one row and one change for the whole team, and setting what is already so records nothing', async () => {
    const message = await sendChat(people.alice);
    const before = await newestSeq(db());
    await reactChat(people.bob, message.id, '❤️', true);
    expect(await changesWithAudienceAfter(db(), before)).toEqual([['chatMessage', message.id, 'put', ['team']]]);
    expect(await chatRows(message.id)).toHaveLength(1);

    const afterOn = await newestSeq(db());
    const again = await reactChat(people.bob, message.id, '❤️', true);
    expect(again.reactions).toEqual([{ emoji: '❤️', userIds: [people.bob.user.id] }]);
    expect(await chatRows(message.id)).toHaveLength(1);
    expect(await newestSeq(db())).toBe(afterOn);

    await reactChat(people.bob, message.id, '❤️', false);
    const afterOff = await newestSeq(db());
    await reactChat(people.bob, message.id, '❤️', false);
    expect(await newestSeq(db())).toBe(afterOff);
    expect(await chatRows(message.id)).toEqual([]);
  });

  test('every member hears a reaction live, with the message and its reactions', async () => {
    const message = await sendChat(people.alice);
    const carolSocket = await server.connect(people.carol.token);
    const before = await cursorNow(db());
    // The message's own creation may still reach the new socket: the reaction's change comes after `before`.
    const heard = nextEventWhere(
      carolSocket,
      'sync.change',
      ({ cursor, change }) => change.id === message.id && compareCursors(cursor, before) > 0,
    );
    await reactChat(people.bob, message.id, '😂', true);
    const { change } = await heard;
    expect(change).toMatchObject({ entity: 'chatMessage', op: 'put' });
    expect(change.op === 'put' && change.entity === 'chatMessage' ? change.data.reactions : null).toEqual([
      { emoji: '😂', userIds: [people.bob.user.id] },
    ]);
  });

  test('a queued reaction replayed through sync push applies exactly once and never flips', async () => {
    const message = await sendChat(people.alice);
    const clientId = uuidv7();
    const beforeFirst = await cursorNow(db());
    const on = mutation(1, 'chat.react', { id: message.id, emoji: '😮', on: true });
    const first = await push(people.bob, clientId, [on]);
    expect(first.outcomes).toEqual([{ id: 1, status: 'applied' }]);
    const afterFirst = await newestSeq(db());

    // The same mutation again (its answer was lost): a duplicate, nothing written.
    const replay = await push(people.bob, clientId, [on]);
    expect(replay.outcomes).toEqual([{ id: 1, status: 'duplicate', original: 'applied' }]);
    expect(await newestSeq(db())).toBe(afterFirst);
    expect((await chatRows(message.id)).map((row) => [row.userId, row.emoji])).toEqual([[people.bob.user.id, '😮']]);

    // The same choice from a second device is a set, not a toggle: still on.
    const otherDevice = await push(people.bob, uuidv7(), [
      mutation(1, 'chat.react', { id: message.id, emoji: '😮', on: true }),
    ]);
    expect(otherDevice.outcomes).toEqual([{ id: 1, status: 'applied' }]);
    expect(await chatRows(message.id)).toHaveLength(1);
    expect(await newestSeq(db())).toBe(afterFirst);

    const pulled = await pull(people.carol, uuidv7(), beforeFirst);
    const put = pulled.changes.find((change) => change.id === message.id);
    expect(put?.op === 'put' && put.entity === 'chatMessage' ? put.data.reactions : null).toEqual([
      { emoji: '😮', userIds: [people.bob.user.id] },
    ]);
  });

  test('an unknown emoji is refused with the allowed ones, over REST and in a push', async () => {
    const message = await sendChat(people.alice);
    const res = await call(people.bob, 'PUT', chatReaction(message.id, '🦄'), { on: true });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_input', message: unknownReactionMessage });

    const pushed = await push(people.bob, uuidv7(), [
      mutation(1, 'chat.react', { id: message.id, emoji: 'thumbs up', on: true }),
    ]);
    expect(pushed.outcomes).toEqual([
      { id: 1, status: 'rejected', code: 'invalid_input', message: unknownReactionMessage },
    ]);
    expect(await chatRows(message.id)).toEqual([]);
  });

  test('a reaction needs to say on or off', async () => {
    const message = await sendChat(people.alice);
    const res = await call(people.bob, 'PUT', chatReaction(message.id, '👍'), {});
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'invalid_input',
      message: 'Say whether the reaction is on (true) or off (false).',
    });
  });

  test('an unknown or deleted message cannot get reactions, and deleting a message drops them', async () => {
    const unknown = await call(people.bob, 'PUT', chatReaction(uuidv7(), '👍'), { on: true });
    expectRefusal(unknown, 404, 'message_not_found', errorCatalogue.message_not_found.message);

    const message = await sendChat(people.alice);
    await reactChat(people.bob, message.id, '👍', true);
    const deleted = await call(people.alice, 'DELETE', `/api/messages/${message.id}`);
    expect(deleted.status).toBe(200);
    expect(await chatRows(message.id)).toEqual([]);
    const late = await call(people.bob, 'PUT', chatReaction(message.id, '👍'), { on: true });
    expectRefusal(late, 404, 'message_not_found', errorCatalogue.message_not_found.message);
  });

  test('reacting needs a sign-in', async () => {
    const message = await sendChat(people.alice);
    const res = await call(null, 'PUT', chatReaction(message.id, '👍'), { on: true });
    expect(res.status).toBe(401);
  });
});

describe('reactions on direct messages', () => {
  test('both participants react; the other participant hears it live and nobody else is told', async () => {
    const message = await sendDirect(people.alice, people.bob);
    const aliceSocket = await server.connect(people.alice.token);
    const before = await newestSeq(db());
    const beforeCursor = await cursorNow(db());
    // The message's own creation may still reach the new socket: the reaction's change comes after `before`.
    const heard = nextEventWhere(
      aliceSocket,
      'sync.change',
      ({ cursor, change }) => change.id === message.id && compareCursors(cursor, beforeCursor) > 0,
    );

    const res = await call<{ message: DirectMessage }>(
      people.bob,
      'PUT',
      dmReaction(message.conversationId, message.id, '❤️'),
      { on: true },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(directMessageSchema.parse(res.body.message).reactions).toEqual([
      { emoji: '❤️', userIds: [people.bob.user.id] },
    ]);
    const { change } = await heard;
    expect(change.op === 'put' && change.entity === 'directMessage' ? change.data.reactions : null).toEqual([
      { emoji: '❤️', userIds: [people.bob.user.id] },
    ]);
    // The message's audience, and only the message: the conversation is not rewritten.
    expect(await changesWithAudienceAfter(db(), before)).toEqual([
      ['directMessage', message.id, 'put', [`user:${people.alice.user.id}`, `user:${people.bob.user.id}`].sort()],
    ]);

    const carolPull = await pull(people.carol, uuidv7(), beforeCursor);
    expect(carolPull.changes.some((c) => c.id === message.id)).toBe(false);

    const mine = await call<{ message: DirectMessage }>(
      people.alice,
      'PUT',
      dmReaction(message.conversationId, message.id, '❤️'),
      { on: true },
    );
    expect(mine.body.message.reactions).toEqual([{ emoji: '❤️', userIds: [people.bob.user.id, people.alice.user.id] }]);
    expect(await directRows(message.id)).toHaveLength(2);
  });

  test('someone outside the conversation cannot react to its messages', async () => {
    const message = await sendDirect(people.alice, people.bob);
    const res = await call(people.carol, 'PUT', dmReaction(message.conversationId, message.id, '👍'), { on: true });
    expectRefusal(res, 403, 'forbidden', directTexts.notParticipant);

    const pushed = await push(people.carol, uuidv7(), [
      mutation(1, 'dm.react', { conversationId: message.conversationId, id: message.id, emoji: '👍', on: true }),
    ]);
    expect(pushed.outcomes).toEqual([
      { id: 1, status: 'rejected', code: 'forbidden', message: directTexts.notParticipant },
    ]);
    expect(await directRows(message.id)).toEqual([]);
  });

  test('a message named under another conversation of the caller is not found', async () => {
    const message = await sendDirect(people.alice, people.bob);
    await sendDirect(people.carol, people.bob);
    const elsewhere = conversationIdFor(people.carol.user.id, people.bob.user.id);
    const res = await call(people.bob, 'PUT', dmReaction(elsewhere, message.id, '👍'), { on: true });
    expectRefusal(res, 404, 'message_not_found', errorCatalogue.message_not_found.message);
  });

  test('a queued direct reaction replays exactly once, and deleting the message drops its reactions', async () => {
    const message = await sendDirect(people.alice, people.bob);
    const clientId = uuidv7();
    const on = mutation(1, 'dm.react', {
      conversationId: message.conversationId,
      id: message.id,
      emoji: '🎉',
      on: true,
    });
    expect((await push(people.bob, clientId, [on])).outcomes).toEqual([{ id: 1, status: 'applied' }]);
    expect((await push(people.bob, clientId, [on])).outcomes).toEqual([
      { id: 1, status: 'duplicate', original: 'applied' },
    ]);
    expect(await directRows(message.id)).toHaveLength(1);

    const deleted = await call(people.alice, 'DELETE', `${dmBase}/${message.conversationId}/messages/${message.id}`);
    expect(deleted.status).toBe(200);
    expect(await directRows(message.id)).toEqual([]);
  });
});
