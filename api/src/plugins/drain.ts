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
  }
}

const POLL_MS = 20;
/** What a 503 asks callers to wait: about as long as a restart takes. */
const RETRY_AFTER_SECONDS = '5';

export const drainPlugin = fp(
  (app, _options, done) => {
    const inFlight = new Set<FastifyRequest>();
    let draining = false;

    app.addHook('onRequest', async (request, reply) => {
      if (draining) {
        reply.header('Retry-After', RETRY_AFTER_SECONDS).header('Connection', 'close');
        throw new DomainError('unavailable');
      }
      inFlight.add(request);
    });
    app.addHook('onResponse', async (request) => {
      inFlight.delete(request);
    });
    app.addHook('onRequestAbort', async (request) => {
      inFlight.delete(request);
    });

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
