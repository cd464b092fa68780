import { z } from 'zod';

/** Stable error codes of the API, with their HTTP status and the one sentence shown to people. */
export const errorCatalogue = {
  invalid_input: { status: 400, message: 'Some fields are missing or invalid.' },
  malformed_json: { status: 400, message: 'The request body is not valid JSON.' },
  unauthenticated: { status: 401, message: 'Please sign in to continue.' },
  token_expired: { status: 401, message: 'Your session has expired. Please sign in again.' },
  invalid_credentials: { status: 401, message: 'Invalid email or password' },
  google_token_invalid: { status: 401, message: 'Google login failed' },
  password_reset: {
    status: 401,
    message: 'Your password was reset by a manager or administrator. Sign in with the one-time code they gave you.',
  },
  reset_code_used: {
    status: 401,
    message: 'This one-time code was already used. Ask your manager or administrator for a new one.',
  },
  reset_code_expired: {
    status: 401,
    message: 'This one-time code has expired. Ask your manager or administrator for a new one.',
  },
  forbidden: { status: 403, message: 'You are not allowed to do that.' },
  client_not_yours: { status: 403, message: 'This sync client belongs to another user.' },
  password_change_required: { status: 403, message: 'Choose a new password to continue.' },
  signup_invitation_required: {
    status: 403,
    message: 'This workspace is by invitation only. Ask your manager or administrator for an invitation link.',
  },
  signup_domain_not_allowed: {
    status: 403,
    message: 'Sign-up is not open to this email address. Ask your manager or administrator for an invitation.',
  },
  invitation_email_mismatch: { status: 403, message: 'This invitation is for another email address.' },
  not_found: { status: 404, message: 'Not found.' },
  user_not_found: { status: 404, message: 'User not found.' },
  task_not_found: { status: 404, message: 'Task not found. It may have been deleted.' },
  message_not_found: { status: 404, message: 'Message not found.' },
  invitation_invalid: {
    status: 404,
    message: 'This invitation link is not valid. Ask your manager or administrator for a new one.',
  },
  email_taken: { status: 409, message: 'An account with this email already exists' },
  duplicate_id: { status: 409, message: 'An item with this id already exists with different content.' },
  client_outdated: { status: 409, message: 'A new version is available. Reload to keep working.' },
  invitation_expired: {
    status: 410,
    message: 'This invitation link has expired. Ask your manager or administrator for a new one.',
  },
  invitation_used: { status: 410, message: 'This invitation link has already been used.' },
  invitation_revoked: {
    status: 410,
    message: 'This invitation link was withdrawn. Ask your manager or administrator for a new one.',
  },
  payload_too_large: { status: 413, message: 'The request is too large.' },
  unsupported_media_type: { status: 415, message: 'This type of content is not supported.' },
  rate_limited: { status: 429, message: 'Too many attempts. Please wait a few minutes and try again.' },
  internal: { status: 500, message: 'Something went wrong on our side. Please try again.' },
  google_not_configured: { status: 501, message: 'Google sign-in is not configured on this server.' },
  unavailable: { status: 503, message: 'The server is busy or restarting. Please try again shortly.' },
} as const satisfies Record<string, { status: number; message: string }>;

/** One of the stable error codes. */
export type ErrorCode = keyof typeof errorCatalogue;

/** The body of every non-2xx answer. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: { path: string; message: string }[];
}

/** Every stable error code, in the catalogue's order. */
export const errorCodes = Object.keys(errorCatalogue) as [ErrorCode, ...ErrorCode[]];

/**
 * The body of a non-2xx answer carrying one of `codes` (all codes by default): what the API reference shows for each
 * refusal of a route.
 */
export const errorBodySchema = (codes: readonly [ErrorCode, ...ErrorCode[]] = errorCodes) =>
  z.object({
    code: z.enum(codes),
    message: z.string(),
    /** The fields that were missing or invalid, for `invalid_input`. */
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  });

/** Client-side conditions that never come from the server but share the same vocabulary. */
export const clientErrorMessages = {
  network: 'Could not reach the server. Check your connection.',
  timeout: 'The server took too long to answer.',
  storage_full: 'This device is out of storage space; free some space so your changes can be saved.',
  bad_answer: 'The server sent an answer this app does not understand.',
} as const;

/** A client-side error code. */
export type ClientErrorCode = keyof typeof clientErrorMessages;
