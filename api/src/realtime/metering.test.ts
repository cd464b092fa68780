import { describe, expect, test, vi } from 'vitest';
import { conversationIdFor, rooms, type ErrorBody } from '@office/sync-protocol';
import { useSeededServer } from '../../test/api-client';
import { bearer, recordEvents } from '../../test/support';

const PER_USER = 200;

// The limits are off in other test files (one test process is many people on one IP); on here.
const { server, registerEmployee } = useSeededServer({ config: { rateLimitPerUser: PER_USER } });

const rateLimited = {
  code: 'rate_limited',
  message: 'Too many requests. Please wait a minute and try again.',
} satisfies ErrorBody;

describe('every socket event is metered', () => {
  test('joins and leaves take from the allowance HTTP shares: 400 joins in a burst stop at it with rate_limited errors', async () => {
    const joiner = await registerEmployee('Jo Joiner');
    const other = await registerEmployee('Otto Other');
    const started = await server.app.inject({
      method: 'POST',
      url: '/api/direct-messages/conversations',
      headers: bearer(joiner.token),
      payload: { recipientId: other.user.id },
    });
    expect(started.statusCode).toBe(201);
    const conversationId = conversationIdFor(joiner.user.id, other.user.id);
    const socket = await server.connect(joiner.token);
    const errors = recordEvents(socket, 'error');

    for (let i = 0; i < 400; i++) socket.emit('join-conversation', { conversationId });

    // One HTTP request (starting the conversation) came out of the same minute's allowance.
    const refused = 400 - (PER_USER - 1);
    await vi.waitFor(() => expect(errors).toHaveLength(refused), { timeout: 10_000 });
    expect(errors.every((error) => error.code === 'rate_limited')).toBe(true);
    // The joins within the allowance did join.
    const inRoom = await server.app.realtime.io.in(rooms.conversation(conversationId)).fetchSockets();
    expect(inRoom.map((joined) => joined.data.actor.id)).toEqual([joiner.user.id]);

    // Joining them all, leaving, and an event nobody handles are metered too; HTTP finds the allowance spent.
    socket.emit('join-conversations');
    socket.emit('leave-conversation', { conversationId });
    (socket.emit as (event: string) => void)('made-up-event');
    await vi.waitFor(() => expect(errors).toHaveLength(refused + 3));
    expect(errors.slice(-3)).toEqual([rateLimited, rateLimited, rateLimited]);
    const me = await server.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(joiner.token) });
    expect(me.statusCode).toBe(429);
  });
});
