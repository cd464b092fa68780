import type { z } from 'zod';
import {
  PROTOCOL_VERSION,
  clientErrorMessages,
  errorCatalogue,
  limits,
  protocolVersionHeader,
  type ClientErrorCode,
  type ErrorCode,
} from '@office/sync-protocol';
import { getStoredToken, removeStoredToken } from '../app/auth/session-storage';
import { markClientOutdated } from '../app/client-outdated';

/** Base path of every API call (spec section 7). */
export const apiBasePath = '/api';

/** A code from the server's catalogue, or a client-side one (network, timeout, ...). */
export type ApiErrorCode = ErrorCode | ClientErrorCode;

/** Every failed call ends here: an HTTP error (`status` > 0) or a client-side one (`status` 0). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  /** Stable code; a server may send one this client does not know yet, so any string is kept. */
  readonly code: ApiErrorCode | (string & {});
  readonly details: readonly { path: string; message: string }[] | undefined;
  /**
   * The sentence the server itself sent, or null when its answer had none (a proxy's page, an empty
   * body, or no answer at all): the spec's fallbacks apply exactly then ("the server's message, or ...").
   */
  readonly serverMessage: string | null;

  constructor(
    status: number,
    code: ApiErrorCode | (string & {}),
    message: string,
    details?: readonly { path: string; message: string }[],
    serverMessage: string | null = null,
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.serverMessage = serverMessage;
  }
}

/** The server's own sentence in a failure, or the spec's fallback when it sent none. */
export const serverMessageOr = (error: unknown, fallback: string): string =>
  error instanceof ApiError && error.serverMessage?.trim() ? error.serverMessage : fallback;

/** Whether the error came from the client side (no answer from the server). */
export const isNetworkError = (error: unknown): boolean =>
  error instanceof ApiError && (error.code === 'network' || error.code === 'timeout');

/** What the app does when a call answers 401; `code` tells why (`password_reset`: reset by a manager or admin). */
type UnauthorizedHandler = (code: string) => void;
let unauthorizedHandler: UnauthorizedHandler | null = null;
let passwordChangeHandler: (() => void) | null = null;

/**
 * Registers what the app does when a call answers 401 (after the token is removed).
 * Returns a function that unregisters it. Without a handler the page goes to /login.
 */
export function onUnauthorized(handler: UnauthorizedHandler): () => void {
  unauthorizedHandler = handler;
  return () => {
    if (unauthorizedHandler === handler) {
      unauthorizedHandler = null;
    }
  };
}

function handleUnauthorized(code: string): void {
  removeStoredToken();
  if (unauthorizedHandler) {
    unauthorizedHandler(code);
  } else {
    window.location.assign('/login');
  }
}

/**
 * Registers what the app does when the server refuses a call until the person chooses a new password (403
 * `password_change_required`: they signed in with a one-time code). Returns a function that unregisters it.
 */
export function onPasswordChangeRequired(handler: () => void): () => void {
  passwordChangeHandler = handler;
  return () => {
    if (passwordChangeHandler === handler) passwordChangeHandler = null;
  };
}

export interface RequestOptions {
  /** Extra headers; they win over the defaults. */
  headers?: Record<string, string> | undefined;
  /** Cancels the call from outside; the 10 s timeout applies as well. */
  signal?: AbortSignal | undefined;
  /**
   * Whether a 401 signs the user out (default true). The sign-in calls themselves pass false:
   * their 401 means "wrong credentials", not "session over".
   */
  signOutOnUnauthorized?: boolean | undefined;
  /** Overrides the default timeout (`limits.httpTimeoutMs`). */
  timeoutMs?: number | undefined;
  /** The sync-protocol schema the answer must match: a malformed answer is an ApiError `bad_answer`, never a cast. */
  answer?: z.ZodType | undefined;
}

/** Options whose `answer` schema types the result. */
type Parsed<S extends z.ZodType> = RequestOptions & { answer: S };

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

