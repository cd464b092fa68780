import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errorCatalogue, type ErrorBody, type ErrorCode } from '@office/sync-protocol';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { isTransientDatabaseError } from '../db/dialect';
import { DomainError, invalidInput } from '../domain/errors';

/** What a 503 of a database that is away or out of time asks callers to wait. */
const TRANSIENT_RETRY_AFTER_SECONDS = 1;

const bodyOf = (code: ErrorCode, message?: string): ErrorBody => ({
  code,
  message: message ?? errorCatalogue[code].message,
});

/** Fastify's own client errors, by their stable codes. */
const fastifyCodes: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'malformed_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'malformed_json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_REQ_FILE_TOO_LARGE: 'payload_too_large',
  FST_FILES_LIMIT: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_input',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'unsupported_media_type',
};

/** `/mutations/0/args` as `mutations.0.args`, the way command refusals name a field. */
const dotted = (instancePath: string): string => instancePath.split('/').filter(Boolean).join('.');

function codeForStatus(status: number): ErrorCode {
  if (status === 401) return 'unauthenticated';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 413) return 'payload_too_large';
  if (status === 415) return 'unsupported_media_type';
  if (status === 429) return 'rate_limited';
  return 'invalid_input';
}

/**
 * One place turns every failure into a status and `{ code, message }` (plus Retry-After when there is a wait);
 * nothing unexpected leaks a stack trace.
 */
export function errorAnswer(
  thrown: FastifyError,
  request: FastifyRequest,
): { status: number; body: ErrorBody; retryAfterSeconds?: number } {
  // A route's declared schema refused the input: answered like a command's own validation.
  const error = hasZodFastifySchemaValidationErrors(thrown)
    ? invalidInput(
        thrown.validation.map((issue) => ({ path: dotted(issue.instancePath), message: issue.message ?? '' })),
      )
    : thrown;
  if (error instanceof DomainError) {
    const answer = { status: error.status, body: error.toBody() };
    return error.retryAfterSeconds === undefined ? answer : { ...answer, retryAfterSeconds: error.retryAfterSeconds };
  }
  if (error instanceof SyntaxError) return { status: 400, body: bodyOf('malformed_json') };
  const mapped = error.code ? fastifyCodes[error.code] : undefined;
  if (mapped) return { status: errorCatalogue[mapped].status, body: bodyOf(mapped) };
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return { status, body: bodyOf(codeForStatus(status)) };
  // The database restarting, unreachable or out of time (a node frozen or cut off held a row): nothing about the
  // request, which a client sends again.
  if (isTransientDatabaseError(error)) {
    request.log.warn({ err: error }, 'the database was away or out of time');
    return { status: 503, body: bodyOf('unavailable'), retryAfterSeconds: TRANSIENT_RETRY_AFTER_SECONDS };
  }
  request.log.error({ err: error }, 'unhandled error');
  return { status: 500, body: bodyOf('internal') };
}

/** Sends a failure as `errorAnswer` words it, with `extra` fields a route's clients expect beside the code. */
export function sendError(
  thrown: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
  extra: (body: ErrorBody) => Record<string, unknown> = () => ({}),
): FastifyReply {
  const { status, body, retryAfterSeconds } = errorAnswer(thrown, request);
  if (retryAfterSeconds !== undefined) reply.header('Retry-After', String(retryAfterSeconds));
  return reply.status(status).send({ ...extra(body), ...body });
}

export const errorHandlerPlugin = fp<{ spaFallback: boolean }>(
  (app, { spaFallback }, done) => {
    app.setErrorHandler((thrown: FastifyError, request, reply) => sendError(thrown, request, reply));
    app.setNotFoundHandler((request, reply) => {
      const path = request.url.split('?')[0] ?? '';
      const isApi = path === '/api' || path.startsWith('/api/') || path.startsWith('/socket.io');
      // Any other GET of a page (not a file) is a client-side route of the PWA.
      if (spaFallback && !isApi && request.method === 'GET' && !/\.[a-z0-9]+$/i.test(path)) {
        return reply.header('Cache-Control', 'no-cache').sendFile('index.html');
      }
      return reply.status(404).send(bodyOf('not_found', `No route for ${request.method} ${path}`));
    });
    done();
  },
  { name: 'error-handler' },
);
