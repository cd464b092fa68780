import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';
import compress from '@fastify/compress';
import multipart from '@fastify/multipart';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { limits, uploadLimits } from '@office/sync-protocol';
import type { Config } from './config';
import { googleJwks } from './domain/users/accounts';
import { DeviceProofs } from './domain/users/device-proofs';
import { LoginThrottle, type LoginThrottleOptions } from './domain/users/login-throttle';
import { backfillNameSkeletons } from './domain/users/name-lookalikes';
import { poolOf } from './db/postgres';
import { inMemoryLimiters, sharedLimiters } from './rate-limiters';
import { authPlugin } from './plugins/auth';
import { apiCompression } from './plugins/compression';
import { dbPlugin } from './plugins/db';
import { drainPlugin } from './plugins/drain';
import { rateLimitPlugin, RequestLimiter } from './plugins/rate-limit';
import { errorHandlerPlugin } from './plugins/error-handler';
import { inputGuardPlugin } from './plugins/input-guard';
import { protocolVersionPlugin } from './plugins/protocol-version';
import { staticPwaPlugin } from './plugins/static-pwa';
import { metricsPlugin } from './metrics/metrics-plugin';
import { openApiPlugin } from './openapi/openapi-plugin';
import { referenceRoutes } from './openapi/reference-routes';
import { apiReferencePagePath } from './openapi/route-docs';
import { realtimePlugin } from './realtime/io';
import { pushPlugin, type PushTuning } from './push/push-plugin';
import { pushRoutes } from './routes/push/index';
import { authRoutes } from './routes/auth/index';
import { healthRoutes } from './routes/health';
import { syncRoutes } from './routes/sync/index';
import { notificationRoutes } from './routes/notifications/index';
import { taskRoutes } from './routes/tasks/index';
import { messageRoutes } from './routes/messages/index';
import { directMessageRoutes } from './routes/direct-messages/index';
import { employeeRoutes } from './routes/employees/index';
import { auditRoutes } from './routes/audit/index';
import { searchRoutes } from './routes/search/index';
import { workspaceRoutes } from './routes/workspace/index';

export interface BuildOptions {
  config: Config;
  /**
   * Tunes the sign-in throttle (tests shorten its slow-down and the address's allowance); its counts stay where
   * the app keeps them, in PostgreSQL on several nodes.
   */
  throttle?: Omit<LoginThrottleOptions, 'create'>;
  logger?: boolean;
  /** Shorter push windows and retries for the tests. */
  push?: PushTuning;
}

/**
 * TRUST_PROXY as Fastify takes it. A number of hops is what proxy-addr does for a number (Fastify passes one on),
 * written out because Fastify's types leave the number out.
 */
const fastifyTrustProxy = (trust: Config['trustProxy']) =>
  typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : trust;

/** The headers a helmet policy sets, read once by running its middleware on a response that only records them. */
function headersOf(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: unknown) => {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader: () => undefined,
  };
  let failure: Error | undefined;
  // The middleware touches only setHeader and removeHeader of a response with a static policy.
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) failure = error instanceof Error ? error : new Error('A helmet policy failed to build');
  });
  if (failure) throw failure;
  return headers;
}

