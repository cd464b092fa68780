import { errorCatalogue, type ErrorBody, type ErrorCode } from '@office/sync-protocol';
import type { z } from 'zod';

/** A refusal the caller caused: it maps to a 4xx and, inside a push, to a `rejected` outcome. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorBody['details'];
  /** Sent as the Retry-After header (whole seconds) of a 429 or 503. */
  retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message?: string, details?: ErrorBody['details']) {
    super(message ?? errorCatalogue[code].message);
    this.code = code;
    this.details = details;
  }

  /** The same refusal, telling the caller how long to wait. */
  retryAfter(ms: number): this {
    this.retryAfterSeconds = Math.max(1, Math.ceil(ms / 1000));
    return this;
  }

  get status(): number {
    return errorCatalogue[this.code].status;
  }

  toBody(): ErrorBody {
    return this.details
      ? { code: this.code, message: this.message, details: this.details }
      : { code: this.code, message: this.message };
  }
}

/** Validates input with a contract schema; the first problem's message becomes the answer's message. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  code: ErrorCode = 'invalid_input',
): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  throw invalidInput(
    result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    code,
  );
}

/** The refusal of input that failed a schema: the first problem's own sentence, or the catalogue's when it has none. */
export function invalidInput(
  details: NonNullable<ErrorBody['details']>,
  code: ErrorCode = 'invalid_input',
): DomainError {
  const first = details[0];
  const message = first && !first.message.startsWith('Invalid') ? first.message : errorCatalogue[code].message;
  return new DomainError(code, message, details);
}
