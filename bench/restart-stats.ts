import { percentile } from './load.js';
import { printTable } from './report.js';

/** Shared by the restart bench (restart.ts): summary figures, log milestones, the table printer. */

export interface Figures {
  count: number;
  median: number;
  p90: number;
  min: number;
  max: number;
}

/** Median (mean of the two middle values for an even count), p90 (nearest rank), min and max. */
export function figures(values: readonly number[]): Figures {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  const middle = sorted.length / 2;
  const median =
    sorted.length === 0
      ? Number.NaN
      : sorted.length % 2 === 1
        ? (sorted[Math.floor(middle)] ?? Number.NaN)
        : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
  return {
    count: sorted.length,
    median,
    p90: percentile(Float64Array.from(sorted), 90),
    min: sorted[0] ?? Number.NaN,
    max: sorted.at(-1) ?? Number.NaN,
  };
}

/** A pino line as the bench needs it: the message and the process's own clock (ms since the epoch). */
export interface Milestone {
  msg: string;
  time: number;
}

export function parseMilestones(lines: readonly (string | { msg?: unknown; time?: unknown })[]): Milestone[] {
  const milestones: Milestone[] = [];
  for (const line of lines) {
    let parsed: { msg?: unknown; time?: unknown };
    try {
      parsed = typeof line === 'string' ? JSON.parse(line) : line;
    } catch {
      continue;
    }
    if (typeof parsed.msg === 'string' && typeof parsed.time === 'number')
      milestones.push({ msg: parsed.msg, time: parsed.time });
  }
  return milestones;
}

/** The time of the first line whose message starts with `prefix`, or NaN. */
export function timeOf(milestones: readonly Milestone[], prefix: string): number {
  return milestones.find((milestone) => milestone.msg.startsWith(prefix))?.time ?? Number.NaN;
}

/** `performance.now()` as ms since the epoch, comparable with pino's `time` (which has 1 ms resolution). */
export const epochNow = () => performance.timeOrigin + performance.now();

export const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

/** One table row per measurement: label, then median / p90 / min / max in ms. */
export function printFigures(title: string, rows: readonly { label: string; values: readonly number[] }[]) {
  const header = ['', 'n', 'median ms', 'p90 ms', 'min ms', 'max ms'];
  const lines = rows.map(({ label, values }) => {
    const stats = figures(values);
    return [
      label,
      String(stats.count),
      fixed(stats.median),
      fixed(stats.p90),
      fixed(stats.min),
      fixed(stats.max),
    ];
  });
  printTable(header, lines, { title });
}
