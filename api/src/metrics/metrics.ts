import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** How a web push delivery attempt ended. */
export type PushDeliveryOutcome = 'sent' | 'retried' | 'dropped' | 'gone';

/** How a pushed mutation ended (sync-protocol's push outcomes). */
export type MutationOutcome = 'applied' | 'duplicate' | 'rejected';

/** Figures read from the server's state when Prometheus scrapes, not counted on the request path. */
export interface ScrapedFigures {
  changeLogHead(): Promise<number>;
  changeLogFloor(): Promise<number>;
  pushQueueDepth(): Promise<number>;
  connectedSockets(): number;
}

/**
 * What the server counts for `GET /metrics`. Counting is a few additions per request; everything that needs a read
 * (the change log's head, the push queue's depth) is read when Prometheus asks, so a busy server pays nothing for
 * it between scrapes.
 */
export interface WorkspaceMetrics {
  request(method: string, route: string, status: number, seconds: number): void;
  mutations(outcomes: readonly MutationOutcome[]): void;
  writeBatch(size: number): void;
  pushDelivery(outcome: PushDeliveryOutcome): void;
}

/** The metrics of a server without METRICS_TOKEN: nothing is counted. */
export const noMetrics: WorkspaceMetrics = {
  request: () => undefined,
  mutations: () => undefined,
  writeBatch: () => undefined,
  pushDelivery: () => undefined,
};

/** Latency buckets of an API answer, in seconds: 1 ms to 10 s (the HTTP client's timeout). */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Writes per transaction of the write batcher: 1 up to its bound of 256. */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/** A registry of the server's metrics (one per app: the tests build many apps in one process). */
export class PrometheusMetrics implements WorkspaceMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly requestSeconds: Histogram<'method' | 'route' | 'status'>;
  private readonly mutationOutcomes: Counter<'outcome'>;
  private readonly batchSizes: Histogram;
  private readonly pushDeliveries: Counter<'outcome'>;

  constructor(figures: ScrapedFigures) {
    const registers = [this.registry];
    // Event loop lag, heap and resident memory, CPU, handles: prom-client's process metrics.
    collectDefaultMetrics({ register: this.registry, prefix: 'office_' });
    this.requests = new Counter({
      name: 'office_http_requests_total',
      help: 'API requests answered, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: 'office_http_request_duration_seconds',
      help: 'Time from a request to its answer, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.mutationOutcomes = new Counter({
      name: 'office_sync_mutations_total',
      help: 'Mutations pushed through /api/sync/push, by outcome.',
      labelNames: ['outcome'],
      registers,
    });
    this.batchSizes = new Histogram({
      name: 'office_write_batch_size',
      help: 'Writes committed together by the write batcher, per transaction.',
      buckets: BATCH_BUCKETS,
      registers,
    });
    this.pushDeliveries = new Counter({
      name: 'office_push_deliveries_total',
      help: 'Web push delivery attempts, by outcome (sent, retried later, dropped, subscription gone).',
      labelNames: ['outcome'],
      registers,
    });
    new Gauge({
      name: 'office_change_log_head',
      help: 'The newest change-log number (the version a client reaches by pulling everything).',
      registers,
      async collect() {
        this.set(await figures.changeLogHead());
      },
    });
    new Gauge({
      name: 'office_change_log_floor',
      help: 'The compaction floor: cursors at or below it bootstrap.',
      registers,
      async collect() {
        this.set(await figures.changeLogFloor());
      },
    });
    new Gauge({
      name: 'office_push_queue_depth',
      help: 'Web push deliveries waiting to be sent or retried.',
      registers,
      async collect() {
        this.set(await figures.pushQueueDepth());
      },
    });
    new Gauge({
      name: 'office_sockets_connected',
      help: 'Socket.IO connections open on this node.',
      registers,
      collect() {
        this.set(figures.connectedSockets());
      },
    });
  }

  request(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.requestSeconds.observe(labels, seconds);
  }

  mutations(outcomes: readonly MutationOutcome[]): void {
    for (const outcome of outcomes) this.mutationOutcomes.inc({ outcome });
  }

  writeBatch(size: number): void {
    this.batchSizes.observe(size);
  }

  pushDelivery(outcome: PushDeliveryOutcome): void {
    this.pushDeliveries.inc({ outcome });
  }
}
