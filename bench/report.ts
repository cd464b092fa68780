import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import type { Measure } from './measure';

/** Facts about the machine and the run, stored beside the rows. */
export interface MachineFacts {
  cpus: number;
  cpuModel: string;
  memoryBytes: number;
  node: string;
  platform: string;
  mode: 'quick' | 'full';
  openFileLimit: number | null;
}

/** The soft limit on open files (each socket is one on each side), from /proc on Linux. */
export function openFileLimit(): number | null {
  try {
    const match = /Max open files\s+(\d+)/.exec(readFileSync('/proc/self/limits', 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

export function machineFacts(quick: boolean): MachineFacts {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryBytes: totalmem(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    mode: quick ? 'quick' : 'full',
    openFileLimit: openFileLimit(),
  };
}

/** Adds why a missed target cannot be met on this machine (or by this design) to the measure's note. */
export function explainMiss(measure: Measure, why: string): Measure {
  if (measure.met !== false) return measure;
  return { ...measure, note: measure.note ? `${measure.note} ${why}` : why };
}

const metText = (met: boolean | null) => (met === null ? '—' : met ? 'yes' : 'NO');

/** One plain-text table: measure | target | result | met?, then the notes under it. */
export function formatTable(measures: Measure[]): string {
  const rows = [
    ['Measure', 'Target', 'Result', 'Met?'],
    ...measures.map((m) => [m.name, m.target, m.result, metText(m.met)]),
  ];
  const widths = [0, 1, 2, 3].map((col) => Math.max(...rows.map((row) => (row[col] ?? '').length)));
  const line = (row: string[]) => `| ${row.map((cell, col) => cell.padEnd(widths[col] ?? 0)).join(' | ')} |`;
  const rule = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
  const notes = measures.flatMap((m) => (m.note ? [`- ${m.name}: ${m.note}`] : []));
  return [
    line(rows[0] ?? []),
    rule,
    ...rows.slice(1).map(line),
    ...(notes.length ? ['', 'Notes:', ...notes] : []),
  ].join('\n');
}

/** Writes bench/results/<ISO timestamp>.json and bench/results/latest.json; returns the first path. */
export function writeResults(dir: string, machine: MachineFacts, measures: Measure[], startedAt: Date): string {
  mkdirSync(dir, { recursive: true });
  const json = `${JSON.stringify({ startedAt: startedAt.toISOString(), machine, measures }, null, 2)}\n`;
  const file = join(dir, `${startedAt.toISOString().replaceAll(':', '-')}.json`);
  writeFileSync(file, json);
  writeFileSync(join(dir, 'latest.json'), json);
  return file;
}
