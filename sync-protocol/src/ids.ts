import { z } from 'zod';

/** Each byte's two hex digits, looked up: a server makes an id per write. */
const HEX_PAIRS = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/**
 * Random bytes drawn from the platform's CSPRNG a few KiB at a time: a server makes an id per write, and one
 * `getRandomValues` call per id cost more than the rest of the id (Node's randomUUID pools the same way).
 */
const RANDOM_POOL_BYTES = 4096;
let randomPool = new Uint8Array(0);
let randomPoolOffset = 0;

function randomBytesInto(target: Uint8Array): void {
  if (randomPoolOffset + target.length > randomPool.length) {
    randomPool = crypto.getRandomValues(new Uint8Array(RANDOM_POOL_BYTES));
    randomPoolOffset = 0;
  }
  target.set(randomPool.subarray(randomPoolOffset, randomPoolOffset + target.length));
  randomPoolOffset += target.length;
}

/** A new UUIDv7: time-ordered, so ids sort by creation time on both sides. */
export function uuidv7(now: number = Date.now()): string {
  const bytes = new Uint8Array(16);
  randomBytesInto(bytes);
  // The 48-bit millisecond time, big-endian, in number arithmetic (exact below 2^53; BigInt cost more than the rest).
  for (let i = 5, rest = now; i >= 0; i--, rest = Math.floor(rest / 256)) bytes[i] = rest % 256;
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  let id = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) id += '-';
    id += HEX_PAIRS[bytes[i] ?? 0];
  }
  return id;
}

/** A well-formed entity id (any UUID version, lower case). */
export const idSchema = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'Must be a UUID');
