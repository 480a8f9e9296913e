// A WebUI handler's answer: its title, its metrics as cards, its output (text as Markdown through
// <Markdown>, so a toolpack can carry no script; JSON, or JSON text, as it is), the text as sent, and the
// metadata. Nothing here renders HTML of its own.
import { Markdown } from '../markdown.js';
import { type MetricShape as Metric, withoutMetricLines } from './metric-text.js';
import type { WebuiAnswer } from './tools-api.js';

/** `metadata.metrics` (`[{ label, value, description? }]`, Suzumio's shape), the objects only. */
function metricsOf(metadata: unknown): Metric[] | undefined {
  const metrics =
    typeof metadata === 'object' && metadata !== null
      ? (metadata as { metrics?: unknown }).metrics
      : undefined;
  if (!Array.isArray(metrics)) return undefined;
  return metrics.filter((metric): metric is Metric => typeof metric === 'object' && metric !== null);
}

/** The metrics as cards. */
function MetricCards({ cards }: { cards: Metric[] }) {
  return (
    <dl class="metrics">
      {cards.map((metric, index) => (
        <div class="metric" key={index}>
          <dt>{String(metric.label ?? '')}</dt>
          <dd>{String(metric.value ?? '')}</dd>
          {metric.description ? <dd class="hint">{String(metric.description)}</dd> : null}
        </div>
      ))}
    </dl>
  );
}

/** Text that is JSON (a handler that stringified its answer) is shown as it is, not as Markdown. */
function isJsonText(text: string): boolean {
  if (!/^\s*[[{]/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export function AnswerView({ answer }: { answer: WebuiAnswer }) {
  const metrics = metricsOf(answer.metadata);
  const output = answer.output;
  const text = typeof output === 'string' && !isJsonText(output) ? output : undefined;
  // Each number once: a line that repeats a card is not rendered again (it stays under "Plain text").
  const shown = text === undefined || !metrics ? text : withoutMetricLines(text, metrics);
  const json = typeof output === 'string' ? output : JSON.stringify(output ?? null, null, 2);
  return (
    <>
      {answer.title ? <p class="title">{answer.title}</p> : null}
      {metrics ? <MetricCards cards={metrics} /> : null}
      {text !== undefined ? (
        <>
          {shown?.trim() ? <Markdown text={shown} className="output" /> : null}
          <details class="as-sent">
            <summary>Plain text</summary>
            <pre class="output-text">{text}</pre>
          </details>
        </>
      ) : (
        <pre class="output">{json}</pre>
      )}
      {answer.metadata !== undefined ? (
        <details class="metadata">
          <summary>Metadata</summary>
          <pre>{JSON.stringify(answer.metadata, null, 2)}</pre>
        </details>
      ) : null}
    </>
  );
}
