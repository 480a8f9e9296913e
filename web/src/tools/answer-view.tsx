// A WebUI handler's answer: its title, its metrics as cards, its output (text as Markdown through
// <Markdown>, so a toolpack can carry no script; JSON, or JSON text, as it is), the text as sent, and the
// metadata. Nothing here renders HTML of its own.
import { Markdown } from '../markdown.js';
import type { WebuiAnswer } from './tools-api.js';

interface Metric {
  label?: unknown;
  value?: unknown;
  description?: unknown;
}

/** `metadata.metrics` (`[{ label, value, description? }]`, Suzumio's shape) as cards. */
function MetricCards({ metrics }: { metrics: unknown[] }) {
  const cards = metrics.filter((metric): metric is Metric => typeof metric === 'object' && metric !== null);
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
  const metadata = answer.metadata;
  const metrics =
    typeof metadata === 'object' && metadata !== null
      ? (metadata as { metrics?: unknown }).metrics
      : undefined;
  const output = answer.output;
  const text = typeof output === 'string' && !isJsonText(output) ? output : undefined;
  const json = typeof output === 'string' ? output : JSON.stringify(output ?? null, null, 2);
  return (
    <>
      {answer.title ? <p class="title">{answer.title}</p> : null}
      {Array.isArray(metrics) ? <MetricCards metrics={metrics} /> : null}
      {text !== undefined ? (
        <>
          <Markdown text={text} className="output" />
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
