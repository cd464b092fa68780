import { z } from 'zod';
import { idSchema } from '../ids';
import { limits } from '../limits';

// Who may join the workspace (the sign-up policy and invitations) and the way back from a forgotten password (a
// reset to a one-time code). None of these are queued offline: each needs the server at the moment it is made.

/** Who may create an account: anyone with the link, emails at listed domains, or invited people only. */
export const signupPolicies = ['open', 'domains', 'invite'] as const;
/** One of the sign-up policies. */
export type SignupPolicy = (typeof signupPolicies)[number];

/** How many domains the `domains` policy may list. */
export const signupDomainsMax = 50;

const DOMAIN_INVALID = 'Enter domains like example.com, separated by commas';
/** A domain as an email's part after the @: lower case, labels of letters, digits and hyphens, a dot between. */
const domainSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(253, DOMAIN_INVALID)
  .regex(/^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/, DOMAIN_INVALID);

/** The sign-up setting: PUT /api/workspace/signup-policy body, and its part of the settings answer. */
export const signupSettingsSchema = z
  .object({
    policy: z.enum(signupPolicies, { error: 'Choose who may join' }),
    domains: z
      .array(domainSchema)
      .max(signupDomainsMax, `List at most ${signupDomainsMax} domains`)
      .default([])
      .transform((domains) => [...new Set(domains)]),
  })
  .refine((settings) => settings.policy !== 'domains' || settings.domains.length > 0, {
    message: 'List at least one domain, like example.com',
    path: ['domains'],
  });
/** The sign-up setting as sent and stored. */
export type SignupSettings = z.output<typeof signupSettingsSchema>;

/** Splits what a person typed ("a.com, b.org") into domains; a leading @ is dropped. */
export const parseDomainList = (text: string): string[] =>
  text
    .split(/[\s,;]+/)
    .map((part) => part.trim().replace(/^@/, ''))
    .filter((part) => part !== '');

/** The domain of an email: what follows its last @, lower-cased. */
export const emailDomain = (email: string): string => email.slice(email.lastIndexOf('@') + 1).toLowerCase();

/** GET /api/workspace/settings: the sign-up setting, and who set it (null while the server's default applies). */
export const workspaceSettingsResponseSchema = z.object({
  signup: z.object({
    policy: z.enum(signupPolicies),
    domains: z.array(z.string()),
    changedAt: z.string().nullable(),
    changedBy: z.object({ id: idSchema, name: z.string() }).nullable(),
  }),
});
/** The workspace settings answer. */
export type WorkspaceSettingsResponse = z.infer<typeof workspaceSettingsResponseSchema>;

/** An invitation's state, derived from its row and the time. */
export const invitationStatuses = ['open', 'used', 'expired', 'revoked'] as const;
/** One of the invitation states. */
export type InvitationStatus = (typeof invitationStatuses)[number];

/** An invitation as staff see it (never its token, which is stored hashed and shown once, on creation). */
export const invitationSchema = z.object({
  id: idSchema,
  /** The one email it admits, or null: anyone with the link. */
  email: z.string().nullable(),
  createdBy: z.object({ id: idSchema, name: z.string() }).nullable(),
  createdAt: z.string(),
  expiresAt: z.string(),
  maxUses: z.number().int(),
  uses: z.number().int(),
  revokedAt: z.string().nullable(),
  status: z.enum(invitationStatuses),
});
/** An invitation on the wire. */
export type Invitation = z.infer<typeof invitationSchema>;

/** POST /api/workspace/invitations body: for one email (then single-use), or for up to `maxUses` people. */
export const createInvitationRequestSchema = z
  .object({
    email: z
      .string()
      .trim()
      .toLowerCase()
      .max(limits.emailMaxLength)
      .transform((email) => (email === '' ? null : email))
      .pipe(z.email('Please enter a valid email address').nullable())
      .nullable()
      .default(null),
    maxUses: z.number().int().min(1).max(limits.invitationMaxUses).default(1),
  })
  .refine((request) => request.email === null || request.maxUses === 1, {
    message: 'An invitation for one email address can be used once',
    path: ['maxUses'],
  });
/** A request for a new invitation. */
export type CreateInvitationRequest = z.input<typeof createInvitationRequestSchema>;

/** The answer of creating an invitation: its token, once (the link is /signup?invitation={token}). */
export const createdInvitationResponseSchema = z.object({ invitation: invitationSchema, token: z.string() });
/** A new invitation with its token. */
export type CreatedInvitationResponse = z.infer<typeof createdInvitationResponseSchema>;

/** GET /api/workspace/invitations: the newest first. */
export const invitationListResponseSchema = z.object({ invitations: z.array(invitationSchema) });
/** The invitation list. */
export type InvitationListResponse = z.infer<typeof invitationListResponseSchema>;

