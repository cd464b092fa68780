import type { AuthResponse, ServerConfig, User } from '@office/sync-protocol';
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
