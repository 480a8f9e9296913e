import { availableParallelism, loadavg } from 'node:os';
import { percentile } from './load.js';

/** Shared output of the benches: machine line, aligned tables, ratios. */

export function describeLoad(): string {
  return loadavg()
    .map((value) => value.toFixed(1))
    .join(' / ');
}

export function describeMachine(): string {
  return `Node ${process.version}, ${availableParallelism()} CPUs, load average ${describeLoad()}`;
}

/** Prints an empty line, the title if any, then the table: the first `leftColumns` columns left-aligned. */
export function printTable(
  header: readonly string[],
  lines: readonly string[][],
  options: { leftColumns?: number; title?: string } = {},
): void {
  const leftColumns = options.leftColumns ?? 1;
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => line[column]?.length ?? 0)),
  );
  const format = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        column < leftColumns ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ');
  console.log(options.title === undefined ? '' : `\n${options.title}`);
  console.log(format(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const line of lines) console.log(format(line));
}

export function ratio(numerator: number | undefined, denominator: number | undefined): string {
  if (!numerator || !denominator) return 'n/a';
  return `${(numerator / denominator).toFixed(2)}×`;
}

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

export const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

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
