// Per-tool status (`GET …/tool-status`): each registered tool, where it comes from, the agents
// allowed it, its calls since the start; with its own Refresh. Below 40rem each row is a card
// (tools.css), so the table never makes the page wider than a phone.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { problemText } from '../api.js';
import { useMe } from '../me.js';
import { GroupHeading, isNarrow } from './group-heading.js';
import { loadToolStatus, type ToolStatusView } from './tools-api.js';

const COLUMNS = ['Tool', 'From', 'Agents', 'Calls', 'Running', 'Failed', 'Last call'];

function lastCall(tool: ToolStatusView): string {
  if (!tool.lastStatus) return 'never called';
  const error = tool.lastError ? `: ${tool.lastError}` : '';
  return `${tool.lastStatus} by ${tool.lastAgentId} at ${tool.lastAt}${error}`;
}

function StatusRow({ tool }: { tool: ToolStatusView }) {
  const cells = [
    tool.source,
    tool.enabledForAgents.length > 0 ? tool.enabledForAgents.join(', ') : 'no agent',
    String(tool.callCount),
    String(tool.runningCount),
    String(tool.failedCount),
    lastCall(tool),
  ];
  const classes = [tool.failedCount > 0 ? 'failing' : '', tool.runningCount > 0 ? 'running' : ''];
  return (
    <tr data-tool={tool.tool} class={classes.join(' ').trim() || undefined}>
      <th scope="row">{tool.tool}</th>
      {cells.map((text, index) => (
        <td key={COLUMNS[index + 1]} data-label={COLUMNS[index + 1]}>
          {text}
        </td>
      ))}
    </tr>
  );
}

type Status =
  | { state: 'loading' }
  | { state: 'in'; tools: ToolStatusView[] }
  | { state: 'failed'; problem: string };

export function ToolStatusSection() {
  const { projectId } = useMe();
  const [status, setStatus] = useState<Status>({ state: 'loading' });
  const load = useCallback(async () => {
    try {
      setStatus({ state: 'in', tools: await loadToolStatus(projectId) });
    } catch (error) {
      setStatus({ state: 'failed', problem: `tool status: ${problemText(error)}` });
    }
  }, [projectId]);
  useEffect(() => void load(), [load]);
  // A phone opens with the table closed: one card per tool is a long scroll.
  const [open, setOpen] = useState(() => !isNarrow());
  const failing = status.state === 'in' ? status.tools.filter((tool) => tool.failedCount > 0).length : 0;
  return (
    <section class="tool-status" aria-labelledby="tool-status-title" aria-busy={status.state === 'loading'}>
      <GroupHeading
        id="tool-status-title"
        bodyId="tool-status-body"
        open={open}
        onToggle={() => setOpen((current) => !current)}
      >
        Tool status
      </GroupHeading>
      {status.state === 'in' ? (
        <p class="group-count muted">
          {status.tools.length === 1 ? '1 tool' : `${status.tools.length} tools`}
          {failing > 0 ? `, ${failing} failing` : ''}
        </p>
      ) : null}
      {status.state === 'failed' ? <p role="alert">{status.problem}</p> : null}
      <div id="tool-status-body" hidden={!open}>
        {status.state === 'in' && status.tools.length === 0 ? (
          <p class="empty muted">No tools registered.</p>
        ) : null}
        {status.state === 'in' && status.tools.length > 0 ? (
          <table class="tool-status">
            <thead>
              <tr>
                {COLUMNS.map((title) => (
                  <th scope="col" key={title}>
                    {title}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {status.tools.map((tool) => (
                <StatusRow key={tool.tool} tool={tool} />
              ))}
            </tbody>
          </table>
        ) : null}
        <button type="button" class="plain" onClick={() => void load()}>
          Refresh
        </button>
      </div>
    </section>
  );
}
