// One WebUI entry: its heading, its form (from inputSchema) and the latest run's answer. A panel
// runs when it appears (unless it needs input that has no default) and again on Refresh; an action
// runs when submitted. Only the latest run's answer is shown, whatever order answers arrive in.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { problemText } from '../api.js';
import { useMe } from '../me.js';
import { AnswerView } from './answer-view.js';
import { fieldSpecs, readForm } from './field-specs.js';
import { SchemaFields } from './schema-fields.js';
import {
  type JsonSchema,
  type RosterAgentView,
  runEntry,
  type WebuiAnswer,
  type WebuiEntryView,
} from './tools-api.js';

type Run = { state: 'none' } | { state: 'done'; answer: WebuiAnswer } | { state: 'failed'; problem: string };

export function EntryCard({ entry, roster }: { entry: WebuiEntryView; roster: readonly RosterAgentView[] }) {
  const { projectId } = useMe();
  const specs = useMemo(() => fieldSpecs(entry.inputSchema as JsonSchema | null, roster), [entry, roster]);
  const form = useRef<HTMLFormElement>(null);
  const result = useRef<HTMLDivElement>(null);
  const latest = useRef(0);
  const [busy, setBusy] = useState(false);
  const [run, setRun] = useState<Run>({ state: 'none' });

  /** Runs the entry; `reveal`: a run someone asked for, whose answer is scrolled into view where the form is. */
  const start = async (reveal = false) => {
    if (!form.current) return;
    const mine = ++latest.current;
    setBusy(true);
    try {
      const answer = await runEntry(projectId, entry, readForm(form.current, specs));
      if (mine === latest.current) setRun({ state: 'done', answer });
    } catch (error) {
      if (mine === latest.current) setRun({ state: 'failed', problem: problemText(error) });
    } finally {
      if (mine === latest.current) {
        setBusy(false);
        if (reveal) requestAnimationFrame(() => result.current?.scrollIntoView({ block: 'nearest' }));
      }
    }
  };
  // A panel runs once, when it appears; later runs are Refresh.
  useEffect(() => {
    if (entry.kind === 'panel' && form.current?.checkValidity()) void start();
  }, []);

  const titleId = `entry-${entry.toolpack}-${entry.id}`;
  return (
    <article
      class={`entry card ${entry.kind}`}
      data-toolpack={entry.toolpack}
      data-entry={entry.id}
      aria-labelledby={titleId}
    >
      <h4 id={titleId}>
        {entry.title}
        <span class="kind">{entry.kind}</span>
      </h4>
      {entry.description ? <p class="description muted">{entry.description}</p> : null}
      <form
        ref={form}
        onSubmit={(event) => {
          event.preventDefault();
          void start(true);
        }}
      >
        <SchemaFields specs={specs} idPrefix={titleId} />
        <button type="submit">{entry.submitLabel ?? (entry.kind === 'panel' ? 'Refresh' : 'Run')}</button>
      </form>
      <div class="result" ref={result} aria-live="polite" aria-busy={busy ? 'true' : 'false'}>
        {run.state === 'done' ? <AnswerView answer={run.answer} /> : null}
        {run.state === 'failed' ? (
          <p class="error" role="alert">
            {run.problem}
          </p>
        ) : null}
      </div>
    </article>
  );
}
