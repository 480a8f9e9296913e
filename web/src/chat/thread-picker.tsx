// The signed-in user's threads (their web chat sessions, from `GET /api/webchat/threads`), the
// one on screen, and a new one. The thread on screen is kept in localStorage under the signed-in
// user (chat-storage.ts): a reload shows it again, with its history.
import { useCallback, useEffect, useState } from 'preact/hooks';
import type {
  LinkedSessionView,
  WebchatThreadList,
  WebchatThreadView,
} from '../../../src/surfaces/control/contracts.js';
import { api } from '../api.js';
import { useMe } from '../me.js';
import { threadKey } from './chat-storage.js';
import { linkedKeyOf, linkedLabel, linkedName } from './linked.js';

/** The thread on screen (`undefined`: the main chat) and its setter, kept across reloads. */
export function useCurrentThread(): [string | undefined, (thread: string | undefined) => void] {
  const threadName = threadKey(useMe().user);
  const [thread, setThread] = useState<string | undefined>(
    () => localStorage.getItem(threadName) || undefined,
  );
  const choose = useCallback(
    (next: string | undefined) => {
      if (next === undefined) localStorage.removeItem(threadName);
      else localStorage.setItem(threadName, next);
      setThread(next);
    },
    [threadName],
  );
  return [thread, choose];
}

/** The user's threads, read again with `refresh` (after a send: a new thread now has a session). */
export function useThreads(): { threads: WebchatThreadView[]; refresh(): void } {
  const [threads, setThreads] = useState<WebchatThreadView[]>([]);
  const refresh = useCallback(() => {
    api<WebchatThreadList>('/api/webchat/threads')
      .then((answer) => setThreads(answer.threads))
      .catch(() => undefined);
  }, []);
  useEffect(refresh, []);
  return { threads, refresh };
}

/** A fresh thread name the web chat accepts (`[A-Za-z0-9][A-Za-z0-9_.-]{0,63}`): `t-<date>-<time.ms>`. */
function newThreadName(): string {
  const stamp = new Date().toISOString().replace(/[-:Z]/g, '').replace('T', '-');
  return `t-${stamp}`;
}

export function ThreadPicker(props: {
  thread: string | undefined;
  threads: WebchatThreadView[];
  /** The person's Slack and Discord direct chats, listed after the web threads. */
  linked: LinkedSessionView[];
  /** Threads with messages that arrived while another was on screen (`''`: the main chat). */
  news: ReadonlySet<string>;
  onChoose(thread: string | undefined): void;
}) {
  const { thread, news } = props;
  const names = props.threads.flatMap((view) => (view.thread === undefined ? [] : [view.thread]));
  // A thread chosen here has no session until its first message: it is listed all the same.
  if (thread !== undefined && linkedKeyOf(thread) === undefined && !names.includes(thread))
    names.unshift(thread);
  const titles = new Map(props.threads.map((view) => [view.thread, view.title]));
  const label = (name: string | undefined) =>
    `${name === undefined ? 'Main chat' : (titles.get(name) ?? 'New thread')}${news.has(name ?? '') ? ' (new messages)' : ''}`;
  return (
    <div class="threads">
      <label for="thread">Thread</label>
      <select
        id="thread"
        value={thread ?? ''}
        onChange={(event) => props.onChoose((event.currentTarget as HTMLSelectElement).value || undefined)}
      >
        <option value="">{label(undefined)}</option>
        {names.map((name) => (
          <option key={name} value={name} title={name}>
            {label(name)}
          </option>
        ))}
        {props.linked.length > 0 && (
          <optgroup label="Slack and Discord">
            {props.linked.map((view) => (
              <option key={view.sessionKey} value={linkedName(view.sessionKey)} title={view.sessionKey}>
                {linkedLabel(view)}
              </option>
            ))}
          </optgroup>
        )}
      </select>
      <button type="button" class="plain" onClick={() => props.onChoose(newThreadName())}>
        New thread
      </button>
    </div>
  );
}
