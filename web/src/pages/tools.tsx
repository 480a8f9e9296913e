// The Tools page: the loaded toolpacks' WebUI entries grouped by toolpack (panels with Refresh,
// actions as forms from their inputSchema), the toolpacks' state and problems, and the per-tool
// status. The scheduler's jobs and next runs are its toolpack's panels (`schedule.jobs`).
import { useEffect, useState } from 'preact/hooks';
import { problemText } from '../api.js';
import { useMe } from '../me.js';
import { EntryCard } from '../tools/entry-card.js';
import { ToolStatusSection } from '../tools/tool-status.js';
import { ToolpackList } from '../tools/toolpack-list.js';
import { ToolpackProblems } from '../tools/toolpack-report.js';
import {
  loadEntries,
  loadToolpackReport,
  type RosterAgentView,
  type ToolpackReport,
  type WebuiEntryView,
} from '../tools/tools-api.js';
import './tools.css';

type Loaded =
  | { state: 'loading' }
  | { state: 'failed'; problem: string }
  | { state: 'in'; entries: WebuiEntryView[]; roster: RosterAgentView[] };

/** Entries by toolpack, in the order the gateway lists them. */
function groupOf(entries: readonly WebuiEntryView[]): Map<string, WebuiEntryView[]> {
  const groups = new Map<string, WebuiEntryView[]>();
  for (const entry of entries) groups.set(entry.toolpack, [...(groups.get(entry.toolpack) ?? []), entry]);
  return groups;
}

export function ToolsPage() {
  const { projectId } = useMe();
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  const [report, setReport] = useState<ToolpackReport>();
  useEffect(() => {
    loadEntries(projectId).then(
      ({ entries, roster }) => setLoaded({ state: 'in', entries, roster }),
      (error) => setLoaded({ state: 'failed', problem: `Could not load the tools: ${problemText(error)}` }),
    );
    loadToolpackReport().then(setReport, () => undefined);
  }, [projectId]);

  const count = loaded.state === 'in' ? loaded.entries.length : 0;
  return (
    <section
      id="toolpacks"
      class="tools-page"
      aria-labelledby="page-title"
      aria-busy={loaded.state === 'loading'}
    >
      <h2 id="page-title">Tools</h2>
      <p class="tools-status muted" role="status">
        {loaded.state === 'loading' ? 'Loading…' : null}
        {loaded.state === 'in'
          ? `project ${projectId}: ${count === 1 ? '1 entry' : `${count} entries`}`
          : null}
      </p>
      {loaded.state === 'failed' ? <p role="alert">{loaded.problem}</p> : null}
      {loaded.state === 'in' ? <Entries entries={loaded.entries} roster={loaded.roster} /> : null}
      {report ? <ToolpackProblems report={report} /> : null}
      {report ? <ToolpackList report={report} /> : null}
      <ToolStatusSection />
    </section>
  );
}

/** The id of an entry's card heading (entry-card.tsx): where the contents jump to. */
const headingId = (entry: WebuiEntryView) => `entry-${entry.toolpack}-${entry.id}`;

/** The page's contents: each toolpack and its entries; a click scrolls to the card (the hash is the route). */
function Contents({ groups }: { groups: [string, WebuiEntryView[]][] }) {
  const jump = (id: string) => document.getElementById(id)?.scrollIntoView({ block: 'start' });
  return (
    <nav class="tools-contents" aria-label="Toolpacks on this page">
      <ul>
        {groups.map(([toolpack, members]) => (
          <li key={toolpack}>
            <button type="button" class="link" onClick={() => jump(`toolpack-${toolpack}`)}>
              {toolpack}
            </button>
            <ul>
              {members.map((entry) => (
                <li key={entry.id}>
                  <button type="button" class="link" onClick={() => jump(headingId(entry))}>
                    {entry.title}
                  </button>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function Entries({ entries, roster }: { entries: WebuiEntryView[]; roster: RosterAgentView[] }) {
  const groups = [...groupOf(entries)];
  if (groups.length === 0) return <p class="empty muted">No loaded toolpack declares a WebUI entry.</p>;
  return (
    <>
      <Contents groups={groups} />
      {groups.map(([toolpack, members]) => (
        <section class="toolpack" data-toolpack={toolpack} key={toolpack} aria-label={`Toolpack ${toolpack}`}>
          <h3 id={`toolpack-${toolpack}`}>{toolpack}</h3>
          {members.map((entry) => (
            <EntryCard key={entry.id} entry={entry} roster={roster} />
          ))}
        </section>
      ))}
    </>
  );
}
