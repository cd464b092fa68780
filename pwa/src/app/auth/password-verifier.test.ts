import { describe, expect, test } from 'vitest';
import { constantTimeEqual, createVerifier, verifierIterations, verifyPassword } from './password-verifier';

// Each derivation is 600 000 PBKDF2 rounds: three of them took more than the default 5 s on a busy 2-core machine.
describe('the offline password verifier', { timeout: 60_000 }, () => {
  test('derives with PBKDF2-SHA-256 at no fewer than 600 000 iterations and keeps no password', async () => {
    const verifier = await createVerifier('correct horse');
    expect(verifierIterations).toBeGreaterThanOrEqual(600_000);
    expect(verifier).toMatchObject({ algorithm: 'PBKDF2-SHA-256', iterations: verifierIterations });
    expect(JSON.stringify(verifier)).not.toContain('correct horse');
    // 32 bytes of key, 16 bytes of salt, as base64.
    expect(atob(verifier.hash)).toHaveLength(32);
    expect(atob(verifier.salt)).toHaveLength(16);
  });

  test('each verifier gets its own random salt, so the same password never gives the same hash', async () => {
    const first = await createVerifier('demo1234');
    const second = await createVerifier('demo1234');
    expect(first.salt).not.toBe(second.salt);
    expect(first.hash).not.toBe(second.hash);
  });

  test('accepts the right password and refuses any other', async () => {
    const verifier = await createVerifier('demo1234');
    await expect(verifyPassword('demo1234', verifier)).resolves.toBe(true);
    await expect(verifyPassword('demo1235', verifier)).resolves.toBe(false);
    await expect(verifyPassword('', verifier)).resolves.toBe(false);
    await expect(verifyPassword('demo1234 ', verifier)).resolves.toBe(false);
  });

  test('checks with the iteration count and salt stored in the verifier', async () => {
    const light = await createVerifier('demo1234', 1_000);
    expect(light.iterations).toBe(1_000);
    await expect(verifyPassword('demo1234', light)).resolves.toBe(true);
    await expect(verifyPassword('demo1234', { ...light, iterations: 1_001 })).resolves.toBe(false);
  });
});

describe('the constant-time comparison', () => {
  test('is true only for equal bytes of equal length', () => {
    expect(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(true);
    expect(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 4]))).toBe(false);
    expect(constantTimeEqual(new Uint8Array([9, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(false);
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 0]))).toBe(false);
    expect(constantTimeEqual(new Uint8Array([]), new Uint8Array([]))).toBe(true);
  });

  test('reads every byte whatever the first difference, instead of stopping early', () => {
    const read: number[] = [];
    const watched = (bytes: number[]): Uint8Array =>
      new Proxy(new Uint8Array(bytes), {
        get(target, property) {
          if (typeof property === 'string' && /^\d+$/.test(property)) read.push(Number(property));
          return Reflect.get(target, property) as unknown;
        },
      });
    constantTimeEqual(watched([0, 1, 2, 3]), new Uint8Array([9, 9, 9, 9]));
    expect(read).toEqual([0, 1, 2, 3]);
  });
});
