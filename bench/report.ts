import { availableParallelism, loadavg } from 'node:os';

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
