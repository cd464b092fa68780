import { Dexie, type EntityTable } from 'dexie';
import type { User } from '@office/sync-protocol';
import type { IndexedDbDeps } from '../../data/db';
import { createVerifier, verifyPassword, type PasswordVerifier } from './password-verifier';
import { withoutPassword } from './session-storage';

/**
 * What this device remembers of an account that signed in here online, so it can open offline:
 * the user and token of that sign-in, and a password verifier (never the password).
 */
export interface DeviceAccount {
  userId: string;
  /** Lower-cased, as the server compares it. */
  email: string;
  user: User;
  token: string;
  /** Absent for an account that only ever signed in with Google here. */
  verifier?: PasswordVerifier;
  /** When this account last signed in with Google on this device (ISO); indexed. */
  googleSignedInAt?: string;
  /** Wrong passwords in a row offline, and when the last one was tried (epoch ms). */
  failedAttempts: number;
  lastFailedAt: number | null;
}

/** After this many wrong passwords in a row offline, each further try waits `offlineRetryDelayMs`. */
export const offlineFreeAttempts = 5;
export const offlineRetryDelayMs = 30_000;

type DeviceDb = Dexie & { accounts: EntityTable<DeviceAccount, 'userId'> };

/** One small database per device (not per user): it is read before anyone is signed in. */
export const deviceDatabaseName = 'office-workspace-device';

let testDeps: IndexedDbDeps | undefined;
let opened: DeviceDb | null = null;

/** Tests pass fake-indexeddb; a fresh factory per test needs a fresh connection. */
export function setDeviceDatabaseDeps(deps: IndexedDbDeps | undefined): void {
  opened?.close();
  opened = null;
  testDeps = deps;
}

function deviceDb(): DeviceDb {
  if (opened) return opened;
  const db = new Dexie(deviceDatabaseName, testDeps ?? {}) as DeviceDb;
  db.version(1).stores({ accounts: 'userId, &email, googleSignedInAt' });
  opened = db;
  return db;
}

const normalEmail = (email: string): string => email.trim().toLowerCase();

async function upsert(user: User, token: string, change: Partial<DeviceAccount>): Promise<void> {
  const db = deviceDb();
  const clean = withoutPassword(user);
  const email = normalEmail(clean.email);
  await db.transaction('rw', db.accounts, async () => {
    // Another account that used this email before (it was changed since) loses it to this one.
    await db.accounts
      .where('email')
      .equals(email)
      .and((row) => row.userId !== clean.id)
      .delete();
    const current = await db.accounts.get(clean.id);
    await db.accounts.put({
      failedAttempts: 0,
      lastFailedAt: null,
      ...current,
      ...change,
      userId: clean.id,
      email,
      user: clean,
      token,
    });
  });
}

/**
 * For an online sign-in or registration with a password: starts deriving the password's verifier at once, beside
 * the request that carries the password, and returns what keeps it once the server has accepted that password.
 * The caller awaits the keeping before it reports success, so an app closed the moment the dashboard shows still
 * opens offline (a derivation begun after the answer was lost to a reload within a second or two).
 */
export function startRememberingPassword(password: string): (user: User, token: string) => Promise<void> {
  const derivation = createVerifier(password);
  // A refused sign-in never keeps it; an accepted one awaits it below and reports its failure there.
  derivation.catch(() => undefined);
  return async (user, token) => {
    const verifier = await derivation;
    await upsert(user, token, { verifier, failedAttempts: 0, lastFailedAt: null });
  };
}

/** After an online Google sign-in: this account may continue offline on this device. */
export async function rememberGoogleAccount(user: User, token: string): Promise<void> {
  await upsert(user, token, { googleSignedInAt: new Date().toISOString() });
}

/** Keeps the remembered user (renamed, new email, new avatar) and token (renewed) current. */
export async function updateDeviceAccount(userId: string, change: { user?: User; token?: string }): Promise<void> {
  const db = deviceDb();
  const current = await db.accounts.get(userId);
  if (!current) return;
  await upsert(change.user ?? current.user, change.token ?? current.token, {});
}

/**
 * The password was reset (or a one-time code signed in): the old password must no longer open the account offline
 * on this device. The next online sign-in with the new password derives a new verifier.
 */
export async function forgetDeviceVerifier(userId: string): Promise<void> {
  const db = deviceDb();
  await db.transaction('rw', db.accounts, async () => {
    const current = await db.accounts.get(userId);
    if (!current?.verifier) return;
    const { verifier: _forgotten, ...rest } = current;
    await db.accounts.put({ ...rest, failedAttempts: 0, lastFailedAt: null });
  });
}

/** Logout: this device no longer opens the account offline. */
export async function forgetDeviceAccount(userId: string): Promise<void> {
  await deviceDb().accounts.delete(userId);
}

/** The account that last signed in with Google here, for "Continue offline as {name}". */
export async function lastGoogleAccount(): Promise<DeviceAccount | undefined> {
  return deviceDb().accounts.orderBy('googleSignedInAt').last();
}

export async function deviceAccountFor(email: string): Promise<DeviceAccount | undefined> {
  return deviceDb().accounts.where('email').equals(normalEmail(email)).first();
}

export async function deviceAccountById(userId: string): Promise<DeviceAccount | undefined> {
  return deviceDb().accounts.get(userId);
}

/** The outcome of checking a password against this device's verifier. */
export type OfflineSignIn =
  | { ok: true; user: User; token: string }
  | { ok: false; reason: 'unknown-account' | 'wrong-password' }
  | { ok: false; reason: 'wait'; retryInMs: number };

/** Checks an email and password against what this device knows, with a pause after repeated failures. */
export async function signInOffline(email: string, password: string, now: number = Date.now()): Promise<OfflineSignIn> {
  const account = await deviceAccountFor(email);
  if (!account?.verifier) return { ok: false, reason: 'unknown-account' };
  if (account.failedAttempts >= offlineFreeAttempts && account.lastFailedAt !== null) {
    const retryInMs = account.lastFailedAt + offlineRetryDelayMs - now;
    if (retryInMs > 0) return { ok: false, reason: 'wait', retryInMs };
  }
  const matches = await verifyPassword(password, account.verifier);
  const db = deviceDb();
  if (!matches) {
    await db.accounts.update(account.userId, { failedAttempts: account.failedAttempts + 1, lastFailedAt: now });
    return { ok: false, reason: 'wrong-password' };
  }
  await db.accounts.update(account.userId, { failedAttempts: 0, lastFailedAt: null });
  return { ok: true, user: account.user, token: account.token };
}
