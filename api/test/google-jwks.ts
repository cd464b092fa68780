import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type GenerateKeyPairResult, type JWTPayload } from 'jose';

export const TEST_GOOGLE_CLIENT_ID = 'test-client.apps.googleusercontent.com';
const KID = 'test-google-key';

/** What an ID token may vary from a valid Google one. */
export interface IdTokenOptions {
  issuer?: string;
  audience?: string;
  /** Seconds since the epoch; defaults to an hour from now. */
  expiresAt?: number;
  /** Signs with a key that is not in the served key set (same kid, so only the signature differs). */
  foreignKey?: boolean;
}

export interface GoogleJwks {
  /** Where the key set is served; give it to the app as `googleJwksUrl`. */
  url: string;
  /** Signs an RS256 ID token the way Google does; claims default to a verified email. */
  signIdToken(
    claims: JWTPayload & { email?: string; email_verified?: boolean; name?: string },
    options?: IdTokenOptions,
  ): Promise<string>;
  close(): Promise<void>;
}

/** A stand-in for Google's certificate endpoint: a JWKS of a fresh RS256 key on a local HTTP server. */
let keyPairs: Promise<[GenerateKeyPairResult, GenerateKeyPairResult]> | undefined;

export async function startGoogleJwks(): Promise<GoogleJwks> {
  // RSA key generation is slow; every server of a test run can share the same two keys.
  keyPairs ??= Promise.all([generateKeyPair('RS256'), generateKeyPair('RS256')]);
  const [served, foreign] = await keyPairs;
  const jwk = { ...(await exportJWK(served.publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  const body = JSON.stringify({ keys: [jwk] });

  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const sign = (claims: JWTPayload, key: CryptoKey, options: IdTokenOptions): Promise<string> =>
    new SignJWT({ email_verified: true, ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: KID, typ: 'JWT' })
      .setIssuer(options.issuer ?? 'https://accounts.google.com')
      .setAudience(options.audience ?? TEST_GOOGLE_CLIENT_ID)
      .setSubject(typeof claims.sub === 'string' ? claims.sub : `google-${Math.random().toString(36).slice(2)}`)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 60)
      .setExpirationTime(options.expiresAt ?? Math.floor(Date.now() / 1000) + 3600)
      .sign(key);

  return {
    url: `http://127.0.0.1:${port}/oauth2/v3/certs`,
    signIdToken: (claims, options = {}) =>
      sign(claims, options.foreignKey ? foreign.privateKey : served.privateKey, options),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
