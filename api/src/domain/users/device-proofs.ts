import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a browser stays trusted for an account after its last successful sign-in there. */
export const deviceProofTtlSeconds = 90 * 24 * 60 * 60;

/** A proof this server signed, read back: whose it is, its own id (what its failures count against), until when. */
export interface DeviceProof {
  userId: string;
  nonce: string;
  expiresAt: number;
}

const proofPattern = /^([0-9a-f-]{36})\.([A-Za-z0-9_-]{22})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

/**
 * OWASP's device cookies ("Slow Down Online Guessing Attacks with Device Cookies"): a browser that signed in
 * successfully as an account carries a signed proof of it, `userId.nonce.expiry.mac`. The MAC also covers the
 * account's current password hash, so a new password (the person's own or a reset) revokes every proof of the
 * account at once without a table of them; the nonce names one proof, so its own failures can lock it alone.
 */
export class DeviceProofs {
  private readonly key: Buffer;

  /** `secret` is the server's JWT secret; proofs are signed with a key derived from it for this use alone. */
  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('office-workspace device proof v1').digest();
  }

  /** A new proof that this browser signed in as `userId`, whose password hash is `passwordHash`. */
  issue(userId: string, passwordHash: string, now = Date.now()): string {
    const nonce = randomBytes(16).toString('base64url');
    const expiresAt = Math.floor(now / 1000) + deviceProofTtlSeconds;
    return `${userId}.${nonce}.${expiresAt}.${this.mac(userId, nonce, expiresAt, passwordHash)}`;
  }

  /** What a proof claims, unchecked: enough to keep or drop it beside another account's. */
  static read(proof: string): DeviceProof | null {
    const match = proofPattern.exec(proof);
    if (!match) return null;
    const [, userId = '', nonce = '', expiry = ''] = match;
    return { userId, nonce, expiresAt: Number(expiry) };
  }

  /** The first of `proofs` that this server signed for `userId` with its current `passwordHash`, unexpired. */
  trusted(proofs: readonly string[], userId: string, passwordHash: string, now = Date.now()): DeviceProof | null {
    for (const proof of proofs) {
      const claimed = DeviceProofs.read(proof);
      if (!claimed || claimed.userId !== userId || claimed.expiresAt * 1000 <= now) continue;
      const given = Buffer.from(proof.slice(proof.lastIndexOf('.') + 1));
      const expected = Buffer.from(this.mac(claimed.userId, claimed.nonce, claimed.expiresAt, passwordHash));
      if (given.length === expected.length && timingSafeEqual(given, expected)) return claimed;
    }
    return null;
  }

  private mac(userId: string, nonce: string, expiresAt: number, passwordHash: string): string {
    return createHmac('sha256', this.key).update(`${userId}.${nonce}.${expiresAt}.${passwordHash}`).digest('base64url');
  }
}
