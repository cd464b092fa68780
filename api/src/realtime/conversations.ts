import { and, eq, isNull } from 'drizzle-orm';
import { z } from 'zod';
import { idSchema, rooms, uuidv7, type ClientToServerEvents } from '@office/sync-protocol';
import { directMessages, users } from '../db/schema';
import { runCommand } from '../domain/commands';
import { DomainError, parseInput } from '../domain/errors';
import { markReadCommand, requireParticipation, sendDirectCommand } from '../domain/direct/commands';
import { listConversationsOf } from '../domain/direct/read';
import type { FastifyInstance } from 'fastify';
import { socketGuards } from './socket-guards';
import type { IoSocket } from './types';

const conversationRefSchema = z.object({ conversationId: idSchema });
/** The spec names only the conversation id: a bare id is read as `{ conversationId }`. */
const conversationNamedSchema = z.preprocess(
  (payload) => (typeof payload === 'string' ? { conversationId: payload } : payload),
  conversationRefSchema,
);
type SendMessageArgs = Parameters<ClientToServerEvents['send-message']>;
const markReadRefSchema = conversationRefSchema.extend({ messageId: idSchema });

/**
 * The direct-message events of spec section 7 on one socket. Every event checks that the user takes part
 * in the conversation; a refusal answers the socket's `error` event (and the acknowledgement, when asked).
 */
export function handleConversationEvents(app: FastifyInstance, socket: IoSocket): void {
  const { actor } = socket.data;
  const { refuse, guarded } = socketGuards(app, socket);
  /** The conversation a payload names, once the user is known to take part in it. */
  const participation = async (payload: unknown): Promise<string> => {
    const { conversationId } = parseInput(conversationNamedSchema, payload);
    await requireParticipation(app.db, actor, conversationId);
    return conversationId;
  };
  socket.on(
    'join-conversations',
    guarded(async () => {
      const list = await listConversationsOf(app.db, actor.id);
      void socket.join(list.map((c) => rooms.conversation(c.id)));
    }),
  );
  socket.on(
    'join-conversation',
    guarded(async (payload) => {
      void socket.join(rooms.conversation(await participation(payload)));
    }),
  );
  socket.on(
    'leave-conversation',
    guarded((payload) => {
      const { conversationId } = parseInput(conversationNamedSchema, payload);
      void socket.leave(rooms.conversation(conversationId));
    }),
  );
  socket.on(
    'send-message',
    guarded<SendMessageArgs>(async (payload, ack) => {
      try {
        const { id, ...args } =
          typeof payload === 'object' && payload !== null ? payload : ({} as Partial<typeof payload>);
        const message = await runCommand(app.db, app.flush, actor, sendDirectCommand, { ...args, id: id ?? uuidv7() });
        // Acknowledged once on disk, as an HTTP write is.
        if (typeof ack === 'function') void app.durable().then(() => ack({ message }));
      } catch (error) {
        const body = refuse(error);
        if (typeof ack === 'function') ack({ error: { code: body.code, message: body.message } });
      }
    }),
  );
  const typing = (isTyping: boolean) =>
    guarded(async (payload: unknown) => {
      const conversationId = await participation(payload);
      const others = socket.to(rooms.conversation(conversationId));
      if (!isTyping) {
        others.emit('stop-typing', { userId: actor.id, conversationId });
        return;
      }
      const [user] = await app.db.select({ name: users.name }).from(users).where(eq(users.id, actor.id));
      others.emit('user-typing', { userId: actor.id, userName: user?.name ?? 'Someone', conversationId });
    });
  socket.on('typing-start', typing(true));
  socket.on('typing-stop', typing(false));
  socket.on(
    'mark-message-read',
    guarded(async (payload) => {
      const { conversationId, messageId } = parseInput(markReadRefSchema, payload);
      await requireParticipation(app.db, actor, conversationId);
      const [message] = await app.db
        .select({ createdAt: directMessages.createdAt })
        .from(directMessages)
        .where(
          and(
            eq(directMessages.id, messageId),
            eq(directMessages.conversationId, conversationId),
            isNull(directMessages.deletedAt),
          ),
        );
      if (!message) throw new DomainError('message_not_found');
      await runCommand(app.db, app.flush, actor, markReadCommand, {
        conversationId,
        messageId,
        through: message.createdAt,
      });
    }),
  );
}
