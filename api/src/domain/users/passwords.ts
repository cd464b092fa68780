import { hash, verify } from '@node-rs/argon2';

/** argon2id (the library's default algorithm) with its recommended memory and time costs. */
export const hashPassword = (password: string): Promise<string> => hash(password);

export const verifyPassword = (passwordHash: string, password: string): Promise<boolean> =>
  verify(passwordHash, password).catch(() => false);

// Security: an unknown email still costs one verification, so timing does not reveal which emails exist.
const decoyHash = hash('decoy-password-never-matches');
export const burnVerification = async (password: string): Promise<void> => {
  await verifyPassword(await decoyHash, password);
};
