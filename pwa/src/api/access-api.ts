import {
  createdInvitationResponseSchema,
  invitationListResponseSchema,
  invitationParam,
  passwordResetResponseSchema,
  signupOptionsResponseSchema,
  successResponseSchema,
  workspaceSettingsResponseSchema,
  type CreateInvitationRequest,
  type CreatedInvitationResponse,
  type InvitationListResponse,
  type PasswordResetResponse,
  type SignupOptionsResponse,
  type SignupSettings,
  type SuccessResponse,
  type WorkspaceSettingsResponse,
} from '@office/sync-protocol';
import { api } from './http';

// Who may join and the way back from a forgotten password: calls, never queued writes (each needs the server now).

/** GET /api/auth/signup-options: the policy, and whom the sign-up link's invitation is for. */
export const signupOptionsRequest = (invitation: string | null): Promise<SignupOptionsResponse> =>
  api.get(`/auth/signup-options${invitation === null ? '' : `?${invitationParam}=${encodeURIComponent(invitation)}`}`, {
    answer: signupOptionsResponseSchema,
    signOutOnUnauthorized: false,
  });

/** GET /api/workspace/settings (managers and admins). */
export const workspaceSettingsRequest = (): Promise<WorkspaceSettingsResponse> =>
  api.get('/workspace/settings', { answer: workspaceSettingsResponseSchema });

/** PUT /api/workspace/signup-policy (admins). */
export const setSignupPolicyRequest = (settings: SignupSettings): Promise<WorkspaceSettingsResponse> =>
  api.put('/workspace/signup-policy', settings, { answer: workspaceSettingsResponseSchema });

/** GET /api/workspace/invitations. */
export const invitationsRequest = (): Promise<InvitationListResponse> =>
  api.get('/workspace/invitations', { answer: invitationListResponseSchema });

/** POST /api/workspace/invitations: the answer carries the token, once. */
export const createInvitationRequest = (request: CreateInvitationRequest): Promise<CreatedInvitationResponse> =>
  api.post('/workspace/invitations', request, { answer: createdInvitationResponseSchema });

/** DELETE /api/workspace/invitations/{id}. */
export const revokeInvitationRequest = (id: string): Promise<SuccessResponse> =>
  api.delete(`/workspace/invitations/${id}`, { answer: successResponseSchema });

/** POST /api/auth/users/{id}/reset-password: the one-time code, once. */
export const resetPasswordRequest = (id: string): Promise<PasswordResetResponse> =>
  api.post(`/auth/users/${id}/reset-password`, undefined, { answer: passwordResetResponseSchema });

/** PUT /api/auth/choose-password: after signing in with a one-time code. */
export const choosePasswordRequest = (newPassword: string): Promise<SuccessResponse> =>
  api.put('/auth/choose-password', { newPassword }, { answer: successResponseSchema });

/** The sign-up link an invitation's token makes, on this app's own address. */
export const invitationLink = (token: string, origin: string = window.location.origin): string =>
  `${origin}/signup?${invitationParam}=${encodeURIComponent(token)}`;
