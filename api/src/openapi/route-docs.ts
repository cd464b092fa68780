import type { FastifyInstance, RouteOptions } from 'fastify';
import { errorBodySchema, errorCatalogue, type ErrorCode } from '@office/sync-protocol';
import { isUncounted } from '../plugins/rate-limit';

declare module 'fastify' {
  interface FastifySchema {
    /**
     * The error codes the route itself answers with (its policy's, its lookups', its conflicts'). What every route of
     * its kind can answer (the sign-in check's, the rate limit's, a malformed body's) is added by `documentRoute`.
     * Both become the route's error answers in the API reference (openapi-plugin.ts).
     */
    refuses?: readonly ErrorCode[];
  }
}

/** The path of the API reference's page (a document, not an API answer: see app.ts's headers). */
export const apiReferencePagePath = '/api/docs';

/** Whether a route belongs to the API the reference documents: /api and the Prometheus scrape, not the PWA's files. */
export const isDocumentedRoute = (url: string): boolean => url.startsWith('/api/') || url === '/metrics';

/** The checks a route's onRequest may run, by what they let through. */
export interface RouteGuards {
  /** A live session with a chosen password. */
  signedIn: unknown;
  /** A live session, also one that must choose a new password first. */
  signedInDuringPasswordChange: unknown;
}

/** Who may call a route, as the reference tells it. */
export type RouteAccess = 'signed-in' | 'public' | 'metrics-token';

/** The route's onRequest hooks, whether it gave one or a list. */
const onRequestHooks = (route: Pick<RouteOptions, 'onRequest'>): unknown[] =>
  route.onRequest === undefined ? [] : [route.onRequest].flat();

export function accessOf(route: Pick<RouteOptions, 'onRequest' | 'url'>, guards: RouteGuards): RouteAccess {
  if (route.url === '/metrics') return 'metrics-token';
  const hooks = onRequestHooks(route);
  return hooks.includes(guards.signedIn) || hooks.includes(guards.signedInDuringPasswordChange)
    ? 'signed-in'
    : 'public';
}

const bodyMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What a route can answer whatever it does itself: the refusals of the plugins and hooks every request meets. */
export function commonRefusals(route: Pick<RouteOptions, 'onRequest' | 'url' | 'method'>, guards: RouteGuards) {
  const methods = [route.method].flat();
  const codes = new Set<ErrorCode>([
    // A query with a NUL, or input its schema refuses (input-guard.ts, the zod validator).
    'invalid_input',
    // While the node drains for a restart (drain.ts).
    'unavailable',
    'internal',
  ]);
  if (route.url.startsWith('/api/')) {
    codes.add('client_outdated');
    if (!methods.every((method) => isUncounted(method, route.url))) codes.add('rate_limited');
  }
  if (methods.some((method) => bodyMethods.has(method))) {
    codes.add('malformed_json');
    codes.add('payload_too_large');
    codes.add('unsupported_media_type');
  }
  const access = accessOf(route, guards);
  if (access === 'signed-in') {
    codes.add('unauthenticated');
    codes.add('token_expired');
    codes.add('password_reset');
    // Only the choice of a new password and signing out are open to a session that must choose one.
    if (onRequestHooks(route).includes(guards.signedIn)) codes.add('password_change_required');
  }
  if (access === 'metrics-token') codes.add('unauthenticated');
  return codes;
}

/** An error answer of the reference: the `{ code, message }` body with the codes this status carries on the route. */
export interface RefusalResponse {
  description: string;
  content: { 'application/json': { schema: ReturnType<typeof errorBodySchema> } };
}

/** The error answers of `codes`, one per status, each naming its codes and their default messages. */
export function refusalResponses(codes: Iterable<ErrorCode>): Record<number, RefusalResponse> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const { status } = errorCatalogue[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, RefusalResponse> = {};
  for (const [status, [first, ...rest]] of [...byStatus].sort(([a], [b]) => a - b)) {
    if (!first) continue;
    const atStatus: [ErrorCode, ...ErrorCode[]] = [first, ...rest];
    responses[status] = {
      description: atStatus.map((code) => `${code}: ${errorCatalogue[code].message}`).join('\n'),
      content: { 'application/json': { schema: errorBodySchema(atStatus) } },
    };
  }
  return responses;
}

/** The guards of this app's auth plugin, read when routes are added (the plugin decorates the app after this one). */
export const guardsOf = (app: FastifyInstance): RouteGuards => ({
  signedIn: app.authenticate,
  signedInDuringPasswordChange: app.authenticateDuringPasswordChange,
});
