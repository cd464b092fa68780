/** One row of the benchmark table: what was measured, what it should be, what it was. */
export interface Measure {
  /** What was measured, e.g. "Authenticated 50-task page read at 1 000 req/s (p99)". */
  name: string;
  /** The target in words, e.g. "p99 ≤ 25 ms"; "—" for a figure without one. */
  target: string;
  /** The result in words, e.g. "p50 3.1 / p95 8.0 / p99 12.4 ms". */
  result: string;
  /** Whether the target was met; null for a figure without a target. */
  met: boolean | null;
  /** The raw numbers behind `result` (milliseconds, counts, bytes), for the JSON file. */
  values: Record<string, number>;
  /** Why a missed target is wrong for this machine, or what the figure depends on. */
  note?: string;
}

/** Percentiles of a sample (nearest rank), in the sample's unit. */
export function percentiles(sample: readonly number[]): { p50: number; p95: number; p99: number; max: number } {
  const sorted = [...sample].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted.at(-1) ?? NaN };
}

/** The median of repeated runs. */
export function median(runs: readonly number[]): number {
  return percentiles(runs).p50;
}

/** Watches the measured runs of a figure: the CPU time they take, what PostgreSQL's backends do meanwhile. */
export interface Watcher {
  /** Runs `work`, taking note of what happens meanwhile. */
  around<T>(work: () => Promise<T>): Promise<T>;
}

/** One watcher made of several, all watching the same runs. */
export function watchAll(...watchers: Watcher[]): Watcher {
  return {
    around<T>(work: () => Promise<T>): Promise<T> {
      const [first, ...rest] = watchers;
      return first ? first.around(() => watchAll(...rest).around(work)) : work();
    },
  };
}

/**
 * A product set against a reference measured beside it: run i of the product sat between the reference's runs i and
 * i + 1, so its ratio takes their mean, and the figure is the median of those ratios. The machine's speed drifts by a
 * fifth within minutes; a ratio of two runs taken one after the other would carry that drift.
 */
export function pairedRatio(product: readonly number[], reference: readonly number[]): number {
  if (reference.length !== product.length + 1)
    throw new Error('each run of the product needs a reference run on each side');
  return median(product.map((rate, i) => rate / (((reference[i] ?? NaN) + (reference[i + 1] ?? NaN)) / 2)));
}
