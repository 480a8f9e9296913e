// The thread's messages, oldest first: typed ones, answers (streamed, then final) with their
// buttons or decision, a command's answer as plain text, the gateway's notes as system lines,
// files with their download link, errors. Every text that came from a user, the model or a tool
// goes through <Markdown> (sanitized); nothing else is HTML. The page scrolls the log
// (use-stick-to-bottom.ts).
import { useState } from 'preact/hooks';
import { Markdown } from '../markdown.js';
import { type ChatFile, type LogItem, type ReplyAction, sizeText } from './chat-log.js';

export interface MessageListProps {
  items: LogItem[];
  queued: ReadonlySet<string>;
  busy: boolean;
  onClick(id: string, value: string): Promise<string | undefined>;
}

export function MessageList({ items, queued, busy, onClick }: MessageListProps) {
  return (
    <div id="log" class="log" aria-live="polite" aria-busy={busy ? 'true' : 'false'}>
      {items.map((item) => (
        <Message key={item.key} item={item} queued={queued.has(item.key)} onClick={onClick} />
      ))}
    </div>
  );
}

function Message({
  item,
  queued,
  onClick,
}: {
  item: LogItem;
  queued: boolean;
  onClick: MessageListProps['onClick'];
}) {
  switch (item.kind) {
    case 'user':
      return (
        <article class={`message user ${item.state}`} aria-label="You">
          <Markdown text={item.text} className="text" />
          {queued && (
            <span class="badge queued" title="It waits for the answer to your earlier message">
              Queued
            </span>
          )}
          {item.state === 'failed' && <p role="alert">Not sent: {item.problem}</p>}
        </article>
      );
    case 'agent':
      return (
        <article
          class={`message agent${item.streaming ? ' streaming' : ''}`}
          data-reply={item.id}
          aria-label="Agent"
          aria-busy={item.streaming ? 'true' : undefined}
        >
          {item.plain ? (
            <p class="text plain">{item.text}</p>
          ) : (
            <Markdown text={item.text} className="text" />
          )}
          {item.actions && item.id !== undefined && (
            <Actions id={item.id} actions={item.actions} onClick={onClick} />
          )}
          {item.decision !== undefined && <p class="decision">{item.decision}</p>}
        </article>
      );
    case 'system':
      return (
        <p class="message system" role="note">
          {item.text}
        </p>
      );
    case 'file':
      return <FileMessage file={item.file} />;
    case 'error':
      return (
        <p class="message error" role="alert">
          {item.text}
        </p>
      );
  }
}

function FileMessage({ file }: { file: ChatFile }) {
  return (
    <article class="message agent file" aria-label="File">
      {file.comment && <Markdown text={file.comment} className="text" />}
      <a href={file.url} download={file.name}>
        {`${file.name} (${sizeText(file.size)})`}
      </a>
    </article>
  );
}

/** A reply's buttons: a click posts its value; the answer replaces them, or shows under them. */
function Actions({
  id,
  actions,
  onClick,
}: {
  id: string;
  actions: ReplyAction[];
  onClick: MessageListProps['onClick'];
}) {
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string>();
  const choose = async (value: string) => {
    setBusy(true);
    setNote(undefined);
    const problem = await onClick(id, value);
    setBusy(false);
    setNote(problem);
  };
  return (
    <fieldset class="actions" aria-busy={busy ? 'true' : 'false'}>
      <legend class="visually-hidden">Choices</legend>
      {actions.map((action) => (
        <button
          key={action.value}
          type="button"
          class={`action ${action.style === 'primary' || action.style === 'danger' ? action.style : 'plain'}`}
          disabled={busy}
          onClick={() => choose(action.value)}
        >
          {action.label}
        </button>
      ))}
      {note !== undefined && (
        <p class="note" role="alert">
          {note}
        </p>
      )}
    </fieldset>
  );
}
