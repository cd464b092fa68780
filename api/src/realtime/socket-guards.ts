import type { FastifyInstance } from 'fastify';
import type { ErrorBody } from '@office/sync-protocol';
import { DomainError } from '../domain/errors';
import type { IoSocket } from './types';

/** How one socket's event handlers refuse: the socket's `error` event, never a thrown error or silence. */
export function socketGuards(app: FastifyInstance, socket: IoSocket) {
  /** Tells the socket why its event was refused; returns the body it was told. */
  const refuse = (error: unknown): ErrorBody => {
    if (!(error instanceof DomainError)) app.log.error({ err: error }, 'socket event failed');
    const body = error instanceof DomainError ? error.toBody() : new DomainError('internal').toBody();
    socket.emit('error', { code: body.code, message: body.message });
    return body;
  };

  /** Runs a handler; a refusal it throws (or its promise rejects with) becomes the socket's `error` event. */
  const guarded =
    <A extends unknown[]>(handler: (...args: A) => void | Promise<void>) =>
    (...args: A): void => {
      try {
        const done = handler(...args);
        if (done) done.catch(refuse);
      } catch (error) {
        refuse(error);
      }
    };

  return { refuse, guarded };
}

/**
 * Every event a client sends (room joins and leaves, typing, presence, writes, names we do not handle) first
 * takes one request of the person's allowance, shared with their HTTP requests. Past it the socket hears
 * `error` with `rate_limited`, an acknowledgement asked for hears the same, and the event is dropped. Events
 * pass on in the order the socket sent them, even when the shared count answers out of order.
 */
export function meterEvents(app: FastifyInstance, socket: IoSocket): void {
  const { refuse } = socketGuards(app, socket);
  const { actor } = socket.data;
  let previous = Promise.resolve();
  socket.use((packet, next) => {
    const ack: unknown = packet.at(-1);
    previous = previous
      .then(() => app.requestLimiter.takeForUser(actor.id))
      .then(
        () => next(),
        (error: unknown) => {
          const body = refuse(error);
          // An acknowledgement is the last argument Socket.IO hands over, a function of one answer.
          if (typeof ack === 'function')
            (ack as (answer: unknown) => void)({ error: { code: body.code, message: body.message } });
        },
      );
  });
}
