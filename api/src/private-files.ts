import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';

/**
 * Everything under DATA_DIR (the database, the JWT secret, the VAPID keys, uploads and avatars) is the
 * server's alone: files 0600, folders 0700, whatever the process umask.
 */
export const privateFileMode = 0o600;
export const privateDirMode = 0o700;

/** Creates a folder only its owner may enter, and narrows one that an earlier version created wider. */
export function makePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: privateDirMode });
  chmodSync(path, privateDirMode);
}

/** Creates a file only its owner may read (or narrows one that exists), before a library opens it. */
export function makePrivateFile(path: string): void {
  if (existsSync(path)) chmodSync(path, privateFileMode);
  else closeSync(openSync(path, 'a', privateFileMode));
}
