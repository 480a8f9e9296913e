// The loaded config's three views (form, raw JSONC, history) and the review of an edit. Its
// state is the edits in progress: they survive going to the review and back, and a reload of the
// file (a new hash) starts over from the file (the page keys this component by the hash).
import { useRef, useState } from 'preact/hooks';
import type { ConfigEditAnswer, ConfigEditBody } from '../../../src/surfaces/control/contracts.js';
import { ConfigForm } from './config-form.js';
import { type JsonObject, type SchemaNode, withValue } from './config-value.js';
import { HistoryView } from './history-view.js';
import { type RawDraft, RawEditor } from './raw-editor.js';
import { Review } from './review.js';

export interface LoadedConfig {
  path: string;
  hash: string;
  /** The file redacted; {} when it does not load (then `errors` says why). */
  config: JsonObject;
  schema: SchemaNode;
  errors?: string[] | undefined;
}

type View = 'form' | 'raw' | 'history';
const VIEWS: readonly [View, string][] = [
  ['form', 'Form'],
  ['raw', 'Raw JSONC'],
  ['history', 'History'],
];

export function ConfigEditors(props: {
  loaded: LoadedConfig;
  onSaved(saved: ConfigEditAnswer): void;
  onReload(): void;
}) {
  const { loaded } = props;
  const broken = loaded.errors !== undefined;
  const [view, setView] = useState<View>(broken ? 'raw' : 'form');
  const [draft, setDraft] = useState<JsonObject>(loaded.config);
  const [raw, setRaw] = useState<RawDraft>({
    action: 'apply',
    text: broken ? '' : `${JSON.stringify(loaded.config, null, 2)}\n`,
  });
  const [review, setReview] = useState<ConfigEditBody | undefined>(undefined);
  const [unfinished, setUnfinished] = useState<string | undefined>(undefined);
  const form = useRef<HTMLDivElement>(null);
  // A JSON field that does not parse holds its last good value in the draft: not reviewed then.
  const reviewForm = () => {
    const invalid = form.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
    if (invalid) {
      setUnfinished(`${invalid.id.replace(/^config-/, '')} is not JSON yet: fix it or empty it first.`);
      invalid.focus();
      return;
    }
    setUnfinished(undefined);
    reviewAs('apply', JSON.stringify(draft, null, 2));
  };
  const reviewAs = (action: ConfigEditBody['action'], text: string) =>
    setReview({ action, raw: text, baseHash: loaded.hash });
  return (
    <>
      <nav class="config-tabs" aria-label="Config views">
        {VIEWS.map(([name, label]) => (
          <button
            key={name}
            type="button"
            class="plain"
            aria-pressed={view === name}
            disabled={name === 'form' && broken}
            onClick={() => {
              setView(name);
              setReview(undefined);
            }}
          >
            {label}
          </button>
        ))}
      </nav>
      {review && (
        <Review
          request={review}
          onSaved={props.onSaved}
          onBack={() => setReview(undefined)}
          onReload={props.onReload}
        />
      )}
      {!review && view === 'form' && (
        <div ref={form}>
          <ConfigForm
            schema={loaded.schema}
            value={draft}
            loaded={loaded.config}
            onChange={(path, value) => setDraft((current) => withValue(current, path, value))}
          />
          <div class="config-actions">
            <button type="button" onClick={reviewForm}>
              Review change
            </button>
            <button type="button" class="plain" onClick={() => setDraft(loaded.config)}>
              Discard edits
            </button>
          </div>
          {unfinished && <p role="alert">{unfinished}</p>}
        </div>
      )}
      {!review && view === 'raw' && (
        <RawEditor draft={raw} onChange={setRaw} onReview={() => reviewAs(raw.action, raw.text)} />
      )}
      {!review && view === 'history' && <HistoryView hash={loaded.hash} onSaved={props.onSaved} />}
    </>
  );
}
