import autocannon from 'autocannon';
import { median, percentiles, type Measure, type Watcher } from './measure';
import { runPacedLoad } from './paced-load';
import type { BenchSession } from './session';

export interface LoadRun {
  /** Responses per second that were 2xx, over the whole run. */
  okPerSecond: number;
  /** Per-request latencies in ms, as the load generator saw them. */
  latencies: number[];
  non2xx: number;
  errors: number;
  /** Response body size of the last 2xx, in bytes (tells a page from an unpaged list). */
  bytesPerResponse: number;
}

interface LoadOptions {
  /** One server, or the nodes of one workspace: connection i goes to node i mod n. */
  url: string | string[];
  path: string;
  method: 'GET' | 'POST';
  /** One connection per session, round robin: the load comes from many signed-in users (none: no token). */
  sessions: BenchSession[];
  connections: number;
  seconds: number;
  /** `[<id>]` in the body is replaced by a fresh id per request. */
  body?: string;
}

/**
 * A saturating autocannon run: each connection sends again as soon as it is answered. Every response's latency
 * is kept so p95 can be read too (autocannon reports p97.5). Fixed-rate figures use runPacedLoad.
 */
export async function runLoad(options: LoadOptions): Promise<LoadRun> {
  const latencies: number[] = [];
  let bytesPerResponse = 0;
  let nextSession = 0;
  const headersOf = (session: BenchSession | undefined) => ({
    ...(session ? { authorization: `Bearer ${session.token}` } : {}),
    ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
  });
  let finish: (result: autocannon.Result) => void = () => undefined;
  let failWith: (error: unknown) => void = () => undefined;
  const finished = new Promise<autocannon.Result>((done, fail) => {
    finish = done;
    failWith = fail;
  });
  const urls = (typeof options.url === 'string' ? [options.url] : options.url).map((url) => `${url}${options.path}`);
  const instance = autocannon(
    {
      // autocannon takes several URLs (connection i to URL i mod n); its types know only one.
      url: (urls.length === 1 ? urls[0] : urls) as string,
      method: options.method,
      connections: options.connections,
      duration: options.seconds,
      ...(options.body === undefined ? {} : { body: options.body, idReplacement: true }),
      setupClient(client) {
        const session = options.sessions.length ? options.sessions[nextSession++ % options.sessions.length] : undefined;
        client.setHeaders(headersOf(session));
      },
    },
    (error: unknown, result) => (error ? failWith(error) : finish(result)),
  );
  instance.on('response', (_client, statusCode, resBytes, responseTime) => {
    latencies.push(responseTime);
    if (statusCode < 300) bytesPerResponse = resBytes;
  });
  const result = await finished;
  return {
    okPerSecond: result['2xx'] / result.duration,
    latencies,
    non2xx: result.non2xx,
    errors: result.errors,
    bytesPerResponse,
  };
}

const ms = (value: number) => (value < 10 ? value.toFixed(1) : value.toFixed(0));
export const latencyText = (p: { p50: number; p95: number; p99: number }) =>
  `p50 ${ms(p.p50)} / p95 ${ms(p.p95)} / p99 ${ms(p.p99)} ms`;

/** A fixed-rate latency figure: met when p99 is within the limit, the rate was held and nothing failed. */
export function fixedRateMeasure(
  name: string,
  run: LoadRun,
  rate: number,
  p99Limit: number,
  extra: Record<string, number> = {},
): Measure {
  const p = percentiles(run.latencies);
  const held = run.okPerSecond >= rate * 0.95;
  const failures = run.non2xx + run.errors;
  return {
    name,
    target: `p99 ≤ ${p99Limit} ms at ${rate} req/s`,
    result: `${latencyText(p)} at ${Math.round(run.okPerSecond)} req/s${failures ? `, ${failures} failed` : ''}`,
    met: p.p99 <= p99Limit && held && failures === 0,
    values: { ...p, okPerSecond: run.okPerSecond, non2xx: run.non2xx, errors: run.errors, ...extra },
    ...(held ? {} : { note: `The server answered only ${Math.round(run.okPerSecond)} of the ${rate} req/s asked.` }),
  };
}

export interface HttpFigureOptions {
  url: string;
  sessions: BenchSession[];
  quick: boolean;
  runs: number;
  log: (line: string) => void;
}

const TASK_PAGE = '/api/tasks?page=1&limit=50';

/** The 50-task page read at 1 000 req/s, and the most the server answers with the load generator beside it. */
export async function measureTaskReads({ url, sessions, quick, runs, log }: HttpFigureOptions): Promise<Measure[]> {
  const seconds = quick ? 5 : 15;
  log('task page: warming up');
  await runPacedLoad({
    url,
    path: TASK_PAGE,
    method: 'GET',
    sessions,
    connections: 50,
    seconds: quick ? 1 : 3,
    rate: 200,
  });
  log(`task page: ${seconds} s at 1 000 req/s`);
  const fixed = await runPacedLoad({
    url,
    path: TASK_PAGE,
    method: 'GET',
    sessions,
    connections: 50,
    seconds,
    rate: 1000,
  });
  const pageKb = fixed.bytesPerResponse / 1024;
  const fixedMeasure = fixedRateMeasure(
    'Authenticated 50-task page read (GET /api/tasks?page=1&limit=50)',
    fixed,
    1000,
    25,
    {
      responseBytes: fixed.bytesPerResponse,
    },
  );
  const unpaged = pageKb > 200;
  if (unpaged) {
    fixedMeasure.note = `${fixedMeasure.note ? `${fixedMeasure.note} ` : ''}Answers are ${Math.round(pageKb)} KB: the route ignores page/limit and sends every visible task (paging not landed yet).`;
  }

  const throughputs: number[] = [];
  const saturationP99: number[] = [];
  for (let i = 0; i < runs; i++) {
    log(`task page: saturation run ${i + 1}/${runs}`);
    const run = await runLoad({ url, path: TASK_PAGE, method: 'GET', sessions, connections: 32, seconds });
    throughputs.push(run.okPerSecond);
    saturationP99.push(percentiles(run.latencies).p99);
  }
  const best = median(throughputs);
  return [
    fixedMeasure,
    {
      name: 'Task page read, saturation throughput (32 connections)',
      target: '—',
      result: `${Math.round(best)} req/s (median of ${runs}), p99 ${ms(median(saturationP99))} ms`,
      met: null,
      values: { reqPerSecond: best, p99: median(saturationP99), runs },
      note: 'The load generator shares the 2 cores with the server, so this is a lower bound.',
    },
  ];
}

