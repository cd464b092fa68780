import fp from 'fastify-plugin';
import { inputProblem } from '@office/sync-protocol';
import { DomainError } from '../domain/errors';

/**
 * A queued write's arguments are checked by its command (runInTransaction), so one bad mutation is refused
 * on its own instead of failing, and blocking, the whole batch.
 */
const checkedPerMutation = new Set(['/api/sync/push']);

/**
 * Refuses NUL characters anywhere in a request's JSON body or query, and bodies nested deeper than any of ours,
 * as soon as the body is parsed and before any route or schema reads it (JSON.parse itself does not recurse; a
 * recursive reader after it would overflow). Path parameters are ids and stored names, which a NUL can only make
 * unknown (404).
 */
export const inputGuardPlugin = fp(
  (app, _opts, done) => {
    app.addHook('preValidation', async (request) => {
      const body = checkedPerMutation.has(request.routeOptions.url ?? '') ? undefined : request.body;
      const problem = inputProblem(body) ?? inputProblem(request.query);
      if (problem) throw new DomainError('invalid_input', problem);
    });
    done();
  },
  { name: 'input-guard' },
);
