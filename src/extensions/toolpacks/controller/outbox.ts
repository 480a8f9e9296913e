import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../../base/logging/index.js';
import {
  appendLine,
  type JournalContent,
  type MessageStatus,
  messageLine,
  readJournal,
  receiptLine,
  remember,
  rewriteJournal,
} from './outbox-journal.js';
import type { ProjectMessage } from './project-message.js';

export type { MessageStatus } from './outbox-journal.js';

/** The outbox of a toolpack, in its state dir: `<stateDir>/toolpack-state/<id>/outbox.jsonl`. */
export function outboxFile(stateDir: string, toolpackId: string): string {
  return path.join(stateDir, 'toolpack-state', toolpackId, 'outbox.jsonl');
}

/** Settle and receipt lines the file may hold before it is rewritten with only what is kept. */
const COMPACT_AFTER = 512;
/** Send keys remembered (the latest), so a send repeated after a restart is recognized. */
const KEYS_KEPT = 1000;
/** Message statuses remembered (the latest), for `store.messageStatus`. */
const RECEIPTS_KEPT = 1000;

/**
 * A controller's write-ahead journal of sent messages. `store.sendMessage` returns synchronously,
 * while delivery (the signal queue's store write, a chat post, its retries) is asynchronous: the
 * message is written and fsynced here first, so a process killed before delivery ends keeps it,
 * and the next start delivers what is still open (`open`) before the scheduler ticks. A replayed
 * message keeps its id, and delivery to an agent skips an id the signal queue already holds, so a
 * replay does not double it; a chat post has nothing to check, so one killed between the post and
 * its settle line is posted again (at least once, never lost).
 *
 * A message sent with a `sendKey` leaves its key behind when it settles (`{ "sent": key, "id" }`,
 * the latest KEYS_KEPT): the sender (the scheduler) records a firing after `sendMessage` returns,
 * and a kill between the two would otherwise fire it again after the restart, as a new message.
 *
 * Each message's latest status (`store.messageStatus`) is kept too (`{ "receipt": { id, state,
 * attempts, error?, deliveredAt? } }`, the latest RECEIPTS_KEPT): a final one (`delivered`,
 * `failed`) is fsynced, since a sender waiting on it (the scheduler's overlap rule) would wait
 * forever on a lost one; a `pending` retry count is not.
 *
 * One line per event, JSON: `{ "message": … }` when sent, `{ "settled": id }` when its delivery
 * ended (either way), receipts as above. The file is removed once nothing is open or kept.
 */
export interface Outbox {
  /** Appends the message (status `pending`, 0 attempts) and fsyncs: once this returns, it survives a SIGKILL. */
  add(message: ProjectMessage): void;
  /** The message's delivery ended (posted, queued, or given up): it is not replayed. */
  settle(messageId: string): void;
  /** The messages added and not settled, oldest first (at start: what the last process left). */
  open(): ProjectMessage[];
  /** The id of the message sent with this key, if it is remembered. */
  sentWith(sendKey: string): string | undefined;
  /** The latest status of a message added here, if it is remembered. */
  status(messageId: string): MessageStatus | undefined;
  /** Records a message's new status (fsynced when `delivered` or `failed`). */
  record(messageId: string, status: MessageStatus): void;
}

interface OutboxState extends JournalContent {
  file: string;
  /** Lines appended since the last rewrite, besides message lines. */
  extraLines: number;
}

/** Reads what the file holds (a torn last line is skipped) and rewrites it with only what is kept. */
export function createOutbox(options: { file: string; logger: Logger }): Outbox {
  const state: OutboxState = {
    file: options.file,
    ...readJournal(options.file, options.logger, { keys: KEYS_KEPT, receipts: RECEIPTS_KEPT }),
    extraLines: 0,
  };
  if (existsSync(state.file)) rewrite(state);
  return {
    add: (message) => add(state, message),
    settle: (messageId) => settle(state, messageId),
    open: () => [...state.open.values()],
    sentWith: (sendKey) => state.keys.get(sendKey),
    status: (messageId) => {
      const status = state.receipts.get(messageId);
      return status === undefined ? undefined : { ...status };
    },
    record: (messageId, status) => record(state, messageId, status),
  };
}

function add(state: OutboxState, message: ProjectMessage): void {
  mkdirSync(path.dirname(state.file), { recursive: true });
  appendLine(state.file, messageLine(message), true);
  state.open.set(message.id, message);
  if (message.sendKey !== undefined) remember(state.keys, message.sendKey, message.id, KEYS_KEPT);
  remember(state.receipts, message.id, { state: 'pending', attempts: 0 }, RECEIPTS_KEPT);
}

function record(state: OutboxState, messageId: string, status: MessageStatus): void {
  remember(state.receipts, messageId, { ...status }, RECEIPTS_KEPT);
  if (state.extraLines >= COMPACT_AFTER) {
    rewrite(state);
    return;
  }
  mkdirSync(path.dirname(state.file), { recursive: true });
  appendLine(state.file, receiptLine(messageId, status), status.state !== 'pending');
  state.extraLines += 1;
}

function settle(state: OutboxState, messageId: string): void {
  if (!state.open.delete(messageId)) return;
  if (state.extraLines >= COMPACT_AFTER) {
    rewrite(state);
    return;
  }
  // No fsync: a settle line lost to a crash only means a replay, which delivery deduplicates.
  appendLine(state.file, `${JSON.stringify({ settled: messageId })}\n`, false);
  state.extraLines += 1;
}

function rewrite(state: OutboxState): void {
  state.extraLines = 0;
  rewriteJournal(state.file, state);
}
