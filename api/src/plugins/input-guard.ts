import fp from 'fastify-plugin';
import { containsNul, nulCharacterMessage } from '@office/sync-protocol';
import { DomainError } from '../domain/errors';

/**
 * A queued write's arguments are checked by its command (runInTransaction), so one bad mutation is refused
 * on its own instead of failing, and blocking, the whole batch.
 */
const checkedPerMutation = new Set(['/api/sync/push']);

/**
 * Refuses NUL characters anywhere in a request's JSON body or query, before any route reads them. Path
 * parameters are ids and stored names, which a NUL can only make unknown (404).
 */
export const inputGuardPlugin = fp(
  (app, _opts, done) => {
    app.addHook('preValidation', async (request) => {
      const body = checkedPerMutation.has(request.routeOptions.url ?? '') ? undefined : request.body;
      if (containsNul(body) || containsNul(request.query)) {
        throw new DomainError('invalid_input', nulCharacterMessage);
      }
    });
    done();
  },
  { name: 'input-guard' },
);
