import type { FastifyInstance } from 'fastify';
import type { ErrorBody } from '@office/sync-protocol';
import { DomainError } from '../domain/errors';
import type { IoSocket } from './types';

/** How one socket's event handlers refuse: the socket's `error` event, never a thrown error or silence. */
export function socketGuards(app: FastifyInstance, socket: IoSocket) {
  const { actor } = socket.data;

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

  /**
   * A write: it first takes one request of the person's allowance, shared with their HTTP requests. Past it
   * the socket hears `error` with `rate_limited`, `onRefused` may answer an acknowledgement, and nothing happens.
   */
  const metered =
    <A extends unknown[]>(
      handler: (...args: A) => void | Promise<void>,
      onRefused?: (body: ErrorBody, ...args: A) => void,
    ) =>
    (...args: A): void => {
      app.requestLimiter.takeForUser(actor.id).then(
        () => guarded(handler)(...args),
        (error: unknown) => {
          const body = refuse(error);
          onRefused?.(body, ...args);
        },
      );
    };

  return { refuse, guarded, metered };
}
