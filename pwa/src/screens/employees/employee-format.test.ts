import { describe, expect, test } from 'vitest';
import { ApiError } from '../../api/http';
import { completionTone } from '../../components/tasks/task-display';
import { deletedText, deleteErrorMessage, lastSeenText, overdueText } from './employee-format';

const now = Date.parse('2030-06-15T12:00:00.000Z');

describe('lastSeenText', () => {
  test('reads as a relative time before now', () => {
    expect(lastSeenText('2030-06-15T11:55:00.000Z', now)).toBe('Last seen 5 minutes ago');
    expect(lastSeenText('2030-06-14T12:00:00.000Z', now)).toBe('Last seen 1 day ago');
  });

  test('a time a little after now reads as just now', () => {
    expect(lastSeenText('2030-06-15T12:00:20.000Z', now)).toBe('Last seen less than a minute ago');
  });

  test('is null without a time or with an unreadable one', () => {
    expect(lastSeenText(null, now)).toBeNull();
    expect(lastSeenText('yesterday', now)).toBeNull();
  });
});

describe('completion-rate colour', () => {
  test('green at 80 or above, amber at 60 or above, red below (spec section 4)', () => {
    expect([100, 80, 79, 60, 59, 0].map(completionTone)).toEqual(['good', 'good', 'fair', 'fair', 'poor', 'poor']);
  });
});

describe('employee texts', () => {
  test('the overdue warning counts tasks in the singular and the plural', () => {
    expect(overdueText(1)).toBe('1 overdue task');
    expect(overdueText(3)).toBe('3 overdue tasks');
  });

  test('the success alert names the employee', () => {
    expect(deletedText('Bob Smith')).toBe('Bob Smith has been successfully deleted.');
  });
});

describe('deleteErrorMessage', () => {
  test("shows the server's message when the server answered", () => {
    const refusal = 'Only managers can delete employees.';
    expect(deleteErrorMessage(new ApiError(403, 'forbidden', refusal, undefined, refusal))).toBe(refusal);
  });

  test('falls back to the generic failure when the server gave no message', () => {
    expect(deleteErrorMessage(new ApiError(500, 'internal', ' ', undefined, ' '))).toBe('Failed to delete employee');
    // An answer without a body of ours (a proxy's page): the client names it, the server did not.
    expect(
      deleteErrorMessage(new ApiError(502, 'internal', 'Something went wrong on our side. Please try again.')),
    ).toBe('Failed to delete employee');
  });

  test('asks to try again when no answer came (offline, network error, timeout) or the call threw', () => {
    expect(deleteErrorMessage(new ApiError(0, 'network', 'No connection'))).toBe(
      'Failed to delete employee. Please try again.',
    );
    expect(deleteErrorMessage(new ApiError(0, 'timeout', 'Timed out'))).toBe(
      'Failed to delete employee. Please try again.',
    );
    expect(deleteErrorMessage(new TypeError('boom'))).toBe('Failed to delete employee. Please try again.');
  });
});