function isErrorBody(value: unknown): value is { code: string; message: string; details?: unknown } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { code?: unknown }).code === 'string' &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204) {
    return undefined;
  }
  const text = await response.text();
  if (text === '') {
    return undefined;
  }
  const type = response.headers.get('content-type') ?? '';
  if (!type.includes('json')) {
    return text;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function errorFromResponse(status: number, body: unknown): ApiError {
  if (isErrorBody(body)) {
    const details = Array.isArray(body.details) ? (body.details as { path: string; message: string }[]) : undefined;
    return new ApiError(status, body.code, body.message, details, body.message);
  }
  // No catalogue body: a proxy or a gateway answered. Keep the status, name it generically.
  const code: ErrorCode =
    status === 401
      ? 'unauthenticated'
      : status === 502 || status === 503 || status === 504
        ? 'unavailable'
        : 'internal';
  return new ApiError(status, code, errorCatalogue[code].message);
}

/** One call to the API. Resolves with the parsed JSON body, rejects with an ApiError. */
export async function request<T>(
  method: Method,
  path: string,
  body?: unknown,
  options: RequestOptions = {},
): Promise<T> {
  const headers: Record<string, string> = {
    Accept: 'application/json',
    [protocolVersionHeader]: String(PROTOCOL_VERSION),
  };
  const isFormData = typeof FormData !== 'undefined' && body instanceof FormData;
  let payload: BodyInit | undefined;
  if (body !== undefined) {
    if (isFormData) {
      // The browser sets the multipart boundary itself.
      payload = body;
    } else {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(body);
    }
  }
  const token = getStoredToken();
  if (token) {
    headers.Authorization = `Bearer ${token}`;
  }
  Object.assign(headers, options.headers);

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs ?? limits.httpTimeoutMs);
  const outerSignal = options.signal;
  const abortFromOutside = (): void => controller.abort();
  outerSignal?.addEventListener('abort', abortFromOutside, { once: true });

  let response: Response;
  try {
    const init: RequestInit = { method, headers, signal: controller.signal, credentials: 'same-origin' };
    if (payload !== undefined) {
      init.body = payload;
    }
    response = await fetch(`${apiBasePath}${path}`, init);
  } catch (error) {
    if (outerSignal?.aborted && !timedOut) {
      throw error;
    }
    if (timedOut) {
      throw new ApiError(0, 'timeout', clientErrorMessages.timeout);
    }
    throw new ApiError(0, 'network', clientErrorMessages.network);
  } finally {
    clearTimeout(timer);
    outerSignal?.removeEventListener('abort', abortFromOutside);
  }

  let parsed: unknown;
  try {
    parsed = await readBody(response);
  } catch {
    // The connection dropped while the body was streaming.
    throw new ApiError(0, 'network', clientErrorMessages.network);
  }

  if (!response.ok) {
    const failure = errorFromResponse(response.status, parsed);
    // A 401 for a token that has since been replaced (another sign-in in this browser) ends nothing.
    if (response.status === 401 && options.signOutOnUnauthorized !== false && getStoredToken() === token) {
      handleUnauthorized(failure.code);
    }
    if (failure.code === 'password_change_required' && getStoredToken() === token) passwordChangeHandler?.();
    // This build no longer speaks the server's protocol: offer the new version (queued writes stay queued).
    if (failure.code === 'client_outdated') markClientOutdated();
    throw failure;
  }
  if (!options.answer) return parsed as T;
  const checked = options.answer.safeParse(parsed);
  if (!checked.success) throw new ApiError(response.status, 'bad_answer', clientErrorMessages.bad_answer);
  // The answer matched the schema the caller typed T with (see the overloads of `api`).
  return checked.data as T;
}

function get<S extends z.ZodType>(path: string, options: Parsed<S>): Promise<z.output<S>>;
function get<T>(path: string, options?: RequestOptions): Promise<T>;
function get(path: string, options?: RequestOptions): Promise<unknown> {
  return request('GET', path, undefined, options);
}
function post<S extends z.ZodType>(path: string, body: unknown, options: Parsed<S>): Promise<z.output<S>>;
function post<T>(path: string, body?: unknown, options?: RequestOptions): Promise<T>;
function post(path: string, body?: unknown, options?: RequestOptions): Promise<unknown> {
  return request('POST', path, body, options);
}
function put<S extends z.ZodType>(path: string, body: unknown, options: Parsed<S>): Promise<z.output<S>>;
function put<T>(path: string, body?: unknown, options?: RequestOptions): Promise<T>;
function put(path: string, body?: unknown, options?: RequestOptions): Promise<unknown> {
  return request('PUT', path, body, options);
}
function patch<S extends z.ZodType>(path: string, body: unknown, options: Parsed<S>): Promise<z.output<S>>;
function patch<T>(path: string, body?: unknown, options?: RequestOptions): Promise<T>;
function patch(path: string, body?: unknown, options?: RequestOptions): Promise<unknown> {
  return request('PATCH', path, body, options);
}
function del<S extends z.ZodType>(path: string, options: Parsed<S>): Promise<z.output<S>>;
function del<T>(path: string, options?: RequestOptions): Promise<T>;
function del(path: string, options?: RequestOptions): Promise<unknown> {
  return request('DELETE', path, undefined, options);
}

/**
 * Small helpers over `request`, paths relative to /api. With an `answer` schema the result is parsed and typed
 * by it: `api.get('/auth/me', { answer: meResponseSchema })`.
 */
export const api = { get, post, put, patch, delete: del };
