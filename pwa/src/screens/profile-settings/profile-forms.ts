import { accountTexts, limits } from '@office/sync-protocol';
import { ApiError, serverMessageOr } from '../../api/http';
import { failureTexts } from '../../app/failure-messages';

/** Texts of the profile sections that the protocol's tables do not hold. */
export const profileTexts = {
  photoFailed: failureTexts.photoFlashFailed,
  // The upload is never queued: a photo waiting on a device would surprise its owner later.
  photoNeedsNetwork: 'Changing your profile photo needs a connection. Please try again when you are online.',
  passwordFailed: failureTexts.passwordUpdateFailed,
  passwordNote: 'Password is hidden for security. Click "Change Password" to update.',
  profileUpdated: 'Profile updated successfully!',
  profileFailed: failureTexts.profileUpdateFailed,
  /** A profile change made offline: honest about where it is until the server has it. */
  profileSavedOffline: 'Saved on this device — will sync when online',
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

const isUnreachable = (error: unknown): boolean => error instanceof ApiError && error.code === 'network';

/**
 * What a failed password change says (spec section 8): the server's own sentence when it sent one,
 * otherwise "Failed to update password", followed by why when the network was missing. A timeout keeps
 * the plain fallback: the change may have reached the server, so "you are offline" would mislead.
 */
export function passwordFailureMessage(error: unknown): string {
  if (isUnreachable(error)) return `${profileTexts.passwordFailed}. ${accountTexts.passwordNeedsNetwork}`;
  return serverMessageOr(error, profileTexts.passwordFailed);
}

/**
 * What a failed photo upload flashes: "Failed to update profile photo", then the reason: the server's
 * sentence, or the service's "Failed to upload avatar" (spec section 8), or the missing network.
 */
export function photoFailureMessage(error: unknown): string {
  if (isUnreachable(error)) return `${profileTexts.photoFailed}. ${profileTexts.photoNeedsNetwork}`;
  return `${profileTexts.photoFailed}: ${serverMessageOr(error, failureTexts.avatarUploadFailed)}`;
}
