// What `GET /api/toolpacks` reports beyond the entries, for the operator to fix: toolpacks the
// gateway skipped (file, rule), scheduler hooks that keep failing (error, since, next try), and
// Suzumio-internal APIs a controller reaches for that Switchboard does not provide.
import type { ComponentChildren } from 'preact';
import type { ToolpackReport } from './tools-api.js';

function Problems({ kind, title, items }: { kind: string; title: string; items: string[] }) {
  if (items.length === 0) return null;
  return (
    <section class={`${kind} problems-section`} aria-labelledby={`${kind}-title`}>
      <h3 id={`${kind}-title`}>{title}</h3>
      <ul class="problems">
        {items.map((text) => (
          <li key={text}>{text}</li>
        ))}
      </ul>
    </section>
  );
}

export function ToolpackProblems({ report }: { report: ToolpackReport }): ComponentChildren {
  const skipped = report.problems.map(
    (problem) =>
      `${problem.file}${problem.pointer ? ` ${problem.pointer}` : ''}: ${problem.message} [${problem.rule}]`,
  );
  const failing = report.schedulerHooks
    .filter((hook) => hook.status === 'failing')
    .map((hook) => {
      const retry = typeof hook.backoffMs === 'number' ? `; next try in ${hook.backoffMs / 1000} s` : '';
      return `${hook.toolpackId}: ${hook.error} (${hook.failures} failures in a row since ${hook.since}${retry})`;
    });
  const lacking = report.toolpacks
    .filter((toolpack) => (toolpack.notProvided ?? []).length > 0)
    .map((toolpack) => `${toolpack.id}: ${(toolpack.notProvided ?? []).join(', ')}`);
  return (
    <>
      <Problems kind="skipped" title="Skipped (fix and restart)" items={skipped} />
      <Problems
        kind="failing-hooks"
        title="Scheduler hooks failing (retried with a growing delay)"
        items={failing}
      />
      <Problems
        kind="not-provided"
        title="Suzumio APIs not provided (undefined for these controllers)"
        items={lacking}
      />
    </>
  );
}
