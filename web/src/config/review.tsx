// An edit on its way to the file: its diff first (the gateway's preview: validated and start-
// checked, nothing written), then Save through the same editor. A refusal is shown naming what is
// wrong; a stale hash says what happened and offers to load the file again.
import { useEffect, useRef, useState } from 'preact/hooks';
import type {
  ConfigEditAnswer,
  ConfigEditBody,
  ConfigPreviewView,
} from '../../../src/surfaces/control/contracts.js';
import { ApiError, api, problemText } from '../api.js';
import { DiffView } from './diff-view.js';

type Plan =
  | { state: 'checking' }
  | { state: 'refused'; error: ApiError | Error }
  | { state: 'unchanged' }
  | { state: 'ready'; diff: string; changedPaths: string[]; removedPaths: string[] }
  | { state: 'saving'; diff: string; changedPaths: string[]; removedPaths: string[] };

export interface ReviewProps {
  request: ConfigEditBody;
  onSaved(saved: ConfigEditAnswer): void;
  /** Back to the editor, the edit kept. */
  onBack(): void;
  /** Load the file again (after a stale hash). */
  onReload(): void;
}

export function Review(props: ReviewProps) {
  const [plan, setPlan] = useState<Plan>({ state: 'checking' });
  // Keyboard and screen reader users land on the review, not back at the top of the page.
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  useEffect(() => {
    let live = true;
    api<ConfigPreviewView>('/api/config/preview', props.request).then(
      (answer) => {
        if (!live) return;
        if (!answer.changed) return setPlan({ state: 'unchanged' });
        const { diff = '', changedPaths = [], removedPaths = [] } = answer;
        setPlan({ state: 'ready', diff, changedPaths, removedPaths });
      },
      (error: Error) => live && setPlan({ state: 'refused', error }),
    );
    return () => {
      live = false;
    };
  }, [props.request]);
  const save = async () => {
    if (plan.state !== 'ready') return;
    setPlan({ ...plan, state: 'saving' });
    try {
      props.onSaved(await api<ConfigEditAnswer>('/api/config', props.request));
    } catch (error) {
      setPlan({ state: 'refused', error: error as Error });
    }
  };
  return (
    <section
      class="card config-review"
      aria-labelledby="config-review-title"
      aria-busy={plan.state === 'checking'}
    >
      <h3 id="config-review-title" ref={heading} tabIndex={-1}>
        Review the change
      </h3>
      {plan.state === 'checking' && <p role="status">Checking the edit…</p>}
      {plan.state === 'unchanged' && <p role="status">Nothing to change: the config already says that.</p>}
      {plan.state === 'refused' && <Refusal error={plan.error} onReload={props.onReload} />}
      {(plan.state === 'ready' || plan.state === 'saving') && (
        <>
          <p>
            Changes {plan.changedPaths.join(', ') || 'comments only'}
            {plan.removedPaths.length > 0 && <> · removes {plan.removedPaths.join(', ')}</>}. Saving restarts
            the gateway to apply it.
          </p>
          <DiffView diff={plan.diff} label="The change to the config file" />
        </>
      )}
      <div class="config-actions">
        {(plan.state === 'ready' || plan.state === 'saving') && (
          <button type="button" onClick={save} disabled={plan.state === 'saving'}>
            {plan.state === 'saving' ? 'Saving…' : 'Save and restart'}
          </button>
        )}
        <button type="button" class="plain" onClick={props.onBack}>
          Back to editing
        </button>
      </div>
    </section>
  );
}

function Refusal({ error, onReload }: { error: Error; onReload(): void }) {
  const stale = error instanceof ApiError && error.status === 409;
  const field = error instanceof ApiError ? error.field : undefined;
  return (
    <div role="alert" class="config-refusal">
      <p>
        {stale ? 'Not saved: the file changed meanwhile. ' : 'Not saved. '}
        {field && !stale && <strong>{field}: </strong>}
        {problemText(error)}
      </p>
      {stale && (
        <button type="button" class="plain" onClick={onReload}>
          Load the config again (your edit here is discarded)
        </button>
      )}
    </div>
  );
}
