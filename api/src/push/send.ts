import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveEndpoint } from './endpoint-guard';

/** What a push service answered: its status and, for 429 and 503, how long it asks us to wait. */
export interface PushAnswer {
  status: number;
  retryAfterMs: number | null;
}

const retryAfterOf = (response: IncomingMessage): number | null => {
  const header = response.headers['retry-after'];
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
};

/**
 * Sends one prepared web push request. Security: the endpoint's host is resolved and checked here, right
 * before the send, and the connection goes to that checked address only (a pinned lookup, so a DNS answer
 * that changes in between cannot point it elsewhere; TLS still verifies the host name). Redirects are never
 * followed: a 3xx is an answer like any other.
 */
export async function sendPushRequest(
  details: { endpoint: string; method: string; headers: Record<string, string | number>; body: Buffer | null },
  { allowLoopback, timeoutMs }: { allowLoopback: boolean; timeoutMs: number },
): Promise<PushAnswer> {
  const { url, address, family } = await resolveEndpoint(details.endpoint, { allowLoopback });
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<PushAnswer>((resolve, reject) => {
    const req = request(
      url,
      { method: details.method, headers: details.headers, lookup: pinned, timeout: timeoutMs, agent: false },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0, retryAfterMs: retryAfterOf(response) }));
        response.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`push service did not answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(details.body ?? undefined);
  });
}
