import type { UsageReport, UsageRow, UsageTotals } from './types.js';
import { count, money } from './usage-text.js';

/**
 * A usage report as a chat message: a heading, then a fixed-width table (a code block) of input and
 * output tokens per row and their total; a cost column only when some call had a price; a line
 * under it when some calls were estimated (their server reported no usage).
 */
export function usageTable(report: UsageReport): string {
  const heading = `${periodText(report)}, by ${report.by}:`;
  if (report.rows.length === 0) return `${heading}\nNo model calls are recorded for this period.`;
  const priced = report.total.cost !== undefined;
  const header = [report.by, 'calls', 'input', 'output', ...(priced ? ['cost'] : [])];
  const lines = [
    header,
    ...report.rows.map((row) => cells(row.name, row, priced)),
    cells('total', report.total, priced),
  ];
  return `${heading}\n\`\`\`\n${aligned(lines).join('\n')}\n\`\`\`${estimatedNote(report.total)}`;
}

function estimatedNote(total: UsageTotals): string {
  if (!total.estimatedCalls) return '';
  return `\n${count(total.estimatedCalls)} of ${count(total.calls)} calls estimated (about 4 characters a token): their model server reported no usage.`;
}

function periodText(report: UsageReport): string {
  const days = report.from === report.to ? report.from : `${report.from} to ${report.to}`;
  const when = report.period === 'today' ? 'today' : 'in the last 7 days';
  return `Usage ${when} (${days}, ${report.timeZone})`;
}

function cells(name: string, totals: UsageTotals | UsageRow, priced: boolean): string[] {
  const values = [count(totals.calls), count(totals.inputTokens), count(totals.outputTokens)];
  return [name, ...values, ...(priced ? [totals.cost === undefined ? '-' : money(totals.cost)] : [])];
}

/** The first column left-aligned, the numbers right-aligned, two spaces between. */
function aligned(lines: string[][]): string[] {
  const widths =
    lines[0]?.map((_, column) => Math.max(...lines.map((line) => (line[column] ?? '').length))) ?? [];
  return lines.map((line) =>
    line
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd(),
  );
}
