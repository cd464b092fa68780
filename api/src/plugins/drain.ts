import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Stops taking new requests (each gets 503) and resolves once the requests in flight have
     * finished, or after `timeoutMs`. The listener stays open meanwhile, so a caller hears 503 with
     * Retry-After instead of a refused connection. Requests still running after `timeoutMs` lose
     * their connections, so that `close()`, which comes next, is not held up by a stalled client.
     */
    drain(timeoutMs: number): Promise<void>;
    /** Whether `drain` has begun: nothing new is taken from then on. */
    isDraining(): boolean;
  }
}

const POLL_MS = 20;
/** What a 503 asks callers to wait: about as long as a restart takes. */
const RETRY_AFTER_MS = 5_000;

export const drainPlugin = fp(
  (app, _options, done) => {
    /**
     * Each request in flight, with how many of its two ends are still to come: its answer is ready (onSend: its
     * handler is done) and its connection is done with it (the response's close, which comes after the answer is
     * written or once the client has gone). Fastify's onResponse does not come when the client leaves while the
     * answer is being written (fastify/fastify#6208), and a client on flaky Wi-Fi does.
     */
    const inFlight = new Map<FastifyRequest, number>();
    const reachedEnd = (request: FastifyRequest) => {
      const left = (inFlight.get(request) ?? 0) - 1;
      if (left > 0) inFlight.set(request, left);
      else inFlight.delete(request);
    };
    let draining = false;

    app.addHook('onRequest', async (request, reply) => {
      if (draining) {
        reply.header('Connection', 'close');
        throw new DomainError('unavailable').retryAfter(RETRY_AFTER_MS);
      }
      inFlight.set(request, 2);
      reply.raw.once('close', () => reachedEnd(request));
    });
    app.addHook('onSend', (request, _reply, _payload, done) => {
      reachedEnd(request);
      done();
    });
    // The client left before its request was whole: no handler runs.
    app.addHook('onRequestAbort', async (request) => {
      inFlight.delete(request);
    });

    app.decorate('isDraining', () => draining);
    app.decorate('drain', async (timeoutMs: number) => {
      draining = true;
      const deadline = Date.now() + timeoutMs;
      while (inFlight.size > 0 && Date.now() < deadline) await new Promise((wake) => setTimeout(wake, POLL_MS));
      if (inFlight.size === 0) return;
      app.log.warn(`${inFlight.size} request(s) still running after ${timeoutMs} ms; closing their connections`);
      app.server.closeAllConnections();
    });
    done();
  },
  { name: 'drain' },
);
