import fp from 'fastify-plugin';
import type { FastifyError } from 'fastify';
import { errorCatalogue, type ErrorBody, type ErrorCode } from '@office/sync-protocol';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { DomainError, invalidInput } from '../domain/errors';

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

function codeForStatus(status: number): ErrorCode {
  if (status === 401) return 'unauthenticated';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 413) return 'payload_too_large';
  if (status === 415) return 'unsupported_media_type';
  if (status === 429) return 'rate_limited';
  return 'invalid_input';
}

/** One place turns every failure into `{ code, message }`; nothing unexpected leaks a stack trace. */
export const errorHandlerPlugin = fp<{ spaFallback: boolean }>(
  (app, { spaFallback }, done) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      // A route's declared schema refused the request (fastify-type-provider-zod): the same answer as parseInput.
      if (hasZodFastifySchemaValidationErrors(error)) {
        const details = error.validation.map((issue) => ({
          path: issue.instancePath.replace(/^\//, '').replaceAll('/', '.'),
          message: issue.message ?? errorCatalogue.invalid_input.message,
        }));
        const refusal = invalidInput(details);
        return reply.status(refusal.status).send(refusal.toBody());
      }
      if (error instanceof DomainError) {
        if (error.retryAfterSeconds !== undefined) reply.header('Retry-After', String(error.retryAfterSeconds));
        return reply.status(error.status).send(error.toBody());
      }
      if (error instanceof SyntaxError) return reply.status(400).send(bodyOf('malformed_json'));
      const mapped = error.code ? fastifyCodes[error.code] : undefined;
      if (mapped) return reply.status(errorCatalogue[mapped].status).send(bodyOf(mapped));
      const status = error.statusCode ?? 500;
      if (status >= 400 && status < 500) return reply.status(status).send(bodyOf(codeForStatus(status)));
      request.log.error({ err: error }, 'unhandled error');
      return reply.status(500).send(bodyOf('internal'));
    });
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
