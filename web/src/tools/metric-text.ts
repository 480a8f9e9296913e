// An answer's metrics are shown as cards (answer-view.tsx); a handler's text often repeats them as
// lines (`Agents: 2 (2 idle)`, Suzumio's `metricLines`, or `- shell.exec: 2 (…)` in a list). The
// page shows each number once: those lines leave the text it renders (the text as sent is kept
// under "Plain text").

/** A metric as `metadata.metrics` holds it (Suzumio's shape); anything else is ignored. */
export interface MetricShape {
  label?: unknown;
  value?: unknown;
  description?: unknown;
}

/** The line a metric is written as: `Label: value` or `Label: value (description)`. */
function metricLine(metric: MetricShape): string {
  const head = `${String(metric.label ?? '')}: ${String(metric.value ?? '')}`;
  return metric.description ? `${head} (${String(metric.description)})` : head;
}

/** `text` without the lines that only repeat a metric (also as a `-` or `*` list item). */
export function withoutMetricLines(text: string, metrics: readonly MetricShape[]): string {
  const lines = new Set(metrics.map(metricLine));
  if (lines.size === 0) return text;
  return text
    .split('\n')
    .filter((line) => !lines.has(line.trim().replace(/^[-*]\s+/, '')))
    .join('\n');
}
