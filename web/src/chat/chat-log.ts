// What the chat page shows of one thread, as plain data changed by pure functions: the history
// read from the store, the messages typed here, the replies streamed in (deltas, then the final
// text), a reply's buttons and the decision that replaces them, files, and errors.

/** A button under a reply (an approval's Approve / Deny): its value goes to `/api/webchat/action`. */
export interface ReplyAction {
  label: string;
  value: string;
  style?: 'primary' | 'danger';
}

/** A file sent to the chat (`chat.attach`): `url` downloads it with the sign-in cookie. */
export interface ChatFile {
  id: string;
  name: string;
  size: number;
  url: string;
  comment?: string;
}

export type LogItem =
  /** `sending` until its POST is answered (`queued` while an earlier message's turn runs). */
  | { kind: 'user'; key: string; text: string; state: 'sent' | 'sending' | 'failed'; problem?: string }
  | {
      kind: 'agent';
      key: string;
      /** The reply id the gateway gave (history entries: none). */
      id?: string;
      text: string;
      streaming: boolean;
      actions?: ReplyAction[];
      /** The answer to a click, replacing the buttons. */
      decision?: string;
      /** A command's answer: plain text, shown as typed (not Markdown). */
      plain?: boolean;
    }
  /** A note from the gateway (a restart note, a run that failed): a system line. */
  | { kind: 'system'; key: string; id?: string; text: string }
  | { kind: 'file'; key: string; file: ChatFile }
  | { kind: 'error'; key: string; text: string };

export interface ChatLog {
  items: LogItem[];
  /** Reply id → the answer to its click: arriving again, the reply keeps the decision, not its buttons. */
  decided: Record<string, string>;
}

export const EMPTY_LOG: ChatLog = { items: [], decided: {} };

export function append(log: ChatLog, item: LogItem): ChatLog {
  return { ...log, items: [...log.items, item] };
}

/** Earlier history above what is shown. */
export function prepend(log: ChatLog, items: LogItem[]): ChatLog {
  return { ...log, items: [...items, ...log.items] };
}

export function updateUser(log: ChatLog, key: string, change: Partial<LogItem & { kind: 'user' }>): ChatLog {
  return {
    ...log,
    items: log.items.map((item) =>
      item.kind === 'user' && item.key === key ? { ...item, ...change } : item,
    ),
  };
}

/** A streamed part: appended to its reply's text (a new bubble for the first part). */
export function applyDelta(log: ChatLog, id: string, delta: string): ChatLog {
  const existing = log.items.find((item) => item.kind === 'agent' && item.id === id);
  if (existing?.kind === 'agent')
    return replaceAgent(log, id, { text: existing.text + delta, streaming: true });
  return append(log, { kind: 'agent', key: `reply:${id}`, id, text: delta, streaming: true });
}

/** A reply as the stream and the POST answer carry it. */
export interface ReplyView {
  id: string;
  text: string;
  actions?: ReplyAction[];
  /** Not the model's: `command` (plain text) or `approval`. */
  origin?: 'command' | 'approval';
  /** A note from the gateway: shown as a system line. */
  notice?: boolean;
}

/** The final reply (on the stream, or in the POST answer): replaces the streamed text, once. */
export function applyReply(log: ChatLog, reply: ReplyView): ChatLog {
  if (reply.notice === true && !reply.actions?.length) {
    if (log.items.some((item) => item.kind === 'system' && item.id === reply.id)) return log;
    return append(log, { kind: 'system', key: `note:${reply.id}`, id: reply.id, text: reply.text });
  }
  const plain = reply.origin === 'command' && !reply.actions?.length ? { plain: true } : {};
  const decision = log.decided[reply.id];
  const offered = decision === undefined && reply.actions?.length ? { actions: reply.actions } : {};
  const existing = log.items.find((item) => item.kind === 'agent' && item.id === reply.id);
  if (existing?.kind === 'agent') {
    // Buttons already shown, or already replaced by their decision, stay as they are.
    const shown = existing.actions !== undefined || existing.decision !== undefined;
    return replaceAgent(log, reply.id, {
      text: reply.text,
      streaming: false,
      ...plain,
      ...(shown ? {} : offered),
    });
  }
  const buttons = decision === undefined ? offered : { decision };
  return append(log, {
    kind: 'agent',
    key: `reply:${reply.id}`,
    id: reply.id,
    text: reply.text,
    streaming: false,
    ...plain,
    ...buttons,
  });
}

/** A click's answer (from its POST, or from the stream when another page clicked) replaces the buttons. */
export function applyDecision(log: ChatLog, id: string, text: string): ChatLog {
  const decided = { ...log.decided, [id]: text };
  return {
    decided,
    items: log.items.map((item) => {
      if (item.kind !== 'agent' || item.id !== id) return item;
      const { actions: _actions, ...rest } = item;
      return { ...rest, decision: text };
    }),
  };
}

function replaceAgent(log: ChatLog, id: string, change: Partial<LogItem & { kind: 'agent' }>): ChatLog {
  return {
    ...log,
    items: log.items.map((item) => (item.kind === 'agent' && item.id === id ? { ...item, ...change } : item)),
  };
}

export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1048576) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1048576).toFixed(1)} MB`;
}
