import { ApiError } from '../../api/http';

/** The sentences of spec section 8 for each way of signing in. */
export const authMessages = {
  emptyFields: 'Please fill in all fields',
  login: { failure: 'Invalid email or password', exception: 'Login failed. Please try again.' },
  register: { failure: 'Registration failed', exception: 'Registration failed. Please try again.' },
  google: { failure: 'Google login failed', exception: 'Google login failed. Please try again.' },
} as const;

/**
 * The banner text for a failed sign-in call: the server's message when the server answered,
 * otherwise the "please try again" sentence (network error, timeout or any other exception).
 */
export function authFailureMessage(error: unknown, messages: { failure: string; exception: string }): string {
  if (error instanceof ApiError && error.status > 0) {
    return error.message || messages.failure;
  }
  return messages.exception;
}
