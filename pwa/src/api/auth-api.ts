import type { AuthResponse, AvatarResponse, ServerConfig, UpdatePasswordResponse, User } from '@office/sync-protocol';
import { api } from './http';

// A 401 from these three means "wrong credentials", never "session over".
const signInCall = { signOutOnUnauthorized: false } as const;

/** POST /api/auth/login. */
export const loginRequest = (email: string, password: string): Promise<AuthResponse> =>
  api.post<AuthResponse>('/auth/login', { email, password }, signInCall);

/** POST /api/auth/register. */
export const registerRequest = (name: string, email: string, password: string): Promise<AuthResponse> =>
  api.post<AuthResponse>('/auth/register', { name, email, password }, signInCall);

/** POST /api/auth/google with the ID token from Google Identity Services. */
export const googleLoginRequest = (tokenId: string): Promise<AuthResponse> =>
  api.post<AuthResponse>('/auth/google', { tokenId }, signInCall);

/** GET /api/auth/me: the signed-in user as the server knows it now. */
export const fetchCurrentUser = (): Promise<{ user: User }> => api.get<{ user: User }>('/auth/me');

/** GET /api/config: what this server offers (a Google client id, or null). */
export const fetchServerConfig = (): Promise<ServerConfig> => api.get<ServerConfig>('/config');

/**
 * PUT /api/auth/updatepassword: needs the network (never queued). Every other session of the user ends;
 * the answer carries this session's new token. A wrong current password is a 400, not a signed-out 401.
 */
export const updatePasswordRequest = (currentPassword: string, newPassword: string): Promise<UpdatePasswordResponse> =>
  api.put<UpdatePasswordResponse>('/auth/updatepassword', { currentPassword, newPassword });

/** POST /api/auth/upload-avatar (multipart field `avatar`). */
export function uploadAvatarRequest(file: Blob, name: string): Promise<AvatarResponse> {
  const form = new FormData();
  form.append('avatar', file, name);
  return api.post<AvatarResponse>('/auth/upload-avatar', form, { timeoutMs: 60_000 });
}

/** DELETE /api/auth/users/{id}: managers delete employees (online only: it ends the employee's sessions). */
export const deleteEmployeeRequest = (id: string): Promise<{ success: boolean; message: string }> =>
  api.delete<{ success: boolean; message: string }>(`/auth/users/${id}`);
