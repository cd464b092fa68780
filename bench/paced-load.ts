import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LoadRun } from './http-load';
import type { BenchSession } from './session';

export interface PacedLoadOptions {
  url: string;
  path: string;
  /** Request n's path, when they differ (`path` is then the first's). */
  pathOf?: (index: number) => string;
  method: 'GET' | 'POST';
  /** Requests take these sessions' tokens round robin (none: no token). */
  sessions: BenchSession[];
  /** Requests per second, each sent at its own time. */
  rate: number;
  seconds: number;
  /** Keep-alive connections the requests share; a request waits for a free one like a browser's would. */
  connections: number;
  /** `[<id>]` in the body is replaced by a fresh number per request. */
  body?: string;
  /** Told of each answer: when its request was due and how long it took (ms, on the performance clock). */
  onAnswer?: (dueAt: number, latencyMs: number) => void;
}

/**
 * A fixed-rate load that arrives the way users do: request n is due at n / rate seconds, whatever the server
 * answered before (an open loop), and its latency counts from when it was due, so a stalled server shows in the
 * figure instead of slowing the load down. autocannon's rate option sends each connection's whole quota for
 * a second at the start of that second, which measured bursts of 50 requests, not 500 req/s.
 */
export async function runPacedLoad(options: PacedLoadOptions): Promise<LoadRun> {
  const targetOf = (index: number) => new URL(options.pathOf?.(index) ?? options.path, options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const latencies: number[] = [];
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let bytesPerResponse = 0;
  const inFlight = new Set<Promise<void>>();

  const send = (index: number, dueAt: number): Promise<void> =>
    new Promise<void>((done) => {
      const session = options.sessions.length ? options.sessions[index % options.sessions.length] : undefined;
      const body = options.body?.replaceAll('[<id>]', String(index));
      const headers: Record<string, string> = {};
      if (session) headers.authorization = `Bearer ${session.token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const outgoing = request(targetOf(index), { method: options.method, agent, headers }, (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => (bytes += chunk.length));
        response.on('end', () => {
          const latency = performance.now() - dueAt;
          latencies.push(latency);
          options.onAnswer?.(dueAt, latency);
          const status = response.statusCode ?? 0;
          if (status >= 200 && status < 300) {
            ok++;
            bytesPerResponse = bytes;
          } else non2xx++;
          done();
        });
      });
      outgoing.on('error', () => {
        errors++;
        done();
      });
      outgoing.end(body);
    });

  const started = performance.now();
  const total = Math.round(options.rate * options.seconds);
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) * options.rate) / 1000) + 1);
    for (; sent < due; sent++) {
      const pending = send(sent, started + (sent * 1000) / options.rate);
      inFlight.add(pending);
      void pending.then(() => inFlight.delete(pending));
    }
    await sleep(1);
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  return { okPerSecond: ok / Math.max(elapsed, options.seconds), latencies, non2xx, errors, bytesPerResponse };
}
