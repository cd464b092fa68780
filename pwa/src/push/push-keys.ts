/**
 * The VAPID public key as `pushManager.subscribe` wants it: bytes, from the server's base64url text
 * (padding optional, whitespace ignored). Throws on characters that are not base64url.
 */
export function urlBase64ToUint8Array(base64url: string): Uint8Array<ArrayBuffer> {
  const compact = base64url.replace(/\s+/g, '').replace(/=+$/, '');
  if (!/^[A-Za-z0-9_-]*$/.test(compact) || compact.length % 4 === 1) {
    throw new Error('The push key is not base64url text');
  }
  const base64 = compact.replaceAll('-', '+').replaceAll('_', '/');
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let index = 0; index < binary.length; index += 1) {
    bytes[index] = binary.charCodeAt(index);
  }
  return bytes;
}
