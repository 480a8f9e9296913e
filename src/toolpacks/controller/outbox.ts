import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../logging/index.js';
import type { ProjectMessage } from './project-message.js';

/** The outbox of a toolpack, in its state dir: `<stateDir>/toolpack-state/<id>/outbox.jsonl`. */
export function outboxFile(stateDir: string, toolpackId: string): string {
  return path.join(stateDir, 'toolpack-state', toolpackId, 'outbox.jsonl');
}

/** Settle lines the file may hold beside the open entries before it is rewritten with only those. */
const COMPACT_AFTER = 512;
/** Send keys remembered (the latest), so a send repeated after a restart is recognized. */
const KEYS_KEPT = 1000;

/**
 * A controller's write-ahead journal of sent messages. `store.sendMessage` returns synchronously
 * and its caller takes that as done (the scheduler marks a once job done), while delivery (the
 * signal queue's store write, a chat post) is asynchronous: the message is written and fsynced
 * here first, so a process killed before delivery ends keeps it, and the next start delivers
 * what is still open (`open`) before the scheduler ticks. A replayed message keeps its id, and
 * delivery to an agent skips an id the signal queue already holds, so a replay does not double
 * it; a chat post has nothing to check, so one killed between the post and its settle line is
 * posted again (at least once, never lost).
 *
 * A message sent with a `sendKey` leaves its key behind when it settles (`{ "sent": key, "id" }`,
 * the latest KEYS_KEPT): the sender (the scheduler) records a firing after `sendMessage` returns,
 * and a kill between the two would otherwise fire it again after the restart, as a new message.
 *
 * One line per event, JSON: `{ "message": … }` when sent, `{ "settled": id }` when its delivery
 * ended (either way). The file is removed once nothing is open and no key is kept.
 */
export interface Outbox {
  /** Appends the message and fsyncs: once this returns, the message survives a SIGKILL. */
  add(message: ProjectMessage): void;
  /** The message's delivery ended (stored, posted or refused): it is not replayed. */
  settle(messageId: string): void;
  /** The messages added and not settled, oldest first (at start: what the last process left). */
  open(): ProjectMessage[];
  /** The id of the message sent with this key, if it is remembered. */
  sentWith(sendKey: string): string | undefined;
}

interface OutboxState {
  file: string;
  open: Map<string, ProjectMessage>;
  /** sendKey → message id, oldest first. */
  keys: Map<string, string>;
  settledLines: number;
}

/** Reads what the file holds (a torn last line is skipped) and rewrites it with only the open entries. */
export function createOutbox(options: { file: string; logger: Logger }): Outbox {
  const state: OutboxState = {
    file: options.file,
    ...readJournal(options.file, options.logger),
    settledLines: 0,
  };
  if (existsSync(state.file)) rewrite(state);
  return {
    add: (message) => add(state, message),
    settle: (messageId) => settle(state, messageId),
    open: () => [...state.open.values()],
    sentWith: (sendKey) => state.keys.get(sendKey),
  };
}

function add(state: OutboxState, message: ProjectMessage): void {
  mkdirSync(path.dirname(state.file), { recursive: true });
  append(state.file, `${JSON.stringify({ message })}\n`, true);
  state.open.set(message.id, message);
  if (message.sendKey !== undefined) remember(state.keys, message.sendKey, message.id);
}

function remember(keys: Map<string, string>, sendKey: string, id: string): void {
  keys.delete(sendKey);
  keys.set(sendKey, id);
  for (const oldest of keys.keys()) {
    if (keys.size <= KEYS_KEPT) break;
    keys.delete(oldest);
  }
}

function settle(state: OutboxState, messageId: string): void {
  if (!state.open.delete(messageId)) return;
  if ((state.open.size === 0 && state.keys.size === 0) || state.settledLines >= COMPACT_AFTER) {
    rewrite(state);
    return;
  }
  // No fsync: a settle line lost to a crash only means a replay, which delivery deduplicates.
  append(state.file, `${JSON.stringify({ settled: messageId })}\n`, false);
  state.settledLines += 1;
}

function append(file: string, line: string, sync: boolean): void {
  const descriptor = openSync(file, 'a', 0o600);
  try {
    writeSync(descriptor, line);
    if (sync) fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

/** The kept keys and open entries alone, atomically (a temp file renamed over); no file when there are none. */
function rewrite(state: OutboxState): void {
  state.settledLines = 0;
  if (state.open.size === 0 && state.keys.size === 0) {
    rmSync(state.file, { force: true });
    return;
  }
  const temporary = `${state.file}.tmp`;
  const sent = [...state.keys].map(([key, id]) => `${JSON.stringify({ sent: key, id })}\n`);
  const open = [...state.open.values()].map((message) => `${JSON.stringify({ message })}\n`);
  const lines = [...sent, ...open].join('');
  rmSync(temporary, { force: true });
  append(temporary, lines, true);
  renameSync(temporary, state.file);
}

function readJournal(file: string, logger: Logger): Pick<OutboxState, 'open' | 'keys'> {
  const open = new Map<string, ProjectMessage>();
  const keys = new Map<string, string>();
  if (!existsSync(file)) return { open, keys };
  let unreadable = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const entry = parseLine(line);
    if (entry === undefined) unreadable += 1;
    else if ('settled' in entry) open.delete(entry.settled);
    else if ('sent' in entry) remember(keys, entry.sent, entry.id);
    else {
      open.set(entry.message.id, entry.message);
      if (entry.message.sendKey !== undefined) remember(keys, entry.message.sendKey, entry.message.id);
    }
  }
  if (unreadable > 0) logger.warn({ file, lines: unreadable }, 'outbox lines unreadable (skipped)');
  return { open, keys };
}

type JournalLine = { message: ProjectMessage } | { settled: string } | { sent: string; id: string };

function parseLine(line: string): JournalLine | undefined {
  try {
    const entry = JSON.parse(line) as {
      message?: ProjectMessage;
      settled?: unknown;
      sent?: unknown;
      id?: unknown;
    };
    if (typeof entry.settled === 'string') return { settled: entry.settled };
    if (typeof entry.sent === 'string' && typeof entry.id === 'string')
      return { sent: entry.sent, id: entry.id };
    if (typeof entry.message?.id === 'string') return { message: entry.message };
  } catch {}
  return undefined;
}
