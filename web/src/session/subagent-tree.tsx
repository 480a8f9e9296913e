// The sub-agent tree of the panel: one item per child (its latest run), its children nested
// under it. Kill asks to confirm first; steer opens a labelled message field. Labels, models and
// ids are shown as text (a label came from a model).
import { useState } from 'preact/hooks';
import type { SubagentNode } from '../../../src/surfaces/control/contracts.js';
import { durationText } from '../time.js';

export type { SubagentNode };

export type SubagentAct = (
  node: SubagentNode,
  action: 'kill' | 'steer',
  message?: string,
) => Promise<boolean>;

/** The most characters a steer may hold (the API's limit). */
const MAX_STEER_LENGTH = 4000;

const ACTIVE = new Set(['queued', 'running']);

export function SubagentTree({ nodes, act }: { nodes: SubagentNode[]; act: SubagentAct }) {
  return (
    <ul class="subagent-tree">
      {nodes.map((node) => (
        <li key={node.runId}>
          <SubagentItem node={node} act={act} />
          {node.children.length > 0 && <SubagentTree nodes={node.children} act={act} />}
        </li>
      ))}
    </ul>
  );
}

type Open = 'none' | 'kill' | 'steer';

function SubagentItem({ node, act }: { node: SubagentNode; act: SubagentAct }) {
  const [open, setOpen] = useState<Open>('none');
  const [message, setMessage] = useState('');
  const [working, setWorking] = useState(false);
  const name = node.label || node.runId;
  const active = ACTIVE.has(node.status);
  const fieldId = `steer-${node.runId}`;
  const run = async (action: 'kill' | 'steer') => {
    setWorking(true);
    const done = await act(node, action, action === 'steer' ? message.trim() : undefined);
    setWorking(false);
    // A refused steer keeps its text to mend and send again.
    if (done) {
      setOpen('none');
      if (action === 'steer') setMessage('');
    }
  };
  const onSteer = (event: Event) => {
    event.preventDefault();
    if (message.trim() !== '') void run('steer');
  };
  return (
    <article class="subagent" aria-label={`Sub-agent ${name}`}>
      <div class="subagent-head">
        <strong class="subagent-name">{name}</strong>
        <span class={`badge ${badgeClass(node.status)}`}>{node.status}</span>
      </div>
      <p class="muted subagent-facts">
        <span>runtime {durationText(node.runtimeMs / 1000)}</span> · <span>model {node.model || '—'}</span> ·{' '}
        <span>agent {node.agentId || '—'}</span> · <span>#{node.index}</span>
      </p>
      {open === 'none' && (
        <div class="subagent-actions">
          {active && (
            <button type="button" class="danger" aria-label={`Kill ${name}`} onClick={() => setOpen('kill')}>
              Kill
            </button>
          )}
          <button type="button" class="plain" aria-label={`Steer ${name}`} onClick={() => setOpen('steer')}>
            Steer
          </button>
        </div>
      )}
      {open === 'kill' && (
        <fieldset class="subagent-confirm">
          <legend>Kill {name} and every run below it?</legend>
          <button type="button" class="danger" disabled={working} onClick={() => void run('kill')}>
            Confirm kill
          </button>{' '}
          <button type="button" class="plain" disabled={working} onClick={() => setOpen('none')}>
            Cancel
          </button>
        </fieldset>
      )}
      {open === 'steer' && (
        <form class="subagent-steer" onSubmit={onSteer} aria-busy={working}>
          <label for={fieldId}>Message to {name}</label>
          <textarea
            id={fieldId}
            rows={2}
            maxLength={MAX_STEER_LENGTH}
            value={message}
            onInput={(event) => setMessage((event.target as HTMLTextAreaElement).value)}
          />
          <div class="subagent-actions">
            <button type="submit" disabled={working || message.trim() === ''}>
              Send steer
            </button>
            <button type="button" class="plain" disabled={working} onClick={() => setOpen('none')}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </article>
  );
}

function badgeClass(status: string): string {
  if (status === 'running' || status === 'queued') return status;
  return status === 'done' ? 'idle' : 'bad';
}
