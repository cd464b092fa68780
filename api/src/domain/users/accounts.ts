import { eq } from 'drizzle-orm';
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import {
  accountTexts,
  stripInvisible,
  uuidv7,
  type Actor,
  type GoogleLoginRequest,
  type LoginRequest,
  type RegisterRequest,
  type SignupSettings,
  type UpdatePasswordRequest,
  type User,
} from '@office/sync-protocol';
import type { Db } from '../../db/client';
import { users } from '../../db/schema';
import { recordAuditAlone, type AuditEntry } from '../audit/audit-trail';
import { runCommand, type EffectsFlusher } from '../commands';
import { DomainError } from '../errors';
import { burnVerification, hashPassword, verifyPassword } from './passwords';
import { setPasswordCommand } from './commands';
import type { DeviceProofs } from './device-proofs';
import { signUpCommand, type SignUpArgs } from '../access/sign-up';
import { admitSignUp, readSignupSettings } from '../access/signup-policy';
import type { LoginThrottle } from './login-throttle';
import { passwordCandidate, spendResetCode } from './password-reset';
import { toUserDto, type UserRow } from './serialize';

export interface AccountDeps {
  db: Db;
  flush: EffectsFlusher;
  throttle: LoginThrottle;
  devices: DeviceProofs;
  google: { clientId: string | null; jwks: JWTVerifyGetKey | null };
  /** Who may sign up until an admin sets it (SIGNUP_POLICY, SIGNUP_DOMAINS). */
  signupDefaults: SignupSettings;
}

/** A sign-in's outcome: the user, and whether they signed in with a one-time code and must choose a password first. */
export interface SignIn {
  user: User;
  passwordChangeRequired: boolean;
  /** Its audit record, written with its session; null for a registration, whose record (if any) is the account's. */
  record: AuditEntry | null;
}

/** A password sign-in's outcome: a sign-in, and a fresh device proof for the browser that made it. */
export interface PasswordSignIn extends SignIn {
  deviceProof: string;
}

async function findByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.email, email));
  return row;
}

const selfActor = (id: string): Actor => ({ id, role: 'employee' });

/**
 * Creates an employee's account if the sign-up policy admits the email (or its invitation does). Checked before the
 * password is hashed (a refusal costs no argon2 hash) and again in the command, which decides and spends the invitation.
 */
async function signUp(
  deps: AccountDeps,
  { password, ...args }: Omit<SignUpArgs, 'signupDefaults' | 'passwordHash'> & { password: string | null },
  ip: string,
): Promise<{ user: User; passwordHash: string | null }> {
  const settings = await readSignupSettings(deps.db, deps.signupDefaults);
  await admitSignUp(deps.db, settings, args.email, args.invitation ?? null, { now: new Date(), consume: false });
  const passwordHash = password === null ? null : await hashPassword(password);
  const user = await runCommand(
    deps.db,
    deps.flush,
    selfActor(args.id),
    signUpCommand,
    { ...args, passwordHash, signupDefaults: deps.signupDefaults },
    ip,
  );
  return { user, passwordHash };
}

/** Registration creates an employee; the browser that registered is trusted for the account from then on. */
export async function register(deps: AccountDeps, input: RegisterRequest, ip: string): Promise<PasswordSignIn> {
  if (await findByEmail(deps.db, input.email)) throw new DomainError('email_taken');
  const id = uuidv7();
  const { user, passwordHash } = await signUp(
    deps,
    { id, name: input.name, email: input.email, password: input.password, invitation: input.invitation ?? null },
    ip,
  );
  return {
    user,
    passwordChangeRequired: false,
    record: null,
    deviceProof: deps.devices.issue(id, passwordHash ?? ''),
  };
}

/** How a sign-in was made, as its audit record says. */
type SignInMethod = 'password' | 'one-time code' | 'Google';

/** The record of a sign-in, written with the session it starts. */
const signInRecord = (user: { id: string; name: string }, method: SignInMethod, ip: string): AuditEntry => ({
  action: 'sign_in',
  actor: { id: user.id, name: user.name },
  ip,
  details: { method },
});

/**
 * Records a refused sign-in in a transaction of its own (nothing else is written): the email tried, the account it
 * names if there is one, why it was refused. Never the password.
 */
const recordFailedSignIn = (
  db: Db,
  attempt: { email: string; account: UserRow | undefined; method: SignInMethod; reason: string; ip: string },
): Promise<void> =>
  recordAuditAlone(db, {
    action: 'sign_in_failed',
    actor: null,
    ...(attempt.account ? { target: { id: attempt.account.id, name: attempt.account.name } } : {}),
    ip: attempt.ip,
    details: { email: attempt.email, method: attempt.method, reason: attempt.reason },
  });

/** Why a password sign-in was refused, for the audit trail (an admin reads it; the person is told only "invalid"). */
function passwordRefusal(row: UserRow | undefined): string {
  if (!row) return 'no account has this email';
  if (row.deactivatedAt) return 'the account was deleted';
  if (!row.passwordHash) return 'the account signs in with Google';
  return row.mustChangePassword ? 'wrong one-time code' : 'wrong password';
}

/** Runs `attempt`; a refusal of it is recorded as a failed sign-in, then passed on. */
async function recordingRefusal<T>(
  db: Db,
  attempt: () => Promise<T>,
  failed: (refusal: DomainError) => Parameters<typeof recordFailedSignIn>[1],
): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (error instanceof DomainError) await recordFailedSignIn(db, failed(error));
    throw error;
  }
}

