// The Tools page: the loaded toolpacks' WebUI entries grouped by toolpack (panels with Refresh,
// actions as forms from their inputSchema), the toolpacks' state and problems, and the per-tool
// status. The scheduler's jobs and next runs are its toolpack's panels (`schedule.jobs`).
import { useEffect, useState } from 'preact/hooks';
import { problemText } from '../api.js';
import { useMe } from '../me.js';
import { EntryCard } from '../tools/entry-card.js';
import { GroupHeading, isNarrow } from '../tools/group-heading.js';
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

/**
 * The page's contents: each toolpack and its entries. A click opens that toolpack alone (the others
 * close: one group open at a time) and scrolls to it or the entry (the hash is the route).
 */
function Contents({
  groups,
  onJump,
}: {
  groups: [string, WebuiEntryView[]][];
  onJump(toolpack: string, targetId: string): void;
}) {
  return (
    <nav class="tools-contents" aria-label="Toolpacks on this page">
      <ul>
        {groups.map(([toolpack, members]) => (
          <li key={toolpack}>
            <button type="button" class="link" onClick={() => onJump(toolpack, `toolpack-${toolpack}`)}>
              {toolpack}
            </button>
            <ul>
              {members.map((entry) => (
                <li key={entry.id}>
                  <button type="button" class="link" onClick={() => onJump(toolpack, headingId(entry))}>
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

/**
 * The toolpacks as groups that open and close by their heading. Every card stays mounted (a panel
 * runs when the page opens, and an answer is kept while its group is closed); a closed group's
 * cards are hidden. Wide screens open with every group open, a phone with the first one only.
 */
function Entries({ entries, roster }: { entries: WebuiEntryView[]; roster: RosterAgentView[] }) {
  const groups = [...groupOf(entries)];
  const [open, setOpen] = useState<ReadonlySet<string>>(
    () =>
      new Set(isNarrow() ? groups.slice(0, 1).map(([toolpack]) => toolpack) : groups.map(([name]) => name)),
  );
  const [jump, setJump] = useState<{ id: string }>();
  // After the group opened (a render later): the target in view at the top.
  useEffect(() => {
    if (jump) document.getElementById(jump.id)?.scrollIntoView({ block: 'start' });
  }, [jump]);
  if (groups.length === 0) return <p class="empty muted">No loaded toolpack declares a WebUI entry.</p>;
  const toggle = (toolpack: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (!next.delete(toolpack)) next.add(toolpack);
      return next;
    });
  return (
    <>
      <Contents
        groups={groups}
        onJump={(toolpack, id) => {
          setOpen(new Set([toolpack]));
          setJump({ id });
        }}
      />
      {groups.map(([toolpack, members]) => {
        const shown = open.has(toolpack);
        return (
          <section
            class={`toolpack${shown ? ' open' : ''}`}
            data-toolpack={toolpack}
            key={toolpack}
            aria-label={`Toolpack ${toolpack}`}
          >
            <GroupHeading
              id={`toolpack-${toolpack}`}
              bodyId={`toolpack-${toolpack}-entries`}
              open={shown}
              onToggle={() => toggle(toolpack)}
            >
              {toolpack}
            </GroupHeading>
            <p class="group-count muted">{members.length === 1 ? '1 entry' : `${members.length} entries`}</p>
            <div id={`toolpack-${toolpack}-entries`} hidden={!shown}>
              {members.map((entry) => (
                <EntryCard key={entry.id} entry={entry} roster={roster} />
              ))}
            </div>
          </section>
        );
      })}
    </>
  );
}
