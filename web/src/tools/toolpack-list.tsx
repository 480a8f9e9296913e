// The loaded toolpacks at a glance: each one's tools and WebUI entries, and its scheduler hook's
// state (ok, failing), from `GET /api/toolpacks`.
import type { ToolpackReport } from './tools-api.js';

export function ToolpackList({ report }: { report: ToolpackReport }) {
  if (report.toolpacks.length === 0) return null;
  const hooks = new Map(report.schedulerHooks.map((hook) => [hook.toolpackId, hook]));
  return (
    <section class="toolpack-list" aria-labelledby="toolpack-list-title">
      <h3 id="toolpack-list-title">Loaded toolpacks</h3>
      <ul>
        {report.toolpacks.map((toolpack) => {
          const hook = hooks.get(toolpack.id);
          return (
            <li key={toolpack.id} data-toolpack={toolpack.id}>
              <code>{toolpack.id}</code>{' '}
              <span class="muted">
                {count(toolpack.tools?.length ?? 0, 'tool')},{' '}
                {count(toolpack.webui?.length ?? 0, 'WebUI entry')}
              </span>
              {hook ? (
                <span class={`badge hook ${hook.status === 'ok' ? 'ok' : 'bad'}`}>
                  scheduler {hook.status === 'ok' ? 'ok' : `failing ×${hook.failures}`}
                </span>
              ) : null}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function count(n: number, noun: string): string {
  const plural = noun.endsWith('entry') ? `${noun.slice(0, -1)}ies` : `${noun}s`;
  return `${n} ${n === 1 ? noun : plural}`;
}
