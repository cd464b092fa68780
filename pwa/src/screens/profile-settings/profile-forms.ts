import { accountTexts, limits } from '@office/sync-protocol';
import { ApiError } from '../../api/http';

/** Texts of the Profile Photo and Password sections that the protocol's tables do not hold. */
export const profileTexts = {
  photoFailed: 'Failed to update profile photo',
  // The upload is never queued: a photo waiting on a device would surprise its owner later.
  photoNeedsNetwork: 'Changing your profile photo needs a connection. Please try again when you are online.',
  passwordFailed: 'Failed to update password',
  passwordNote: 'Password is hidden for security. Click "Change Password" to update.',
} as const;

/** How long the preview stays after a successful upload (spec section 9). */
export const previewClearMs = 1500;

/** The client-side checks of a chosen photo (spec section 5): a sentence for the flash, or null when fine. */
export function checkPhotoFile(file: { type: string; size: number }): string | null {
  if (!file.type.startsWith('image/')) return accountTexts.invalidImage;
  if (file.size > limits.avatarMaxBytes) return accountTexts.imageTooLarge;
  return null;
}

/** The password form (spec section 3); only the first two fields travel. */
export interface PasswordForm {
  currentPassword: string;
  newPassword: string;
  confirmPassword: string;
}

export const emptyPasswordForm: PasswordForm = { currentPassword: '', newPassword: '', confirmPassword: '' };

/** The spec's password rules (section 5), in its order: a sentence for the banner, or null when fine. */
export function validatePasswordForm(form: PasswordForm): string | null {
  if (!form.currentPassword || !form.newPassword || !form.confirmPassword) return accountTexts.passwordFieldsRequired;
  if (form.newPassword.length < limits.passwordMinLength) return accountTexts.passwordTooShort;
  if (form.newPassword !== form.confirmPassword) return accountTexts.passwordsDiffer;
  return null;
}

/**
 * What a failed password change says: no connection, the server's sentence, or the spec's fallback.
 * A timeout keeps the fallback: the change may have reached the server, so "you are offline" would mislead.
 */
export function passwordFailureMessage(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 'network') return accountTexts.passwordNeedsNetwork;
    if (error.status > 0 && error.message) return error.message;
  }
  return profileTexts.passwordFailed;
}

/** What a failed photo upload says: no connection, the server's sentence, or the spec's fallback. */
export function photoFailureMessage(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 'network') return profileTexts.photoNeedsNetwork;
    if (error.status > 0 && error.message) return error.message;
  }
  return profileTexts.photoFailed;
}
