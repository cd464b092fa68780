import fp from 'fastify-plugin';
import { PROTOCOL_VERSION, protocolVersionHeader } from '@office/sync-protocol';
import { DomainError } from '../domain/errors';

/**
 * Whether a client's announced protocol version is the one this server speaks. A client that announces
 * none (one written from the spec, a script) is taken at its word: only our PWA announces one.
 */
export const speaksOurProtocol = (announced: unknown): boolean =>
  announced === undefined ||
  ((typeof announced === 'string' || typeof announced === 'number') && String(announced) === String(PROTOCOL_VERSION));

/** An API call from a client built for another protocol version is answered 409 `client_outdated`. */
export const protocolVersionPlugin = fp(
  (app, _opts, done) => {
    app.addHook('onRequest', async (request) => {
      if (request.url.startsWith('/api/') && !speaksOurProtocol(request.headers[protocolVersionHeader])) {
        throw new DomainError('client_outdated');
      }
    });
    done();
  },
  { name: 'protocol-version' },
);