/** Builds the whole server: API, Socket.IO and (when configured) the PWA, on one Fastify instance. */
export async function buildApp({ config, throttle, logger = true, push }: BuildOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: logger ? { level: config.logLevel } : false,
    bodyLimit: limits.jsonBodyBytes,
    trustProxy: fastifyTrustProxy(config.trustProxy),
    // Off: the drain plugin answers new requests with our own 503 (body and Retry-After), during close() too.
    return503OnClosing: false,
    logController: new LogController({ disableRequestLogging: true }),
  });

  // Routes declare their body, query and params as zod schemas (sync-protocol's); what passes is the parsed value.
  app.setValidatorCompiler(validatorCompiler);
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // Many fetch wrappers and Node clients label a DELETE or PATCH without a body as JSON: that is no body, not bad JSON.
    if (body.length === 0) done(null, undefined);
    // parseAs 'string' hands the parser a string; the overload's type also admits a Buffer.
    else void parseJson(request, body as string, done);
  });

  // Security headers, read once from helmet's policies. (@fastify/helmet rebuilt helmet's middleware on every request,
  // and the middleware itself joins the CSP again each time.) Pages and files the browser opens get the document policy.
  const documentHeaders = headersOf({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", ...(config.googleClientId ? ['https://accounts.google.com'] : [])],
        styleSrc: ["'self'", "'unsafe-inline'", ...(config.googleClientId ? ['https://accounts.google.com'] : [])],
        imgSrc: ["'self'", 'data:', 'blob:'],
        connectSrc: ["'self'", ...(config.googleClientId ? ['https://accounts.google.com'] : [])],
        frameSrc: config.googleClientId ? ['https://accounts.google.com'] : ["'none'"],
        workerSrc: ["'self'"],
        manifestSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        upgradeInsecureRequests: null,
      },
    },
    // Google's sign-in popup talks back to this window.
    crossOriginOpenerPolicy: { policy: config.googleClientId ? 'same-origin-allow-popups' : 'same-origin' },
    strictTransportSecurity: false,
  });
  // API answers are data, never a page: what OWASP's REST Security Cheat Sheet asks of them. Nothing may load, frame,
  // sniff or embed them from another origin; the policies that only a document applies (opener, referrer, agent
  // cluster, DNS prefetch, legacy IE and Flash switches) are left out: 7 of 12 headers set and sent with every answer.
  const apiHeaders = headersOf({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    crossOriginOpenerPolicy: false,
    crossOriginResourcePolicy: { policy: 'same-origin' },
    originAgentCluster: false,
    referrerPolicy: false,
    strictTransportSecurity: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xFrameOptions: { action: 'deny' },
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  });
  // The API reference's page is a document of this origin like the PWA's, under /api.
  const isApiAnswer = (url: string) => url.startsWith('/api/') && url.split('?')[0] !== apiReferencePagePath;
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(isApiAnswer(request.url) ? apiHeaders : documentHeaders);
    done();
  });
  // Files stream to disk part by part; these limits end a request that goes past them (413).
  await app.register(multipart, {
    limits: {
      fileSize: uploadLimits.fileBytes,
      files: uploadLimits.files,
      fields: 5,
      fieldSize: 8 * 1024,
      parts: uploadLimits.files + 5,
    },
  });
  await app.register(errorHandlerPlugin, { spaFallback: config.staticDir !== null });
  await app.register(inputGuardPlugin);
  // First among the request hooks: while draining, nothing else runs for a new request.
  await app.register(drainPlugin);
  await app.register(protocolVersionPlugin);
  // Before any route: it documents each one as it is added.
  await app.register(openApiPlugin);
  // Before the database: the write batcher and the push queue count into it.
  await app.register(metricsPlugin, { token: config.metricsToken });
  await app.register(dbPlugin, { config });
  await backfillNameSkeletons(app.db);
  await app.register(authPlugin);
  // Several nodes share one count per person and address; one node counts in memory.
  const pool = poolOf(app.db);
  const limiters = pool ? sharedLimiters(pool) : inMemoryLimiters;
  await app.register(rateLimitPlugin, {
    limiter: new RequestLimiter({ perUser: config.rateLimitPerUser, perIp: config.rateLimitPerIp }, limiters),
  });
  await app.register(realtimePlugin);
  await app.register(pushPlugin, push ?? {});

  const accounts = {
    db: app.db,
    flush: app.flush,
    throttle: new LoginThrottle({ ...throttle, create: limiters }),
    devices: new DeviceProofs(config.jwtSecret),
    google: {
      clientId: config.googleClientId,
      jwks: config.googleClientId ? googleJwks(config.googleJwksUrl) : null,
    },
    signupDefaults: config.signupDefaults,
  };
  await app.register(
    async (api) => {
      // Compressed answers for clients that accept them (pull pages above all); the PWA's own files are not in this
      // scope (they are precompressed) and neither is Socket.IO (it answers on the raw server).
      await api.register(compress, apiCompression);
      await api.register(healthRoutes);
      await api.register(authRoutes, { prefix: '/auth', accounts });
      await api.register(syncRoutes, { prefix: '/sync' });
      await api.register(taskRoutes, { prefix: '/tasks' });
      await api.register(notificationRoutes, { prefix: '/notifications' });
      await api.register(messageRoutes, { prefix: '/messages' });
      await api.register(directMessageRoutes, { prefix: '/direct-messages' });
      await api.register(employeeRoutes, { prefix: '/employees' });
      await api.register(workspaceRoutes, { prefix: '/workspace' });
      await api.register(pushRoutes, { prefix: '/push' });
      await api.register(auditRoutes, { prefix: '/audit' });
      await api.register(searchRoutes, { prefix: '/search' });
      await api.register(referenceRoutes);
    },
    { prefix: '/api' },
  );
  if (config.staticDir) await app.register(staticPwaPlugin, { root: config.staticDir });
  return app;
}
