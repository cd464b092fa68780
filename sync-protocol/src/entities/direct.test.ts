/// <reference types="node" />
import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { idSchema, uuidv7 } from '../ids';
import { conversationIdFor, isUnreadBy, lastReadAtOf, readByOf, type Conversation, type DirectMessage } from './direct';

const alice = '01890000-0000-7000-8000-00000000000a';
const bob = '01890000-0000-7000-8000-00000000000b';
const carol = '01890000-0000-7000-8000-00000000000c';

describe('conversationIdFor', () => {
  test('is the same whichever participant starts the conversation', () => {
    expect(conversationIdFor(alice, bob)).toBe(conversationIdFor(bob, alice));
    for (let i = 0; i < 20; i++) {
      const [a, b] = [uuidv7(), uuidv7()];
      expect(conversationIdFor(a, b)).toBe(conversationIdFor(b, a));
    }
  });

  test('is deterministic: the same pair always gives the same id, on any device', () => {
    const first = conversationIdFor(alice, bob);
    expect(conversationIdFor(alice, bob)).toBe(first);
    // Independently computed: SHA-256 of the ordered pair, with the UUID version and variant bits set.
    const digest = createHash('sha256').update(`conversation:${alice}:${bob}`).digest().subarray(0, 16);
    digest[6] = ((digest[6] ?? 0) & 0x0f) | 0x80;
    digest[8] = ((digest[8] ?? 0) & 0x3f) | 0x80;
    const h = digest.toString('hex');
    expect(first).toBe(`${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`);
  });

  test('is a valid id: a lower-case UUID of version 8 with the RFC variant', () => {
    for (const [a, b] of [
      [alice, bob],
      [bob, carol],
      [uuidv7(), uuidv7()],
    ] as const) {
      const id = conversationIdFor(a, b);
      expect(idSchema.safeParse(id).success).toBe(true);
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(id[14]).toBe('8');
    }
  });

  test('differs for different pairs, and from the ids of the participants', () => {
    const ids = [conversationIdFor(alice, bob), conversationIdFor(alice, carol), conversationIdFor(bob, carol)];
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect([alice, bob, carol]).not.toContain(id);
    const many = Array.from({ length: 200 }, () => conversationIdFor(uuidv7(), uuidv7()));
    expect(new Set(many).size).toBe(200);
  });
});

describe('read markers', () => {
  const participant = (id: string, lastReadAt: string | null) => ({
    _id: id,
    id,
    name: id === alice ? 'Alice' : 'Bob',
    avatar: null,
    role: 'employee' as const,
    lastReadAt,
  });
  const conversationWith = (aliceRead: string | null, bobRead: string | null): Pick<Conversation, 'participants'> => ({
    participants: [participant(alice, aliceRead), participant(bob, bobRead)],
  });
  const message = (senderId: string, createdAt: string): DirectMessage => ({
    _id: '01890000-0000-7000-8000-0000000000ff',
    id: '01890000-0000-7000-8000-0000000000ff',
    conversationId: conversationIdFor(alice, bob),
    participantIds: [alice, bob],
    sender: { _id: senderId, id: senderId, name: 'Sender', avatar: null },
    content: 'Hi',
    text: 'Hi',
    createdAt,
    attachments: [],
    reactions: [],
    version: 1,
  });
  const at = '2025-03-01T10:00:00.000Z';
  const before = '2025-03-01T09:59:59.999Z';
  const after = '2025-03-01T10:00:00.001Z';

  test('lastReadAtOf answers the participant marker, null for no marker or a non-participant', () => {
    const conversation = conversationWith(at, null);
    expect(lastReadAtOf(conversation, alice)).toBe(at);
    expect(lastReadAtOf(conversation, bob)).toBeNull();
    expect(lastReadAtOf(conversation, carol)).toBeNull();
  });

  test('isUnreadBy: own messages are never unread; others are unread until the marker reaches them', () => {
    const fromAlice = message(alice, at);
    expect(isUnreadBy(fromAlice, conversationWith(null, null), alice)).toBe(false);
    expect(isUnreadBy(fromAlice, conversationWith(null, null), bob)).toBe(true);
    expect(isUnreadBy(fromAlice, conversationWith(null, before), bob)).toBe(true);
    expect(isUnreadBy(fromAlice, conversationWith(null, at), bob)).toBe(false);
    expect(isUnreadBy(fromAlice, conversationWith(null, after), bob)).toBe(false);
    // Alice's own marker says nothing about Bob.
    expect(isUnreadBy(fromAlice, conversationWith(after, null), bob)).toBe(true);
  });

  test('readByOf: the other participant once their marker reaches the message, never the sender', () => {
    const fromAlice = message(alice, at);
    expect(readByOf(fromAlice, conversationWith(null, null))).toEqual([]);
    expect(readByOf(fromAlice, conversationWith(after, before))).toEqual([]);
    expect(readByOf(fromAlice, conversationWith(after, at))).toEqual([{ userId: bob, readAt: at }]);
    expect(readByOf(fromAlice, conversationWith(null, after))).toEqual([{ userId: bob, readAt: after }]);
    const fromBob = message(bob, at);
    expect(readByOf(fromBob, conversationWith(after, after))).toEqual([{ userId: alice, readAt: after }]);
  });
});
