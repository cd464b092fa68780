import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { aUser } from '../../../test/sync-support';
import {
  deviceAccountFor,
  forgetDeviceAccount,
  forgetDeviceVerifier,
  lastGoogleAccount,
  offlineRetryDelayMs,
  rememberGoogleAccount,
  setDeviceDatabaseDeps,
  signInOffline,
  startRememberingPassword,
  updateDeviceAccount,
} from './device-accounts';

const alice = aUser('01900000-0000-7000-8000-000000000001');
const bob = aUser('01900000-0000-7000-8000-000000000002', { name: 'Bob Smith', email: 'bob@demo.local' });

/** An online sign-in with `password` that the server accepted. */
const rememberPasswordAccount = (user: typeof alice, token: string, password: string) =>
  startRememberingPassword(password)(user, token);

beforeEach(() => setDeviceDatabaseDeps({ indexedDB: new IDBFactory(), IDBKeyRange }));
afterEach(() => setDeviceDatabaseDeps(undefined));

// Every remembered password derives 600 000 PBKDF2 rounds, which takes a while on a busy machine.
describe('what a device remembers to open an account offline', { timeout: 60_000 }, () => {
  test('the right password restores the user and token of the last online sign-in', async () => {
    await rememberPasswordAccount({ ...alice, password: 'never stored' } as typeof alice, 'token-a', 'demo1234');
    await expect(signInOffline(' ALICE@demo.local ', 'demo1234')).resolves.toEqual({
      ok: true,
      user: alice,
      token: 'token-a',
    });
    const stored = await deviceAccountFor('alice@demo.local');
    expect(JSON.stringify(stored)).not.toContain('demo1234');
    expect(JSON.stringify(stored)).not.toContain('never stored');
  });

  test('after a reset the old password no longer opens the account offline; the new one does once remembered', async () => {
    await rememberPasswordAccount(alice, 'token-a', 'old-pass');
    await rememberGoogleAccount(alice, 'token-a');
    await forgetDeviceVerifier(alice.id);
    await expect(signInOffline('alice@demo.local', 'old-pass')).resolves.toEqual({
      ok: false,
      reason: 'unknown-account',
    });
    // Only the verifier goes: the Google sign-in that may continue offline is another proof, kept.
    await expect(lastGoogleAccount()).resolves.toMatchObject({ userId: alice.id });
    await rememberPasswordAccount(alice, 'token-b', 'new-pass');
    await expect(signInOffline('alice@demo.local', 'old-pass')).resolves.toMatchObject({ ok: false });
    await expect(signInOffline('alice@demo.local', 'new-pass')).resolves.toMatchObject({ ok: true, token: 'token-b' });
  });

  test('a wrong password is refused, and an account never signed in here is unknown', async () => {
    await rememberPasswordAccount(alice, 'token-a', 'demo1234');
    await expect(signInOffline('alice@demo.local', 'wrong')).resolves.toEqual({ ok: false, reason: 'wrong-password' });
    await expect(signInOffline('bob@demo.local', 'demo1234')).resolves.toEqual({
      ok: false,
      reason: 'unknown-account',
    });
  });

  test('one account’s password never opens another account', async () => {
    await rememberPasswordAccount(alice, 'token-a', 'alice-pass');
    await rememberPasswordAccount(bob, 'token-b', 'bob-pass');
    await expect(signInOffline('alice@demo.local', 'bob-pass')).resolves.toMatchObject({ ok: false });
    await expect(signInOffline('bob@demo.local', 'bob-pass')).resolves.toMatchObject({ ok: true, token: 'token-b' });
  });

  test('after five wrong passwords each further try waits 30 seconds, then the right one works', async () => {
    await rememberPasswordAccount(alice, 'token-a', 'demo1234');
    const start = 1_000_000;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await expect(signInOffline('alice@demo.local', 'wrong', start + attempt)).resolves.toMatchObject({
        reason: 'wrong-password',
      });
    }
    // Even the right password waits now.
    await expect(signInOffline('alice@demo.local', 'demo1234', start + 10_000)).resolves.toEqual({
      ok: false,
      reason: 'wait',
      retryInMs: offlineRetryDelayMs - 10_000 + 4,
    });
    // After the pause one more try is allowed; a wrong one starts another pause.
    const later = start + 4 + offlineRetryDelayMs;
    await expect(signInOffline('alice@demo.local', 'wrong', later)).resolves.toMatchObject({
      reason: 'wrong-password',
    });
    await expect(signInOffline('alice@demo.local', 'demo1234', later + 1)).resolves.toMatchObject({ reason: 'wait' });
    await expect(signInOffline('alice@demo.local', 'demo1234', later + offlineRetryDelayMs)).resolves.toMatchObject({
      ok: true,
    });
    // A success clears the count.
    await expect(signInOffline('alice@demo.local', 'wrong', later + offlineRetryDelayMs + 1)).resolves.toMatchObject({
      reason: 'wrong-password',
    });
  });

  test('a rename, a new email and a renewed token follow the account', async () => {
    await rememberPasswordAccount(alice, 'token-a', 'demo1234');
    await updateDeviceAccount(alice.id, { user: { ...alice, name: 'Alice J', email: 'alice.j@demo.local' } });
    await updateDeviceAccount(alice.id, { token: 'token-a2' });
    await expect(signInOffline('alice@demo.local', 'demo1234')).resolves.toMatchObject({ reason: 'unknown-account' });
    await expect(signInOffline('alice.j@demo.local', 'demo1234')).resolves.toMatchObject({
      ok: true,
      token: 'token-a2',
      user: { name: 'Alice J' },
    });
  });

  test('logout forgets the account on this device', async () => {
    await rememberPasswordAccount(alice, 'token-a', 'demo1234');
    await forgetDeviceAccount(alice.id);
    await expect(signInOffline('alice@demo.local', 'demo1234')).resolves.toMatchObject({ reason: 'unknown-account' });
  });

  test('the Google account last used here is offered to continue offline; a password account is not', async () => {
    await rememberPasswordAccount(alice, 'token-a', 'demo1234');
    await expect(lastGoogleAccount()).resolves.toBeUndefined();
    await rememberGoogleAccount(bob, 'token-b');
    await expect(lastGoogleAccount()).resolves.toMatchObject({ userId: bob.id, token: 'token-b' });
    await new Promise((resolve) => setTimeout(resolve, 2));
    await rememberGoogleAccount(alice, 'token-a3');
    await expect(lastGoogleAccount()).resolves.toMatchObject({ userId: alice.id, token: 'token-a3' });
    // Alice keeps her password verifier too.
    await expect(signInOffline('alice@demo.local', 'demo1234')).resolves.toMatchObject({ ok: true });
  });
});
