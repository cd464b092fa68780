import { describe, expect, test } from 'vitest';
import { accountTexts } from '@office/sync-protocol';
import { ApiError } from '../../api/http';
import {
  checkPhotoFile,
  passwordFailureMessage,
  photoFailureMessage,
  profileTexts,
  validatePasswordForm,
  type PasswordForm,
} from './profile-forms';

const form = (overrides: Partial<PasswordForm> = {}): PasswordForm => ({
  currentPassword: 'old-secret',
  newPassword: 'new-secret',
  confirmPassword: 'new-secret',
  ...overrides,
});

describe('checkPhotoFile', () => {
  test('an image up to 5 MB passes', () => {
    expect(checkPhotoFile({ type: 'image/png', size: 68 })).toBeNull();
    expect(checkPhotoFile({ type: 'image/jpeg', size: 5_242_880 })).toBeNull();
  });

  test('a file whose type is not image/ is refused', () => {
    expect(checkPhotoFile({ type: 'text/plain', size: 10 })).toBe('Please select a valid image file');
    expect(checkPhotoFile({ type: '', size: 10 })).toBe('Please select a valid image file');
    expect(checkPhotoFile({ type: 'application/pdf', size: 10 })).toBe('Please select a valid image file');
  });

  test('an image one byte over 5 MB is refused', () => {
    expect(checkPhotoFile({ type: 'image/png', size: 5_242_881 })).toBe('Image file must be less than 5MB');
  });

  test('the type is checked before the size', () => {
    expect(checkPhotoFile({ type: 'video/mp4', size: 50_000_000 })).toBe('Please select a valid image file');
  });
});

describe('validatePasswordForm', () => {
  test('a complete form with matching passwords of 6 or more characters passes', () => {
    expect(validatePasswordForm(form())).toBeNull();
    expect(validatePasswordForm(form({ newPassword: '123456', confirmPassword: '123456' }))).toBeNull();
  });

  test('every field is required', () => {
    for (const field of ['currentPassword', 'newPassword', 'confirmPassword'] as const) {
      expect(validatePasswordForm(form({ [field]: '' }))).toBe('All password fields are required');
    }
  });

  test('the new password needs at least 6 characters', () => {
    expect(validatePasswordForm(form({ newPassword: '12345', confirmPassword: '12345' }))).toBe(
      'New password must be at least 6 characters long',
    );
  });

  test('the confirmation must equal the new password', () => {
    expect(validatePasswordForm(form({ confirmPassword: 'new-secreT' }))).toBe('New passwords do not match');
  });

  test('the length rule comes before the match rule', () => {
    expect(validatePasswordForm(form({ newPassword: 'abc', confirmPassword: 'xyz' }))).toBe(
      'New password must be at least 6 characters long',
    );
  });
});

describe('failure messages', () => {
  const refusal = 'Current password is incorrect';
  const wrongPassword = new ApiError(400, 'invalid_input', refusal, undefined, refusal);
  const network = new ApiError(0, 'network', 'Could not reach the server. Check your connection.');
  const timeout = new ApiError(0, 'timeout', 'The server took too long to answer.');

  test('a password change shows the server’s sentence when there is one', () => {
    expect(passwordFailureMessage(wrongPassword)).toBe('Current password is incorrect');
  });

  test('a password change without a connection says "Failed to update password", then why', () => {
    expect(passwordFailureMessage(network)).toBe(
      'Failed to update password. Changing your password needs a connection. Please try again when you are online.',
    );
    expect(accountTexts.passwordNeedsNetwork).toBe(
      'Changing your password needs a connection. Please try again when you are online.',
    );
  });

  test('a password change that times out, throws, or gets an answer without a message says "Failed to update password"', () => {
    expect(passwordFailureMessage(timeout)).toBe('Failed to update password');
    expect(passwordFailureMessage(new Error('boom'))).toBe('Failed to update password');
    expect(
      passwordFailureMessage(new ApiError(500, 'internal', 'Something went wrong on our side. Please try again.')),
    ).toBe('Failed to update password');
  });

  test('a photo upload flashes "Failed to update profile photo" with the server’s sentence or "Failed to upload avatar"', () => {
    const tooLarge = 'Image file must be less than 5MB';
    expect(photoFailureMessage(new ApiError(413, 'payload_too_large', tooLarge, undefined, tooLarge))).toBe(
      'Failed to update profile photo: Image file must be less than 5MB',
    );
    expect(photoFailureMessage(network)).toBe(`Failed to update profile photo. ${profileTexts.photoNeedsNetwork}`);
    expect(photoFailureMessage(timeout)).toBe('Failed to update profile photo: Failed to upload avatar');
    expect(photoFailureMessage(new TypeError('x'))).toBe('Failed to update profile photo: Failed to upload avatar');
  });
});
