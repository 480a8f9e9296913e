// The config's history from the audit log, newest first: who changed what, when and how, each
// change's diff on demand, and undo (the file as it was before the change, written back through
// the editor: checked, audited, restarted with a note).
import { useEffect, useState } from 'preact/hooks';
import type {
  ConfigChange,
  ConfigChangeView,
  ConfigEditAnswer,
  ConfigHistoryView,
} from '../../../src/surfaces/control/contracts.js';
import { api, problemText } from '../api.js';
import { DiffView } from './diff-view.js';

type Changes =
  | { state: 'loading' }
  | { state: 'failed'; problem: string }
  | { state: 'ready'; changes: ConfigChange[] };

export function HistoryView(props: { hash: string; onSaved(saved: ConfigEditAnswer): void }) {
  const [changes, setChanges] = useState<Changes>({ state: 'loading' });
  useEffect(() => {
    api<ConfigHistoryView>('/api/config/history').then(
      (answer) => setChanges({ state: 'ready', changes: [...answer.changes].reverse() }),
      (error) => setChanges({ state: 'failed', problem: problemText(error) }),
    );
  }, [props.hash]);
  return (
    <section aria-labelledby="config-history-title" aria-busy={changes.state === 'loading'}>
      <h3 id="config-history-title">History</h3>
      {changes.state === 'loading' && <p role="status">Loading the history…</p>}
      {changes.state === 'failed' && <p role="alert">{changes.problem}</p>}
      {changes.state === 'ready' && changes.changes.length === 0 && (
        <p class="muted">No config change is recorded yet.</p>
      )}
      {changes.state === 'ready' && (
        <ol class="config-history" reversed>
          {changes.changes.map((change) => (
            <ChangeItem key={change.number} change={change} hash={props.hash} onSaved={props.onSaved} />
          ))}
        </ol>
      )}
    </section>
  );
}

type Diff =
  | { state: 'hidden' }
  | { state: 'loading' }
  | { state: 'shown'; diff: string }
  | { state: 'failed'; problem: string };

function ChangeItem(props: { change: ConfigChange; hash: string; onSaved(saved: ConfigEditAnswer): void }) {
  const { change } = props;
  const [diff, setDiff] = useState<Diff>({ state: 'hidden' });
  const [confirming, setConfirming] = useState(false);
  const [undo, setUndo] = useState<{ busy: boolean; problem?: string }>({ busy: false });
  const showDiff = async () => {
    if (diff.state === 'shown') return setDiff({ state: 'hidden' });
    setDiff({ state: 'loading' });
    try {
      const answer = await api<ConfigChangeView>(`/api/config/history/${change.number}`);
      setDiff({ state: 'shown', diff: answer.diff });
    } catch (error) {
      setDiff({ state: 'failed', problem: problemText(error) });
    }
  };
  const runUndo = async () => {
    setUndo({ busy: true });
    try {
      props.onSaved(
        await api<ConfigEditAnswer>(`/api/config/history/${change.number}/undo`, { baseHash: props.hash }),
      );
    } catch (error) {
      setUndo({ busy: false, problem: problemText(error) });
    }
  };
  const when = change.ts.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  return (
    <li class="card config-change" value={change.number}>
      <p>
        <strong>#{change.number}</strong> <time dateTime={change.ts}>{when}</time> · {change.action}
        {change.undoes !== undefined && ` (undoes #${change.undoes})`} by {change.actor} via {change.via}
      </p>
      <p>{change.changedPaths.length > 0 ? change.changedPaths.join(', ') : 'comments only'}</p>
      {change.note && <p class="muted">{change.note}</p>}
      <div class="config-actions">
        <button type="button" class="plain" aria-expanded={diff.state === 'shown'} onClick={showDiff}>
          {diff.state === 'shown' ? 'Hide diff' : 'Show diff'}
        </button>
        {!confirming && (
          <button type="button" class="plain" onClick={() => setConfirming(true)}>
            Undo…
          </button>
        )}
        {confirming && (
          <>
            <button type="button" class="danger" onClick={runUndo} disabled={undo.busy}>
              {undo.busy ? 'Undoing…' : `Undo #${change.number} and restart`}
            </button>
            <button type="button" class="plain" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </>
        )}
      </div>
      {confirming && (
        <p class="muted">
          Writes back the file as it was before #{change.number}: later changes are undone too.
        </p>
      )}
      {undo.problem && <p role="alert">{undo.problem}</p>}
      {diff.state === 'loading' && <p role="status">Loading the diff…</p>}
      {diff.state === 'failed' && <p role="alert">{diff.problem}</p>}
      {diff.state === 'shown' &&
        (diff.diff === '' ? (
          <p class="muted">The file after this change is no longer kept, so its diff cannot be shown.</p>
        ) : (
          <DiffView diff={diff.diff} label={`The diff of change ${change.number}`} />
        ))}
    </li>
  );
}
