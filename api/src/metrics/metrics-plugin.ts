import { timingSafeEqual } from 'node:crypto';
import fp from 'fastify-plugin';
import { count } from 'drizzle-orm';
import { changeLogFloor, currentVersion } from '../domain/change-log';
import { pushDeliveries } from '../db/schema';
import { DomainError } from '../domain/errors';
import { noMetrics, PrometheusMetrics, type WorkspaceMetrics } from './metrics';

declare module 'fastify' {
  interface FastifyInstance {
    /** What the server counts for Prometheus (nothing without METRICS_TOKEN). */
    metrics: WorkspaceMetrics;
  }
}

/** Whether `given` is the bearer header of `token`, compared in constant time. */
function bearerMatches(given: string | undefined, token: string): boolean {
  const expected = Buffer.from(`Bearer ${token}`);
  const actual = Buffer.from(given ?? '');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * `GET /metrics` in Prometheus' text format, behind `METRICS_TOKEN` (a bearer token Prometheus sends with each
 * scrape). Without the token nothing is counted and the path does not exist.
 */
export const metricsPlugin = fp<{ token: string | null }>(
  (app, { token }, done) => {
    if (!token) {
      app.decorate('metrics', noMetrics);
      done();
      return;
    }
    const metrics = new PrometheusMetrics({
      changeLogHead: () => currentVersion(app.db),
      changeLogFloor: () => changeLogFloor(app.db),
      pushQueueDepth: async () => {
        const [row] = await app.db.select({ n: count() }).from(pushDeliveries);
        return row?.n ?? 0;
      },
      connectedSockets: () => app.realtime.io.of('/').sockets.size,
    });
    app.decorate('metrics', metrics);
    app.addHook('onResponse', (request, reply, hookDone) => {
      // The route's pattern, not its path: one series per route, whatever the ids in it.
      const route = request.routeOptions.url ?? 'unmatched';
      if (route.startsWith('/api/')) metrics.request(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
      hookDone();
    });
    const schema = { summary: "The server's metrics in Prometheus' text format (with METRICS_TOKEN)" };
    app.get('/metrics', { schema }, async (request, reply) => {
      if (!bearerMatches(request.headers.authorization, token)) throw new DomainError('unauthenticated');
      return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    });
    done();
  },
  { name: 'metrics' },
);
