import {
  authResponseSchema,
  avatarResponseSchema,
  meResponseSchema,
  serverConfigSchema,
  successResponseSchema,
  type AuthResponse,
  type AvatarResponse,
  type MeResponse,
  type ServerConfig,
  type SuccessResponse,
} from '@office/sync-protocol';
import { api } from './http';

// A 401 from these three means "wrong credentials", never "session over".
const signInCall = { signOutOnUnauthorized: false, answer: authResponseSchema } as const;

/** POST /api/auth/login. */
export const loginRequest = (email: string, password: string): Promise<AuthResponse> =>
  api.post('/auth/login', { email, password }, signInCall);

/** POST /api/auth/register, with the token of the invitation link the sign-up screen was opened from. */
export const registerRequest = (
  name: string,
  email: string,
  password: string,
  invitation: string | null = null,
): Promise<AuthResponse> =>
  api.post('/auth/register', { name, email, password, ...(invitation === null ? {} : { invitation }) }, signInCall);

/** POST /api/auth/google with the ID token from Google Identity Services. */
export const googleLoginRequest = (tokenId: string): Promise<AuthResponse> =>
  api.post('/auth/google', { tokenId }, signInCall);

/** GET /api/auth/me: the signed-in user as the server knows it now. */
export const fetchCurrentUser = (): Promise<MeResponse> => api.get('/auth/me', { answer: meResponseSchema });

/** GET /api/config: what this server offers (a Google client id, or null). */
export const fetchServerConfig = (): Promise<ServerConfig> => api.get('/config', { answer: serverConfigSchema });

/**
 * PUT /api/auth/updatepassword: needs the network (never queued). Every other session of the user ends; this
 * one keeps its token. A wrong current password is a 400, not a signed-out 401.
 */
export const updatePasswordRequest = (currentPassword: string, newPassword: string): Promise<SuccessResponse> =>
  api.put('/auth/updatepassword', { currentPassword, newPassword }, { answer: successResponseSchema });

/**
 * POST /api/auth/logout: ends this device's session on the server. Its 401 (the session had already ended)
 * must not sign anything out twice, so it is not treated as "session over".
 */
export const logoutRequest = (): Promise<SuccessResponse> =>
  api.post('/auth/logout', undefined, { answer: successResponseSchema, signOutOnUnauthorized: false });

/** POST /api/auth/upload-avatar (multipart field `avatar`). */
export function uploadAvatarRequest(file: Blob, name: string): Promise<AvatarResponse> {
  const form = new FormData();
  form.append('avatar', file, name);
  return api.post('/auth/upload-avatar', form, { timeoutMs: 60_000, answer: avatarResponseSchema });
}

/** DELETE /api/auth/users/{id}: managers delete employees (online only: it ends the employee's sessions). */
export const deleteEmployeeRequest = (id: string): Promise<SuccessResponse> =>
  api.delete(`/auth/users/${id}`, { answer: successResponseSchema });
