// One thread of the signed-in user's web chat: its history from the store (paged back), what is
// sent from here and what arrives on the event stream, and the working / queued indicators:
// working from a send until the first token of the answer; queued while a message waits behind
// the turn an earlier message of the thread is running.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
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
  type ReplyAction,
  updateUser,
} from './chat-log.js';

type Status = 'idle' | 'queued' | 'running';

interface HistoryPage {
  status: Status;
  messages: Array<{ seq: number; role: 'user' | 'assistant'; text: string }>;
  next?: number;
}

interface Reply {
  id: string;
  text: string;
  actions?: ReplyAction[];
}

/** A message sent from this page whose POST has not been answered (its turn has not ended). */
interface Pending {
  key: string;
  thread: string | undefined;
  /** The answer's first token (or the whole reply) has arrived. */
  answered: boolean;
}

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

const historyItem = (message: HistoryPage['messages'][number]): LogItem =>
  message.role === 'user'
    ? { kind: 'user', key: `h${message.seq}`, text: message.text, state: 'sent' }
    : { kind: 'agent', key: `h${message.seq}`, text: message.text, streaming: false };

const historyPath = (thread: string | undefined, before?: number) => {
  const query = new URLSearchParams();
  if (thread !== undefined) query.set('thread', thread);
  if (before !== undefined) query.set('before', String(before));
  const text = query.toString();
  return `/api/webchat/history${text ? `?${text}` : ''}`;
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

  const load = useCallback(async (before?: number) => {
    const asked = current.current;
    setHistory((state) => ({ ...state, loading: true, problem: undefined }));
    try {
      const page = await api<HistoryPage>(historyPath(asked, before));
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
    if (type === 'reply.delta') {
      answered();
      setLog((shown) => applyDelta(shown, id, String(data.delta ?? '')));
    } else if (type === 'reply') {
      answered();
      setLog((shown) => applyReply(shown, data as unknown as Reply));
    } else if (type === 'reply.decided') {
      setLog((shown) => applyDecision(shown, id, String(data.text ?? '')));
    } else if (type === 'file') {
      setLog((shown) => append(shown, { kind: 'file', key: `file:${id}`, file: data as never }));
    }
  };

  const send = async (text: string) => {
    const asked = current.current;
    sent.current += 1;
    const key = `sent:${sent.current}`;
    setLog((shown) => append(shown, { kind: 'user', key, text, state: 'sending' }));
    setPending((list) => [...list, { key, thread: asked, answered: false }]);
    try {
      const answer = await api<{ replies: Reply[] }>('/api/webchat/messages', {
        text,
        ...(asked === undefined ? {} : { thread: asked }),
      });
      // The page may show another thread now: the answer belongs to the one it was sent in.
      if (current.current === asked)
        setLog((shown) => updateUser(answer.replies.reduce(applyReply, shown), key, { state: 'sent' }));
      return undefined;
    } catch (error) {
      const problem = problemText(error);
      if (current.current === asked) setLog((shown) => updateUser(shown, key, { state: 'failed', problem }));
      return problem;
    } finally {
      setPending((list) => list.filter((item) => item.key !== key));
    }
  };

  const click = async (id: string, value: string) => {
    const asked = current.current;
    try {
      const answer = await api<{ text: string; actions?: ReplyAction[] }>('/api/webchat/action', {
        action: value,
        reply: id,
        ...(asked === undefined ? {} : { thread: asked }),
      });
      if (!answer.text) return 'The gateway did not answer the click.';
      // An answer with buttons did not decide (not an approver's click): the buttons stay, it shows under them.
      if (answer.actions?.length) return answer.text;
      if (current.current === asked) setLog((shown) => applyDecision(shown, id, answer.text));
      return undefined;
    } catch (error) {
      return problemText(error);
    }
  };

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
