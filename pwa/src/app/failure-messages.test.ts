import { describe, expect, test } from 'vitest';
import { ApiError } from '../api/http';
import { authFailureMessage, authMessages } from './auth/auth-messages';
import { refusalMessage } from './failure-messages';

describe('what a refused queued write says', () => {
  test('the spec’s prefix with the server’s message, or "Unknown error"', () => {
    expect(refusalMessage('task.create', 'Tasks can only be assigned to employees')).toBe(
      'Failed to create task: Tasks can only be assigned to employees',
    );
    expect(refusalMessage('task.create', undefined)).toBe('Failed to create task: Unknown error');
    expect(refusalMessage('task.comment', 'Task not found.')).toBe('Failed to add comment: Task not found.');
    expect(refusalMessage('chat.sendFiles', 'The request is too large.')).toBe(
      'Failed to upload files: The request is too large.',
    );
    expect(refusalMessage('dm.send', 'Message not found.')).toBe('Failed to send message: Message not found.');
  });

  test('a sentence of its own ends before the reason', () => {
    expect(refusalMessage('dm.delete', 'Message not found.')).toBe(
      'Failed to delete message. Please try again. Message not found.',
    );
  });
});

describe('what a failed sign-in says (spec section 8)', () => {
  const refusal = 'Invalid email or password';
  test('the server’s own message when it sent one', () => {
    expect(
      authFailureMessage(new ApiError(401, 'invalid_credentials', refusal, undefined, refusal), authMessages.google),
    ).toBe(refusal);
  });
  test('the fallback when the answer had no message, the exception sentence when no answer came', () => {
    expect(
      authFailureMessage(new ApiError(401, 'unauthenticated', 'Please sign in to continue.'), authMessages.google),
    ).toBe('Google login failed');
    expect(authFailureMessage(new ApiError(0, 'network', 'offline'), authMessages.google)).toBe(
      'Google login failed. Please try again.',
    );
    expect(authFailureMessage(new TypeError('boom'), authMessages.register)).toBe(
      'Registration failed. Please try again.',
    );
  });
});
