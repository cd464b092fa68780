/**
 * A local password verifier, so a device can check a password offline without keeping the password.
 * PBKDF2-SHA-256 through WebCrypto with OWASP's 2023 iteration count and a random salt per account.
 */
export interface PasswordVerifier {
  algorithm: 'PBKDF2-SHA-256';
  iterations: number;
  /** Base64 of the random salt. */
  salt: string;
  /** Base64 of the 256-bit derived key. */
  hash: string;
}

/** OWASP's recommendation for PBKDF2-HMAC-SHA256 (2023): at least 600 000 iterations. */
export const verifierIterations = 600_000;
const saltBytes = 16;
const hashBits = 256;

const toBase64 = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string): Uint8Array => Uint8Array.from(atob(text), (char) => char.charCodeAt(0));

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(password), 'PBKDF2', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt: salt as Uint8Array<ArrayBuffer>, iterations },
    key,
    hashBits,
  );
  return new Uint8Array(bits);
}

/** Derives a new verifier for a password, with a fresh random salt. */
export async function createVerifier(
  password: string,
  iterations: number = verifierIterations,
): Promise<PasswordVerifier> {
  const salt = crypto.getRandomValues(new Uint8Array(saltBytes));
  const hash = await derive(password, salt, iterations);
  return { algorithm: 'PBKDF2-SHA-256', iterations, salt: toBase64(salt), hash: toBase64(hash) };
}

/**
 * Compares two byte strings in time that depends only on their length, never on where they differ,
 * so a timing observer learns nothing about how much of a guess was right.
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.length ^ b.length;
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    difference |= (a[i] ?? 0) ^ (b[i] ?? 0);
  }
  return difference === 0;
}

/** Whether the password matches the verifier. */
export async function verifyPassword(password: string, verifier: PasswordVerifier): Promise<boolean> {
  const expected = fromBase64(verifier.hash);
  const actual = await derive(password, fromBase64(verifier.salt), verifier.iterations);
  return constantTimeEqual(actual, expected);
}
