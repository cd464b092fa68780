import { z } from 'zod';
import { limits } from '../limits';
import { userSchema } from '../entities/user';

const ALL_FIELDS = 'Please fill in all fields';
const INVALID_EMAIL = 'Please enter a valid email address';
const required = () => z.string({ error: ALL_FIELDS }).trim().min(1, ALL_FIELDS);

/** POST /api/auth/login body. */
export const loginRequestSchema = z.object({
  email: required().toLowerCase().max(limits.emailMaxLength),
  password: z.string({ error: ALL_FIELDS }).min(1, ALL_FIELDS).max(limits.passwordMaxLength),
});
export type LoginRequest = z.infer<typeof loginRequestSchema>;

/** POST /api/auth/register body. */
export const registerRequestSchema = z.object({
  name: required().max(limits.nameMaxLength, `Name must be at most ${limits.nameMaxLength} characters`),
  email: required().toLowerCase().max(limits.emailMaxLength).email(INVALID_EMAIL),
  password: z
    .string({ error: ALL_FIELDS })
    .min(1, ALL_FIELDS)
    .min(limits.passwordMinLength, `Password must be at least ${limits.passwordMinLength} characters long`)
    .max(limits.passwordMaxLength, `Password must be at most ${limits.passwordMaxLength} characters`),
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
});
export type AuthResponse = z.infer<typeof authResponseSchema>;

/** GET /api/config: what the PWA needs to know about this server. */
export const serverConfigSchema = z.object({ googleClientId: z.string().nullable() });
export type ServerConfig = z.infer<typeof serverConfigSchema>;

/** The `user.updateDetails` command: PUT /api/auth/updatedetails and its sync mutation. */
const PROFILE_REQUIRED = 'Name and email are required';
export const updateDetailsArgsSchema = z.object({
  name: z
    .string({ error: PROFILE_REQUIRED })
    .trim()
    .min(1, PROFILE_REQUIRED)
    .max(limits.nameMaxLength, `Name must be at most ${limits.nameMaxLength} characters`),
  email: z
    .string({ error: PROFILE_REQUIRED })
    .trim()
    .toLowerCase()
    .min(1, PROFILE_REQUIRED)
    .max(limits.emailMaxLength)
    .email(INVALID_EMAIL),
});
export type UpdateDetailsArgs = z.infer<typeof updateDetailsArgsSchema>;
