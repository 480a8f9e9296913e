// The Logs page: the gateway's newest log lines (secrets scrubbed by the gateway as in its log file),
// followed live (`GET /api/logs?after=` every 2 s), filtered by the least level and a text. It sticks
// to the newest line unless the reader scrolled up; Pause stops asking.

import { useEffect, useRef, useState } from 'preact/hooks';
import type { LogLevelName, LogLineView, LogPage } from '../../../src/surfaces/control/contracts.js';
import { api, problemText } from '../api.js';
import './logs.css';

const LEVELS: readonly LogLevelName[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];
const POLL_MS = 2000;
/** Lines the page keeps (the newest). */
const SHOWN = 1000;

export function LogsPage() {
  const [level, setLevel] = useState<LogLevelName>('info');
  const [text, setText] = useState('');
  const [paused, setPaused] = useState(false);
  const [lines, setLines] = useState<LogLineView[]>([]);
  const [problem, setProblem] = useState<string>();
  const [kept, setKept] = useState<number>();
  const box = useRef<HTMLElement>(null);
  const stick = useRef(true);

  // A new filter starts the list again from what the gateway keeps.
  useEffect(() => {
    if (paused) return;
    let after = 0;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    setLines([]);
    const poll = async () => {
      try {
        const query = new URLSearchParams({
          after: String(after),
          level,
          ...(text.trim() ? { q: text.trim() } : {}),
        });
        const page = await api<LogPage>(`/api/logs?${query}`);
        if (stopped) return;
        after = page.next;
        setKept(page.kept);
        setProblem(undefined);
        if (page.lines.length > 0) setLines((shown) => [...shown, ...page.lines].slice(-SHOWN));
      } catch (error) {
        if (!stopped) setProblem(`Could not read the log: ${problemText(error)}`);
      }
      if (!stopped) timer = setTimeout(poll, POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [level, text, paused]);

  // Follow the newest line while the reader is at the bottom.
  useEffect(() => {
    const element = box.current;
    if (element && stick.current) element.scrollTop = element.scrollHeight;
  }, [lines]);

  return (
    <section class="logs-page" aria-labelledby="page-title">
      <h2 id="page-title">Logs</h2>
      <form class="logs-filter" onSubmit={(event) => event.preventDefault()}>
        <label>
          Level{' '}
          <select
            value={level}
            onChange={(event) => setLevel((event.target as HTMLSelectElement).value as LogLevelName)}
          >
            {LEVELS.map((name) => (
              <option key={name} value={name}>
                {name} and above
              </option>
            ))}
          </select>
        </label>
        <label>
          Text{' '}
          <input
            type="search"
            value={text}
            placeholder="router, error, a session key…"
            onChange={(event) => setText((event.target as HTMLInputElement).value)}
          />
        </label>
        <button type="button" aria-pressed={paused} onClick={() => setPaused(!paused)}>
          {paused ? 'Resume' : 'Pause'}
        </button>
      </form>
      <p class="muted" role="status">
        {paused ? 'Paused. ' : 'Live. '}
        {lines.length} line{lines.length === 1 ? '' : 's'} shown
        {kept === undefined ? '' : ` of the ${kept} the gateway keeps`}; secrets are scrubbed.
      </p>
      {problem ? <p role="alert">{problem}</p> : null}
      <section
        class="log-lines"
        ref={box}
        aria-label="Log lines"
        onScroll={(event) => {
          const element = event.currentTarget;
          stick.current = element.scrollHeight - element.scrollTop - element.clientHeight < 24;
        }}
      >
        {lines.length === 0 ? <p class="muted">No lines match.</p> : null}
        {lines.map((line) => (
          <pre key={line.seq} class={`log-line ${line.level}`} data-level={line.level}>
            {line.text}
          </pre>
        ))}
      </section>
    </section>
  );
}
