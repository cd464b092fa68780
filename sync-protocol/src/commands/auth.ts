import { z } from 'zod';
import { limits } from '../limits';
import { userSchema } from '../entities/user';
import { stripInvisible } from '../text';
import { invitationTokenSchema } from './access';

const ALL_FIELDS = 'Please fill in all fields';
const INVALID_EMAIL = 'Please enter a valid email address';
const required = () => z.string({ error: ALL_FIELDS }).trim().min(1, ALL_FIELDS);
const NAME_TOO_LONG = `Name must be at most ${limits.nameMaxLength} characters`;

/** A person's name: bidirectional controls and zero-width characters are dropped before it is checked. */
export const personNameSchema = (requiredMessage: string) =>
  z
    .string({ error: requiredMessage })
    .overwrite(stripInvisible)
    .trim()
    .min(1, requiredMessage)
    .max(limits.nameMaxLength, NAME_TOO_LONG);

/** POST /api/auth/login body. */
export const loginRequestSchema = z.object({
  email: required().toLowerCase().max(limits.emailMaxLength),
  password: z.string({ error: ALL_FIELDS }).min(1, ALL_FIELDS).max(limits.passwordMaxLength),
});
export type LoginRequest = z.infer<typeof loginRequestSchema>;

/** POST /api/auth/register body. */
export const registerRequestSchema = z.object({
  name: personNameSchema(ALL_FIELDS),
  email: required().toLowerCase().max(limits.emailMaxLength).email(INVALID_EMAIL),
  password: z
    .string({ error: ALL_FIELDS })
    .min(1, ALL_FIELDS)
    .min(limits.passwordMinLength, `Password must be at least ${limits.passwordMinLength} characters long`)
    .max(limits.passwordMaxLength, `Password must be at most ${limits.passwordMaxLength} characters`),
  /** The token of the invitation link the sign-up screen was opened from. */
  invitation: invitationTokenSchema.optional(),
});
export type RegisterRequest = z.infer<typeof registerRequestSchema>;

/** POST /api/auth/google body. */
export const googleLoginRequestSchema = z.object({ tokenId: z.string().min(1).max(8192) });
export type GoogleLoginRequest = z.infer<typeof googleLoginRequestSchema>;

/** Answer of login, Google login and register. */
export const authResponseSchema = z.object({
  ok: z.boolean(),
  user: userSchema,
  token: z.string(),
  message: z.string(),
  /** The person signed in with a one-time code: until they choose a new password, the server refuses every other call. */
  passwordChangeRequired: z.boolean().optional(),
});
export type AuthResponse = z.infer<typeof authResponseSchema>;

/** GET /api/auth/me answer. */
export const meResponseSchema = z.object({ user: userSchema });
export type MeResponse = z.infer<typeof meResponseSchema>;

/** GET /api/config: what the PWA needs to know about this server. */
export const serverConfigSchema = z.object({ googleClientId: z.string().nullable() });
export type ServerConfig = z.infer<typeof serverConfigSchema>;

/** The `user.updateDetails` command: PUT /api/auth/updatedetails and its sync mutation. */
const PROFILE_REQUIRED = 'Name and email are required';
export const updateDetailsArgsSchema = z.object({
  name: personNameSchema(PROFILE_REQUIRED),
  email: z
    .string({ error: PROFILE_REQUIRED })
    .trim()
    .toLowerCase()
    .min(1, PROFILE_REQUIRED)
    .max(limits.emailMaxLength)
    .email(INVALID_EMAIL),
});
export type UpdateDetailsArgs = z.infer<typeof updateDetailsArgsSchema>;

/** Texts of the password and avatar forms (spec sections 5 and 8). */
export const accountTexts = {
  passwordFieldsRequired: 'All password fields are required',
  passwordTooShort: `New password must be at least ${limits.passwordMinLength} characters long`,
  passwordsDiffer: 'New passwords do not match',
  currentPasswordWrong: 'Current password is incorrect',
  noPasswordAccount: 'This account signs in with Google and has no password to change.',
  passwordUpdated: 'Password updated successfully!',
  signedOut: 'Signed out',
  passwordNeedsNetwork: 'Changing your password needs a connection. Please try again when you are online.',
  invalidImage: 'Please select a valid image file',
  imageTooLarge: 'Image file must be less than 5MB',
  photoUpdated: 'Profile photo updated successfully!',
  employeeDeleted: 'Employee deleted successfully',
  onlyManagersDelete: 'Only managers can delete employees.',
  onlyEmployeesDeleted: 'Only employees can be deleted.',
  notYourself: 'You cannot delete your own account.',
} as const;

/** PUT /api/auth/updatepassword body: only the current and the new password travel. */
export const updatePasswordRequestSchema = z.object({
  currentPassword: z
    .string({ error: accountTexts.passwordFieldsRequired })
    .min(1, accountTexts.passwordFieldsRequired)
    .max(limits.passwordMaxLength),
  newPassword: z
    .string({ error: accountTexts.passwordFieldsRequired })
    .min(1, accountTexts.passwordFieldsRequired)
    .min(limits.passwordMinLength, accountTexts.passwordTooShort)
    .max(limits.passwordMaxLength, `Password must be at most ${limits.passwordMaxLength} characters`),
});
export type UpdatePasswordRequest = z.infer<typeof updatePasswordRequestSchema>;

/**
 * The answer of PUT /api/auth/updatepassword (the caller's token keeps working; every other session ends),
 * POST /api/auth/logout and DELETE /api/auth/users/{id}.
 */
export const successResponseSchema = z.object({ success: z.boolean(), message: z.string() });
export type SuccessResponse = z.infer<typeof successResponseSchema>;

/** POST /api/auth/upload-avatar answer. */
export const avatarResponseSchema = z.object({
  success: z.boolean(),
  avatarUrl: z.string(),
  message: z.string(),
  user: userSchema,
});
export type AvatarResponse = z.infer<typeof avatarResponseSchema>;
