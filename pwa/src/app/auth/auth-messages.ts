import { ApiError, serverMessageOr } from '../../api/http';
import { failureTexts } from '../failure-messages';
import type { OfflineSignIn } from './device-accounts';

/** The sentences of spec section 8 for each way of signing in. */
export const authMessages = {
  emptyFields: failureTexts.fillAllFields,
  login: { failure: failureTexts.loginFailed, exception: failureTexts.loginException },
  register: { failure: failureTexts.registrationFailed, exception: failureTexts.registrationException },
  google: { failure: failureTexts.googleFailed, exception: failureTexts.googleException },
  /** Choosing a new password after signing in with a one-time code. */
  choosePassword: {
    failure: 'Could not set your new password',
    exception: 'Could not set your new password. Please try again.',
  },
  /** Offline, for an account that never signed in online on this device. */
  offlineUnknownAccount: 'You are offline. Sign in once with a connection on this device to use it offline.',
  /** The note on the sign-in form while the device has no network. */
  offlineNote: "You're offline — signing in with what this device knows",
  /** After the server refused the stored token while writes were still queued. */
  signInToSync: 'Sign in again to sync your changes',
} as const;

/** "Continue offline as {name}": the Google account last used on this device. */
export const continueOfflineLabel = (name: string): string => `Continue offline as ${name}`;

/** The banner text for a refused offline sign-in. */
export function offlineSignInMessage(outcome: Exclude<OfflineSignIn, { ok: true }>): string {
  switch (outcome.reason) {
    case 'unknown-account':
      return authMessages.offlineUnknownAccount;
    case 'wrong-password':
      return authMessages.login.failure;
    case 'wait': {
      const seconds = Math.ceil(outcome.retryInMs / 1000);
      return `Too many wrong passwords. Try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.`;
    }
  }
}

/**
 * The banner text for a failed sign-in call: the server's message when the server answered,
 * otherwise the "please try again" sentence (network error, timeout or any other exception).
 */
export function authFailureMessage(error: unknown, messages: { failure: string; exception: string }): string {
  if (error instanceof ApiError && error.status > 0) return serverMessageOr(error, messages.failure);
  return messages.exception;
}
