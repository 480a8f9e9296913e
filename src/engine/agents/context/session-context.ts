import type { SessionStore, TranscriptEntry } from '../../../records/sessions/index.js';
import { toMessage, toModelMessages } from '../model-context.js';
import type { ModelMessage } from '../providers/index.js';

/**
 * What of a session the model is given: the latest compaction's summary, if any, and the entries
 * it does not cover (older compaction entries left out: the latest summary includes them).
 */
export interface SessionContext {
  summary?: TranscriptEntry;
  entries: TranscriptEntry[];
}

/**
 * The context of a session from its recent `history`. The latest compaction entry is in the
 * history when any is (it is the newest of them); otherwise the record's pointer finds it, however
 * far back it is (one read, only for a session that was compacted).
 */
export async function readSessionContext(
  sessions: Pick<SessionStore, 'compaction'>,
  sessionKey: string,
  history: readonly TranscriptEntry[],
): Promise<SessionContext> {
  const inHistory = history.findLast((entry) => entry.compaction !== undefined);
  const summary = inHistory ?? (await sessions.compaction(sessionKey));
  return sessionContext(history, summary);
}

export function sessionContext(
  history: readonly TranscriptEntry[],
  summary: TranscriptEntry | undefined,
): SessionContext {
  const covered = summary?.compaction?.toSeq ?? -1;
  const entries = history.filter((entry) => entry.compaction === undefined && entry.seq > covered);
  return summary ? { summary, entries } : { entries };
}

/** A compaction's summary as the model reads it: a system entry (`⟦system⟧`), first in the conversation. */
export function summaryMessage(summary: TranscriptEntry): ModelMessage {
  const count = summary.compaction?.entries ?? 0;
  const text = `Summary of the conversation before this point (${count} earlier entries, compacted):\n${summary.text}`;
  return toMessage({ ...summary, role: 'system', text }, { multiUser: false });
}

/** The context as model messages: the summary (if any) first, then the entries it does not cover. */
export function contextMessages(context: SessionContext, options: { multiUser: boolean }): ModelMessage[] {
  const messages = toModelMessages(context.entries, options);
  return context.summary ? [summaryMessage(context.summary), ...messages] : messages;
}
