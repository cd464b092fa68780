import { createRequire } from 'node:module';
import { describe, expect, test } from 'vitest';
import { startTestServer, signIn, bearer, uniqueText } from '../../test/support';
import { mutation } from '../../test/api-client';
import { PROTOCOL_VERSION, uuidv7 } from '@office/sync-protocol';

/** One metric family as parse-prometheus-text-format reads it. */
interface MetricFamily {
  name: string;
  type: string;
  metrics: { value?: string; labels?: Record<string, string> }[];
}
// The parser ships no types; this is the part of its answer the tests read.
const parsePrometheus = createRequire(import.meta.url)('parse-prometheus-text-format') as (
  text: string,
) => MetricFamily[];

const TOKEN = 'metrics-token-of-the-tests-0123456789';

interface Scrape {
  families: Map<string, MetricFamily>;
  text: string;
}

async function scrape(url: string): Promise<Scrape> {
  const answer = await fetch(`${url}/metrics`, { headers: bearer(TOKEN) });
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await answer.text();
  return { families: new Map(parsePrometheus(text).map((family) => [family.name, family])), text };
}

/** The value of a counter or gauge series whose labels include `labels` (0 when there is none yet). */
function valueOf({ families }: Scrape, name: string, labels: Record<string, string> = {}): number {
  const series = families
    .get(name)
    ?.metrics.find((metric) => Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value));
  return Number(series?.value ?? 0);
}

describe('GET /metrics', () => {
  test('without METRICS_TOKEN there is no metrics path', async () => {
    const server = await startTestServer({ seed: false });
    try {
      const answer = await fetch(`${server.url}/metrics`);
      expect(answer.status).toBe(404);
    } finally {
      await server.close();
    }
  });

  test('answers 401 without the token or with a wrong one', async () => {
    const server = await startTestServer({ seed: false, config: { metricsToken: TOKEN } });
    try {
      const none = await fetch(`${server.url}/metrics`);
      expect(none.status).toBe(401);
      expect(await none.json()).toMatchObject({ code: 'unauthenticated' });
      const wrong = await fetch(`${server.url}/metrics`, { headers: bearer(`${TOKEN}x`) });
      expect(wrong.status).toBe(401);
    } finally {
      await server.close();
    }
  });

  test('parses as Prometheus text, and a chat POST and a pushed mutation move the right counters', async () => {
    const server = await startTestServer({ config: { metricsToken: TOKEN } });
    try {
      const alice = await signIn(server.app, 'alice@demo.local');
      const before = await scrape(server.url);
      const route = { method: 'POST', route: '/api/messages', status: '201' };
      const posted = await fetch(`${server.url}/api/messages`, {
        method: 'POST',
        headers: { ...bearer(alice.token), 'content-type': 'application/json' },
        body: JSON.stringify({ id: uuidv7(), text: uniqueText('metrics') }),
      });
      expect(posted.status).toBe(201);
      const clientId = uuidv7();
      const pushed = await fetch(`${server.url}/api/sync/push`, {
        method: 'POST',
        headers: { ...bearer(alice.token), 'content-type': 'application/json' },
        body: JSON.stringify({
          clientId,
          version: PROTOCOL_VERSION,
          mutations: [
            mutation(1, 'chat.send', { id: uuidv7(), text: uniqueText('pushed') }),
            mutation(2, 'chat.delete', { id: uuidv7() }),
          ],
        }),
      });
      expect(pushed.status).toBe(200);
      const after = await scrape(server.url);

      expect(valueOf(after, 'office_http_requests_total', route)).toBe(
        valueOf(before, 'office_http_requests_total', route) + 1,
      );
      // The parser reads a labelled histogram's buckets but not its labels: its count line is read as text.
      expect(after.text).toContain(
        'office_http_request_duration_seconds_count{method="POST",route="/api/messages",status="201"}',
      );
      expect(valueOf(after, 'office_sync_mutations_total', { outcome: 'applied' })).toBe(
        valueOf(before, 'office_sync_mutations_total', { outcome: 'applied' }) + 1,
      );
      expect(valueOf(after, 'office_sync_mutations_total', { outcome: 'rejected' })).toBe(
        valueOf(before, 'office_sync_mutations_total', { outcome: 'rejected' }) + 1,
      );
      // Two messages were written: the change log's head moved by at least two.
      expect(valueOf(after, 'office_change_log_head')).toBeGreaterThanOrEqual(
        valueOf(before, 'office_change_log_head') + 2,
      );
      expect(after.families.get('office_write_batch_size')?.type).toBe('HISTOGRAM');
      for (const name of [
        'office_change_log_floor',
        'office_push_queue_depth',
        'office_sockets_connected',
        'office_nodejs_eventloop_lag_seconds',
        'office_process_resident_memory_bytes',
        'office_push_deliveries_total',
      ])
        expect(after.families.has(name), name).toBe(true);
    } finally {
      await server.close();
    }
  });
});