/** The query parameter of a sign-up link that carries an invitation's token. */
export const invitationParam = 'invitation';

/** An invitation token as a sign-up carries it: what the server made (43 URL-safe characters), or nothing. */
export const invitationTokenSchema = z.string().trim().min(1).max(200);

/**
 * GET /api/auth/signup-options: what the sign-up screen needs before anyone signs in. An invitation that does not
 * admit (expired, used, withdrawn, unknown) is `invitationProblem` with its sentence.
 */
export const signupOptionsResponseSchema = z.object({
  policy: z.enum(signupPolicies),
  domains: z.array(z.string()),
  invitation: z.object({ email: z.string().nullable(), expiresAt: z.string() }).nullable(),
  invitationProblem: z.object({ code: z.string(), message: z.string() }).nullable(),
});
/** The sign-up screen's options. */
export type SignupOptionsResponse = z.infer<typeof signupOptionsResponseSchema>;

/** POST /api/auth/users/{id}/reset-password answer: the one-time code, shown once. */
export const passwordResetResponseSchema = z.object({
  success: z.boolean(),
  message: z.string(),
  code: z.string(),
  expiresAt: z.string(),
});
/** A reset's answer. */
export type PasswordResetResponse = z.infer<typeof passwordResetResponseSchema>;

/** PUT /api/auth/choose-password body: the new password of a person who signed in with a one-time code. */
export const choosePasswordRequestSchema = z.object({
  newPassword: z
    .string({ error: 'Please enter a new password' })
    .min(1, 'Please enter a new password')
    .min(limits.passwordMinLength, `New password must be at least ${limits.passwordMinLength} characters long`)
    .max(limits.passwordMaxLength, `Password must be at most ${limits.passwordMaxLength} characters`),
});
/** The chosen password. */
export type ChoosePasswordRequest = z.infer<typeof choosePasswordRequestSchema>;

/** The characters of a one-time code: no 0/O, 1/I/L, so it can be read out and typed back. */
const resetCodeAlphabet = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

/** A one-time code as people type it: case, spaces and dashes do not matter; null when it cannot be one. */
export function normalizeResetCode(typed: string): string | null {
  const bare = typed.toUpperCase().replace(/[\s-]/g, '');
  if (bare.length !== limits.resetCodeLength || [...bare].some((char) => !resetCodeAlphabet.includes(char))) {
    return null;
  }
  return bare.match(/.{1,4}/g)?.join('-') ?? null;
}

/** A one-time code from `randomInts` (one index per character, each below the alphabet's length), in groups of 4. */
export function formatResetCode(randomInts: readonly number[]): string {
  const bare = randomInts.map((index) => resetCodeAlphabet[index % resetCodeAlphabet.length] ?? '').join('');
  return normalizeResetCode(bare) ?? bare;
}

/** How many characters a reset code's alphabet has (the server draws each character uniformly from it). */
export const resetCodeAlphabetSize = resetCodeAlphabet.length;

/** The sentences of sign-up policies, invitations and password resets. */
export const accessTexts = {
  forgotPassword: 'Forgot password? Ask your manager or administrator',
  domainsOnly: (domains: readonly string[]) => `Sign-up is open to email addresses at ${listDomains(domains)}.`,
  domainRefused: (domains: readonly string[]) =>
    `Sign-up is open only to email addresses at ${listDomains(domains)}. Ask your manager or administrator for an invitation.`,
  invitationFor: (email: string) => `This invitation is for ${email}.`,
  invitationForOther: (email: string) => `This invitation is for ${email}. Sign up with that address.`,
  policyChanged: 'Sign-up setting saved.',
  policyNeedsNetwork: 'You are offline. Workspace settings need a connection.',
  onlyAdminsChangePolicy: 'Only an administrator can change who may join.',
  invitationRevoked: 'Invitation withdrawn.',
  resetDone: (name: string) => `${name}'s password was reset. Give them the one-time code below.`,
  resetNeedsNetwork: 'You are offline. Resetting a password needs a connection.',
  cannotResetOwn: 'You cannot reset your own password here. Use Change Password in Settings.',
  managersResetEmployees: 'Managers can reset the passwords of employees only.',
  choosePasswordSaved: 'Your new password is set.',
  choosePasswordNeedsNetwork: 'You are offline. Choosing a new password needs a connection.',
  sameAsCode: 'Choose a password other than the one-time code.',
  noPendingChange: 'There is no password change to finish. Use Change Password in Settings.',
} as const;

function listDomains(domains: readonly string[]): string {
  if (domains.length <= 1) return domains[0] ?? '';
  return `${domains.slice(0, -1).join(', ')} or ${domains[domains.length - 1] ?? ''}`;
}
