import type { FastifyReply, FastifyRequest } from 'fastify';
import { parse, serialize } from 'cookie';
import { DeviceProofs, deviceProofTtlSeconds } from '../../domain/users/device-proofs';

/**
 * The device proofs of the accounts that signed in with this browser, in one cookie.
 *
 * A cookie rather than a token the PWA keeps: JavaScript never reads it (HttpOnly), so a script injected into
 * the page cannot carry the proof off to bypass the lockouts from elsewhere; it outlives logout (the PWA forgets
 * its device account then, and tomorrow's sign-in is the one a lockout would block); and it works for any
 * browser client of the API without a change to its sign-in call. It authenticates nothing (the password is
 * still needed), goes only to the sign-in routes (Path) and never with a request another site starts (SameSite).
 */
export const deviceCookieName = 'office_device';

/** Proofs kept per browser: a shared desk's few accounts; the oldest goes first. */
const proofsKept = 5;

const separator = '~';

/** The proofs the request's browser carries (unchecked: the sign-in checks the one for its account). */
export function deviceProofsOf(request: FastifyRequest): string[] {
  const value = parse(request.headers.cookie ?? '')[deviceCookieName];
  return value ? value.split(separator).slice(0, proofsKept) : [];
}

/**
 * Sets the cookie to `fresh` and the browser's proofs of other accounts that have not expired, newest first.
 * Secure when the request came over HTTPS (as the proxy says, with TRUST_PROXY): a plain-HTTP office server still
 * gets its cookie.
 */
export function keepDeviceProof(request: FastifyRequest, reply: FastifyReply, fresh: string): void {
  const now = Date.now();
  const account = DeviceProofs.read(fresh)?.userId;
  const others = deviceProofsOf(request).filter((proof) => {
    const claimed = DeviceProofs.read(proof);
    return claimed !== null && claimed.userId !== account && claimed.expiresAt * 1000 > now;
  });
  const value = [fresh, ...others].slice(0, proofsKept).join(separator);
  reply.header(
    'set-cookie',
    serialize(deviceCookieName, value, {
      httpOnly: true,
      sameSite: 'strict',
      secure: request.protocol === 'https',
      path: '/api/auth',
      maxAge: deviceProofTtlSeconds,
    }),
  );
}
