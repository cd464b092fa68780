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

/** The last id made, and its millisecond: the next one in the same millisecond counts on from it. */
let lastMs = -1;
const lastBytes = new Uint8Array(16);

/** The id's 74 random bits (rand_a and rand_b, around the version and variant bits): byte and mask, least significant first. */
const RANDOM_BITS: readonly (readonly [number, number])[] = [
  [15, 0xff],
  [14, 0xff],
  [13, 0xff],
  [12, 0xff],
  [11, 0xff],
  [10, 0xff],
  [9, 0xff],
  [8, 0x3f],
  [7, 0xff],
  [6, 0x0f],
];
const increment = new Uint8Array(4);

/**
 * Adds a random number from 1 to 2^32 to the id's random bits, in place; false when they overflow. Random, not
 * one: the next id must not be guessable from the last, or someone could claim the id the server gives next.
 */
function incrementRandomBits(bytes: Uint8Array): boolean {
  randomBytesInto(increment);
  let carry = 1;
  for (const [position, [index, mask]] of RANDOM_BITS.entries()) {
    const byte = bytes[index] ?? 0;
    const sum = (byte & mask) + (increment[position] ?? 0) + carry;
    bytes[index] = (byte & ~mask) | (sum & mask);
    carry = sum > mask ? 1 : 0;
  }
  return carry === 0;
}

/**
 * A new UUIDv7: time-ordered, so ids sort by creation time on both sides. Ids made one after another in the same
 * millisecond sort in the order they were made (RFC 9562, section 6.2, "monotonic random"): two chat messages
 * posted within one millisecond share their time, and every device orders those by id.
 */
export function uuidv7(now: number = Date.now()): string {
  const bytes = new Uint8Array(16);
  if (now === lastMs && incrementRandomBits(lastBytes)) {
    bytes.set(lastBytes);
  } else {
    randomBytesInto(bytes);
    // The 48-bit millisecond time, big-endian, in number arithmetic (exact below 2^53; BigInt cost more than the rest).
    for (let i = 5, rest = now; i >= 0; i--, rest = Math.floor(rest / 256)) bytes[i] = rest % 256;
    bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x70;
    bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  }
  lastMs = now;
  lastBytes.set(bytes);
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
