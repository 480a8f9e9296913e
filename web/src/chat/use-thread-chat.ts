// One thread of the signed-in user's web chat: its history from the store (paged back), what is
// sent from here and what arrives on the event stream, and the working / queued indicators:
// working from a send until the first token of the answer; queued while a message waits behind
// the turn an earlier message of the thread is running.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { WebchatHistoryMessage, WebchatHistoryPage } from '../../../src/surfaces/control/contracts.js';
import { api, problemText } from '../api.js';
import {
  append,
  applyDecision,
  applyDelta,
  applyReply,
  type ChatLog,
  EMPTY_LOG,
  type LogItem,
  prepend,
  type ReplyView,
} from './chat-log.js';
import { linkedKeyOf } from './linked.js';
import { createThreadPosts, type Pending } from './thread-posts.js';

export interface HistoryState {
  loading: boolean;
  /** The `before` of the page further back; absent at the start. */
  next?: number;
  problem?: string;
}

export interface ThreadChat {
  log: ChatLog;
  history: HistoryState;
  /** Waiting for the first token of an answer. */
  working: boolean;
  /** The user messages waiting behind a running turn. */
  queued: ReadonlySet<string>;
  /** Some message of this thread waits for its answer. */
  busy: boolean;
  /** Sends `text`; resolves with what went wrong, if it was not sent. */
  send(text: string): Promise<string | undefined>;
  /** Posts a button's value; resolves with what to show under the buttons, if they stay. */
  click(id: string, value: string): Promise<string | undefined>;
  loadEarlier(): void;
  /** An event of this thread's stream. */
  onEvent(type: string, data: Record<string, unknown>): void;
}

function historyItem(message: WebchatHistoryMessage): LogItem {
  const key = message.id === undefined ? `h${message.seq}` : `j:${message.id}`;
  if (message.role === 'user') return { kind: 'user', key, text: message.text, state: 'sent' };
  if (message.role === 'system') return { kind: 'system', key, text: message.text };
  const { id, actions, decision } = message;
  return {
    kind: 'agent',
    key,
    text: message.text,
    streaming: false,
    ...(id === undefined ? {} : { id }),
    ...(message.origin === 'command' && !actions?.length ? { plain: true } : {}),
    ...(actions?.length && decision === undefined ? { actions } : {}),
    ...(decision === undefined ? {} : { decision }),
  };
}

const historyPath = (thread: string | undefined, before?: number) => {
  const query = new URLSearchParams();
  const linked = linkedKeyOf(thread);
  if (linked !== undefined) query.set('key', linked);
  else if (thread !== undefined) query.set('thread', thread);
  if (before !== undefined) query.set('before', String(before));
  const text = query.toString();
  const path = linked === undefined ? '/api/webchat/history' : '/api/webchat/linked/history';
  return `${path}${text ? `?${text}` : ''}`;
};

export function useThreadChat(thread: string | undefined): ThreadChat {
  const [log, setLog] = useState<ChatLog>(EMPTY_LOG);
  const [history, setHistory] = useState<HistoryState>({ loading: true });
  const [pending, setPending] = useState<Pending[]>([]);
  /** A turn of this thread was running (or queued) when the history was read, and has not answered since. */
  const [remoteBusy, setRemoteBusy] = useState(false);
  const current = useRef(thread);
  current.current = thread;
  const sent = useRef(0);
  const finished = useRef(new Set<string>());

  const load = useCallback(async (before?: number) => {
    const asked = current.current;
    setHistory((state) => ({ ...state, loading: true, problem: undefined }));
    try {
      const page = await api<WebchatHistoryPage>(historyPath(asked, before));
      if (current.current !== asked) return;
      setLog((shown) => prepend(shown, page.messages.map(historyItem)));
      if (before === undefined) setRemoteBusy(page.status !== 'idle');
      setHistory({ loading: false, ...(page.next === undefined ? {} : { next: page.next }) });
    } catch (error) {
      if (current.current === asked)
        setHistory((state) => ({ ...state, loading: false, problem: problemText(error) }));
    }
  }, []);

  useEffect(() => {
    setLog(EMPTY_LOG);
    setRemoteBusy(false);
    void load();
  }, [thread, load]);

  const answered = () => {
    setRemoteBusy(false);
    setPending((list) => {
      const head = list.findIndex((item) => item.thread === current.current);
      return head < 0
        ? list
        : list.map((item, index) => (index === head ? { ...item, answered: true } : item));
    });
  };

  const onEvent = (type: string, data: Record<string, unknown>) => {
    const id = String(data.id ?? '');
    // A late event of a reply whose POST was answered is no news of the next message's turn.
    const fresh = !finished.current.has(id);
    if (type === 'reply.delta') {
      if (fresh) answered();
      setLog((shown) => applyDelta(shown, id, String(data.delta ?? '')));
    } else if (type === 'reply') {
      if (fresh) answered();
      setLog((shown) => applyReply(shown, data as unknown as ReplyView));
    } else if (type === 'reply.decided') {
      setLog((shown) => applyDecision(shown, id, String(data.text ?? '')));
    } else if (type === 'file') {
      setLog((shown) => append(shown, { kind: 'file', key: `file:${id}`, file: data as never }));
    }
  };

  const { send, click } = createThreadPosts({ current, setLog, setPending, sent, finished });

  const mine = pending.filter((item) => item.thread === thread);
  const head = mine[0];
  return {
    log,
    history,
    working: head !== undefined ? !head.answered : remoteBusy,
    queued: new Set(mine.slice(1).map((item) => item.key)),
    busy: mine.length > 0,
    send,
    click,
    loadEarlier: () => {
      if (history.next !== undefined && !history.loading) void load(history.next);
    },
    onEvent,
  };
}