/**
 * Email and password sign-in; the same message for an unknown email and a wrong password. `deviceProofs` are
 * those the browser carries: one this server signed for the account makes the attempt a trusted device's. After a
 * reset the password is a one-time code: it signs in once, to a session that may only choose a new password. A
 * refusal after the password was checked is recorded in the audit trail (one throttled before is not: nothing was tried).
 */
export async function login(
  deps: AccountDeps,
  input: LoginRequest,
  ip: string,
  deviceProofs: readonly string[] = [],
): Promise<PasswordSignIn> {
  const row = await findByEmail(deps.db, input.email);
  const usableHash = row && !row.deactivatedAt ? row.passwordHash : null;
  const device = row && usableHash ? (deps.devices.trusted(deviceProofs, row.id, usableHash)?.nonce ?? null) : null;
  await deps.throttle.beforeAttempt(ip, input.email, device);
  const ok = row && usableHash ? await verifyPassword(usableHash, passwordCandidate(row, input.password)) : false;
  if (!row || !usableHash || !ok) {
    // Security: a deactivated or password-less account costs the same verification as an unknown email.
    if (!usableHash) await burnVerification(input.password);
    await deps.throttle.recordFailure(ip, input.email, device);
    const reason = passwordRefusal(row);
    await recordFailedSignIn(deps.db, { email: input.email, account: row, method: 'password', reason, ip });
    throw new DomainError('invalid_credentials');
  }
  await deps.throttle.recordSuccess(ip, input.email, device);
  const method: SignInMethod = row.mustChangePassword ? 'one-time code' : 'password';
  if (row.mustChangePassword)
    await recordingRefusal(
      deps.db,
      () => spendResetCode(deps.db, row),
      (refusal) => ({ email: input.email, account: row, method, reason: refusal.message, ip }),
    );
  return {
    user: toUserDto(row),
    passwordChangeRequired: row.mustChangePassword,
    record: signInRecord(row, method, ip),
    deviceProof: deps.devices.issue(row.id, usableHash),
  };
}

export const googleJwks = (url: string): JWTVerifyGetKey => createRemoteJWKSet(new URL(url));

/**
 * Google sign-in: the ID token's signature, issuer, audience and expiry are verified; a new email gets an employee
 * account if the sign-up policy admits it. Once Google has named the email, a refusal is recorded in the audit trail
 * (a token Google did not sign names nobody, and is not).
 */
export async function googleLogin(deps: AccountDeps, { tokenId }: GoogleLoginRequest, ip: string): Promise<SignIn> {
  const { clientId, jwks } = deps.google;
  if (!clientId || !jwks) throw new DomainError('google_not_configured');
  let claims: { sub?: string | undefined; email?: unknown; email_verified?: unknown; name?: unknown };
  try {
    ({ payload: claims } = await jwtVerify(tokenId, jwks, {
      issuer: ['https://accounts.google.com', 'accounts.google.com'],
      audience: clientId,
      algorithms: ['RS256'],
    }));
  } catch {
    throw new DomainError('google_token_invalid');
  }
  if (typeof claims.email !== 'string' || claims.email_verified !== true || !claims.sub) {
    throw new DomainError('google_token_invalid', 'Google did not confirm this email address');
  }
  const email = claims.email.trim().toLowerCase();
  const existing = await findByEmail(deps.db, email);
  if (existing) {
    if (existing.deactivatedAt) {
      await recordFailedSignIn(deps.db, {
        email,
        account: existing,
        method: 'Google',
        reason: passwordRefusal(existing),
        ip,
      });
      throw new DomainError('invalid_credentials');
    }
    // Google proves who they are; a reset still asks them to choose a password before anything else.
    return {
      user: toUserDto(existing),
      passwordChangeRequired: existing.mustChangePassword,
      record: signInRecord(existing, 'Google', ip),
    };
  }
  const shown = typeof claims.name === 'string' ? stripInvisible(claims.name).trim() : '';
  const name = shown || (email.split('@')[0] ?? email);
  const googleSub = claims.sub;
  const { user } = await recordingRefusal(
    deps.db,
    () => signUp(deps, { id: uuidv7(), name, email, password: null, googleSub }, ip),
    (refusal) => ({ email, account: undefined, method: 'Google', reason: refusal.message, ip }),
  );
  return { user, passwordChangeRequired: false, record: signInRecord(user, 'Google', ip) };
}

/**
 * PUT /api/auth/updatepassword: the current password must match. The session that asked goes on with its
 * token (the spec's client never reads a new one); every other session of the user ends, and every device proof.
 */
export async function changePassword(
  deps: AccountDeps,
  actor: Actor,
  sessionId: string,
  input: UpdatePasswordRequest,
  ip: string,
): Promise<{ deviceProof: string }> {
  const [row] = await deps.db.select().from(users).where(eq(users.id, actor.id));
  if (!row || row.deactivatedAt) throw new DomainError('user_not_found');
  if (!row.passwordHash) throw new DomainError('invalid_input', accountTexts.noPasswordAccount);
  if (!(await verifyPassword(row.passwordHash, input.currentPassword))) {
    throw new DomainError('invalid_input', accountTexts.currentPasswordWrong);
  }
  const passwordHash = await hashPassword(input.newPassword);
  await runCommand(
    deps.db,
    deps.flush,
    actor,
    setPasswordCommand,
    { passwordHash, verifiedHash: row.passwordHash, keepSessionId: sessionId },
    ip,
  );
  // The new password revokes every proof of the account; the browser that set it stays trusted.
  return { deviceProof: deps.devices.issue(actor.id, passwordHash) };
}
