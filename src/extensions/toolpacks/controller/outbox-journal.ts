import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import type { Logger } from '../../../base/logging/index.js';
import type { ProjectMessage } from './project-message.js';

/**
 * The latest outcome of a message a toolpack sent (`store.messageStatus(id)`): `pending` until it
 * was posted to its route or the wake turn carrying it to its agent started (`delivered`), or
 * delivery was given up after the retries (`failed`, with the last error).
 */
export interface MessageStatus {
  state: 'pending' | 'delivered' | 'failed';
  /** Delivery attempts made so far (0 before the first one ended). */
  attempts: number;
  /** The last attempt's error (a pending message being retried, or a failed one). */
  error?: string;
  /** ISO time the message was posted, or its wake turn started. */
  deliveredAt?: string;
}

/** What the journal file holds, read back: open messages, kept send keys, kept receipts (oldest first). */
export interface JournalContent {
  open: Map<string, ProjectMessage>;
  /** sendKey → message id. */
  keys: Map<string, string>;
  /** message id → its latest status. */
  receipts: Map<string, MessageStatus>;
}

type JournalLine =
  | { message: ProjectMessage }
  | { settled: string }
  | { sent: string; id: string }
  | { receipt: MessageStatus & { id: string } };

/** Sets `key` as the newest entry of an insertion-ordered map, dropping the oldest beyond `kept`. */
export function remember<V>(map: Map<string, V>, key: string, value: V, kept: number): void {
  map.delete(key);
  map.set(key, value);
  for (const oldest of map.keys()) {
    if (map.size <= kept) break;
    map.delete(oldest);
  }
}

export function appendLine(file: string, line: string, sync: boolean): void {
  const descriptor = openSync(file, 'a', 0o600);
  try {
    writeSync(descriptor, line);
    if (sync) fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

export const keyLine = (sendKey: string, id: string) => `${JSON.stringify({ sent: sendKey, id })}\n`;
export const messageLine = (message: ProjectMessage) => `${JSON.stringify({ message })}\n`;
export const receiptLine = (id: string, status: MessageStatus) =>
  `${JSON.stringify({ receipt: { id, ...status } })}\n`;

/** Keys, receipts and open entries alone, atomically (a temp file renamed over); no file when there are none. */
export function rewriteJournal(file: string, content: JournalContent): void {
  if (content.open.size === 0 && content.keys.size === 0 && content.receipts.size === 0) {
    rmSync(file, { force: true });
    return;
  }
  const temporary = `${file}.tmp`;
  const lines = [
    ...[...content.keys].map(([key, id]) => keyLine(key, id)),
    ...[...content.receipts].map(([id, status]) => receiptLine(id, status)),
    ...[...content.open.values()].map(messageLine),
  ].join('');
  rmSync(temporary, { force: true });
  appendLine(temporary, lines, true);
  renameSync(temporary, file);
}

/** Reads the journal (a torn or unreadable line is skipped and counted in the log). */
export function readJournal(
  file: string,
  logger: Logger,
  kept: { keys: number; receipts: number },
): JournalContent {
  const content: JournalContent = { open: new Map(), keys: new Map(), receipts: new Map() };
  if (!existsSync(file)) return content;
  let unreadable = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const entry = parseLine(line);
    if (entry === undefined) unreadable += 1;
    else if ('settled' in entry) content.open.delete(entry.settled);
    else if ('sent' in entry) remember(content.keys, entry.sent, entry.id, kept.keys);
    else if ('receipt' in entry) {
      const { id, ...status } = entry.receipt;
      remember(content.receipts, id, status, kept.receipts);
    } else {
      const { message } = entry;
      content.open.set(message.id, message);
      if (message.sendKey !== undefined) remember(content.keys, message.sendKey, message.id, kept.keys);
      // A rewrite puts receipts before open messages: a message line does not reset its receipt.
      if (!content.receipts.has(message.id))
        remember(content.receipts, message.id, { state: 'pending', attempts: 0 }, kept.receipts);
    }
  }
  if (unreadable > 0) logger.warn({ file, lines: unreadable }, 'outbox lines unreadable (skipped)');
  return content;
}

const STATES = new Set(['pending', 'delivered', 'failed']);

function parseLine(line: string): JournalLine | undefined {
  try {
    const entry = JSON.parse(line) as Record<string, unknown>;
    if (typeof entry.settled === 'string') return { settled: entry.settled };
    if (typeof entry.sent === 'string' && typeof entry.id === 'string')
      return { sent: entry.sent, id: entry.id };
    const receipt = entry.receipt as (MessageStatus & { id: unknown }) | undefined;
    if (typeof receipt?.id === 'string' && STATES.has(receipt.state) && typeof receipt.attempts === 'number')
      return { receipt: receipt as MessageStatus & { id: string } };
    const message = entry.message as ProjectMessage | undefined;
    if (typeof message?.id === 'string') return { message };
  } catch {}
  return undefined;
}