/** What one server does with chat-like POSTs: one at a time, and with 16 in flight. */
export interface WriteAxis {
  /** Median latency of one request at a time (ms). */
  sequentialP50: number;
  /** Answers per second with 16 connections (median of the runs). */
  throughput: number;
  /** Each run's answers per second, in order. */
  rates: number[];
  throughputP99: number;
  /** Answers in the runs with 16 connections, all of them: what their CPU time is divided by. */
  answered: number;
}

/** The axis's numbers for a measure's values (its runs' rates are in the ratios that use them). */
export const axisValues = ({ sequentialP50, throughput, throughputP99, answered }: WriteAxis) => ({
  sequentialP50,
  throughput,
  throughputP99,
  answered,
});

export interface WriteFigureOptions extends Omit<HttpFigureOptions, 'url'> {
  /** One server, or the nodes of one workspace: the connections are spread over them. */
  url: string | string[];
  /** Watches the runs with 16 connections. */
  watch?: Watcher;
}

const CONCURRENT = 16;

/**
 * POSTs of `path` (a fresh id per request), first one at a time, then 16 in flight as fast as the server
 * answers: the chat message axis of the product and, with the same settings, of the bare reference server.
 */
export async function measureWriteAxis(
  { url, sessions, quick, runs, log, watch }: WriteFigureOptions,
  path: string,
  label: string,
): Promise<WriteAxis> {
  const body = JSON.stringify({ text: 'Benchmark message [<id>]' });
  const seconds = quick ? 3 : 8;
  log(`${label}: warming up`);
  await runLoad({ url, path, method: 'POST', sessions, connections: 8, seconds: 1, body });
  log(`${label}: one at a time for ${seconds} s`);
  const sequential = await runLoad({ url, path, method: 'POST', sessions, connections: 1, seconds, body });
  const throughputs: number[] = [];
  const p99s: number[] = [];
  let answered = 0;
  for (let i = 0; i < runs; i++) {
    log(`${label}: ${CONCURRENT} in flight, run ${i + 1}/${runs}`);
    const load = () => concurrentWriteRun({ url, sessions, quick }, path, label);
    const run = await (watch ? watch.around(load) : load());
    throughputs.push(run.okPerSecond);
    p99s.push(percentiles(run.latencies).p99);
    answered += run.latencies.length;
  }
  return {
    sequentialP50: percentiles(sequential.latencies).p50,
    throughput: median(throughputs),
    rates: throughputs,
    throughputP99: median(p99s),
    answered,
  };
}

/** One run of POSTs of `path` with 16 in flight, as fast as the server answers; any failed answer ends the bench. */
export async function concurrentWriteRun(
  { url, sessions, quick }: Pick<WriteFigureOptions, 'url' | 'sessions' | 'quick'>,
  path: string,
  label: string,
): Promise<LoadRun> {
  const body = JSON.stringify({ text: 'Benchmark message [<id>]' });
  const run = await runLoad({
    url,
    path,
    method: 'POST',
    sessions,
    connections: CONCURRENT,
    seconds: quick ? 3 : 8,
    body,
  });
  if (run.non2xx + run.errors > 0) throw new Error(`${label}: ${run.non2xx} non-2xx answers, ${run.errors} errors`);
  return run;
}

/**
 * The rate of `runs` runs of 16 POSTs in flight (their median), without the rest of the axis: the bare server's
 * figure measured just before the product's figures that are set against it, so that the machine's drift over
 * the bench (a sixth of the bare rate within minutes, here) moves both sides of the ratio alike.
 */
export async function concurrentWriteRate(
  options: Pick<WriteFigureOptions, 'url' | 'sessions' | 'quick' | 'runs' | 'log'>,
  path: string,
  label: string,
): Promise<number> {
  const rates: number[] = [];
  for (let i = 0; i < options.runs; i++) {
    options.log(`${label}: ${CONCURRENT} in flight, run ${i + 1}/${options.runs}`);
    rates.push((await concurrentWriteRun(options, path, label)).okPerSecond);
  }
  return median(rates);
}

/** Chat message POST at 500 req/s with the organisation's people; every answer waits until its message is on disk. */
export async function measureChatAtRate(
  { url, sessions, quick, log }: HttpFigureOptions,
  members: number,
): Promise<Measure> {
  const seconds = quick ? 5 : 15;
  const body = JSON.stringify({ text: 'Benchmark message [<id>]' });
  log(`chat POST: ${seconds} s at 500 req/s (${members} members)`);
  const run = await runPacedLoad({
    url,
    path: '/api/messages',
    method: 'POST',
    sessions,
    connections: 50,
    seconds,
    rate: 500,
    body,
  });
  return fixedRateMeasure(`Chat message POST at 500 req/s, ${members} members (answered once on disk)`, run, 500, 40);
}
