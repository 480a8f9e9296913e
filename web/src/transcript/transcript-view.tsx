// A transcript on the page: user and assistant messages as Markdown (sanitized: <Markdown>),
// each assistant turn's tool calls and results collapsed under it, errors marked, system entries
// (announcements, restart notes, posts by an owner) set apart, a compaction's summary too, saying
// how many entries it stands for (they stay above it: the transcript keeps everything).
import { Markdown } from '../markdown.js';
import { type ToolRound, type TranscriptItem, transcriptItems } from './turns.js';
import type { TranscriptEntry } from './types.js';
import './transcript.css';

const ROLE_LABEL: Record<TranscriptEntry['role'], string> = {
  user: 'User',
  assistant: 'Assistant',
  tool: 'Tool result',
  system: 'System',
};

/** `names`: the senders' display names (`slack:U1` → `Ann`); a sender without one is shown by id. */
export function TranscriptView({
  entries,
  names = {},
}: {
  entries: readonly TranscriptEntry[];
  names?: Readonly<Record<string, string>>;
}) {
  const items = transcriptItems(entries);
  if (items.length === 0) return <p class="muted">No entries yet.</p>;
  return (
    <ol class="transcript">
      {items.map((item) => (
        <Item key={item.entry.seq} item={item} names={names} />
      ))}
    </ol>
  );
}

function Item({ item, names }: { item: TranscriptItem; names: Readonly<Record<string, string>> }) {
  const { entry } = item;
  const error = entry.isError === true || (item.kind === 'assistant' && item.rounds.some(failed));
  const compacted = entry.compaction ? ' compaction' : '';
  return (
    <li
      class={`entry ${entry.role}${compacted}${error ? ' has-error' : ''}`}
      data-seq={entry.seq}
      aria-label={`${ROLE_LABEL[entry.role]} entry ${entry.seq}`}
    >
      <EntryHead entry={entry} names={names} />
      {item.kind === 'result' ? (
        <ToolResult entry={entry} />
      ) : entry.text ? (
        <Markdown text={entry.text} />
      ) : null}
      {item.kind === 'assistant' && item.rounds.length > 0 ? (
        <div class="tool-rounds">
          {item.rounds.map((round) => (
            <ToolCallView key={round.call.id} round={round} />
          ))}
        </div>
      ) : null}
    </li>
  );
}

const failed = (round: ToolRound) => round.result?.isError === true;

function EntryHead({ entry, names }: { entry: TranscriptEntry; names: Readonly<Record<string, string>> }) {
  const sender = entry.role === 'user' ? entry.senderId : undefined;
  const name = sender && names[sender];
  return (
    <div class="entry-head">
      {/* A sender by display name, the id on hover; by id when the platform gave no name. */}
      <span class="who" title={name ? sender : undefined}>
        {name || sender || ROLE_LABEL[entry.role]}
      </span>
      {entry.compaction ? <CompactionNote compaction={entry.compaction} /> : null}
      {entry.role === 'tool' && entry.toolName ? <span class="muted"> {entry.toolName}</span> : null}
      <time dateTime={entry.at} title={entry.at}>
        {new Date(entry.at).toLocaleString()}
      </time>
    </div>
  );
}

/** What a compaction summary stands for: the model sees it instead of those entries. */
function CompactionNote({ compaction }: { compaction: NonNullable<TranscriptEntry['compaction']> }) {
  const { entries, fromSeq, toSeq } = compaction;
  return (
    <span
      class="badge compaction-note"
      title={`Entries ${fromSeq}–${toSeq}: the model sees this summary instead`}
    >
      Compacted {entries} entr{entries === 1 ? 'y' : 'ies'}
    </span>
  );
}

function ToolCallView({ round }: { round: ToolRound }) {
  const { call, result } = round;
  const state = result ? (result.isError ? 'error' : 'done') : 'no result yet';
  return (
    <details class={`tool-call${result?.isError ? ' error' : ''}`} data-call={call.id}>
      <summary>
        <span class="tool-name">{call.name}</span>{' '}
        <span class={`badge ${result?.isError ? 'bad' : 'idle'}`}>{state}</span>
      </summary>
      <h4>Arguments</h4>
      <pre class="arguments">{prettyJson(call.arguments)}</pre>
      {result ? <ToolResult entry={result} /> : null}
    </details>
  );
}

function ToolResult({ entry }: { entry: TranscriptEntry }) {
  const shown = resultText(entry.text);
  return (
    <div class={`tool-result${entry.isError ? ' error' : ''}`}>
      <h4>{entry.isError ? 'Error' : 'Result'}</h4>
      {shown.json ? <pre>{shown.text}</pre> : <Markdown text={shown.text} />}
    </div>
  );
}

/** The model's JSON arguments indented, or as written when they are not JSON. */
function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/**
 * How a result is shown: a JSON object or array indented, as text; a JSON string (a tool that
 * answered with text) as the Markdown it holds; anything else as Markdown.
 */
function resultText(text: string): { json: boolean; text: string } {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'string') return { json: false, text: value };
    if (value !== null && typeof value === 'object')
      return { json: true, text: JSON.stringify(value, null, 2) };
  } catch {
    // Not JSON: a readable text (an error, a refusal).
  }
  return { json: false, text };
}
