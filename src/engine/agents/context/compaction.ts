import type { NewTranscriptEntry, TranscriptEntry } from '../../../records/sessions/index.js';
import { toMessage, toModelMessages } from '../model-context.js';
import type { ModelMessage, ModelProvider, ModelResponse } from '../providers/index.js';
import { type ContextBudget, messagesTokens, messageTokens, truncateResult } from './context-budget.js';
import { type SessionContext, summaryMessage } from './session-context.js';
import { SUMMARY_INSTRUCTION, summaryInput } from './summary-input.js';

/** The newest entries kept verbatim by a compaction: up to this share of the context. */
const KEEP_PERCENT = 20;

export interface CompactionInput {
  provider: ModelProvider;
  context: SessionContext;
  budget: ContextBudget;
  /** Entries from this seq on stay verbatim (a turn's own messages); the last user message always does. */
  keepFrom?: number;
  multiUser: boolean;
  signal: AbortSignal;
  record(entry: NewTranscriptEntry): Promise<TranscriptEntry>;
  /** Told of the summarizing call's answer (a turn reports its model and tokens as a `model_end`). */
  answered?(response: ModelResponse): void | Promise<void>;
}

/** A compaction done (`entry` is the stored summary) or why there was nothing to do. */
export type CompactionOutcome =
  | {
      status: 'compacted';
      entry: TranscriptEntry;
      context: SessionContext;
      /** How many entries this call summarized (an earlier summary's aside). */
      summarized: number;
      tokensBefore: number;
      tokensAfter: number;
    }
  | { status: 'nothing'; reason: string };

/**
 * Summarizes the older entries of `context` (and its earlier summary) by one model call without
 * tools, and records the summary as a compaction entry. The newest entries stay verbatim: the
 * last user message and everything after it (an open tool exchange too), and `keepFrom` on. The
 * summarized part ends right before a user or system entry, so it never splits a tool exchange.
 * Throws what the provider throws (`ModelCallError`, the signal's abort reason).
 */
export async function compactSession(input: CompactionInput): Promise<CompactionOutcome> {
  const { context, budget } = input;
  const tokensBefore = tokensOf(context, input);
  const cut = cutIndex(context.entries, input);
  if (cut <= 0) return { status: 'nothing', reason: 'the history before the last message is short already' };
  const covered = context.entries.slice(0, cut);
  const response = await input.provider.complete({
    system: SUMMARY_INSTRUCTION,
    messages: [{ role: 'user', content: summaryInput(context.summary, covered, budget) }],
    tools: [],
    signal: input.signal,
  });
  await input.answered?.(response);
  const text = response.text.trim();
  if (text === '') return { status: 'nothing', reason: 'the model wrote an empty summary' };
  const earlier = context.summary?.compaction;
  const entry = await input.record({
    role: 'system',
    text,
    compaction: {
      fromSeq: earlier?.fromSeq ?? (covered[0] as TranscriptEntry).seq,
      toSeq: (covered.at(-1) as TranscriptEntry).seq,
      entries: (earlier?.entries ?? 0) + covered.length,
    },
  });
  const after: SessionContext = { summary: entry, entries: context.entries.slice(cut) };
  const tokensAfter = tokensOf(after, input);
  return {
    status: 'compacted',
    entry,
    context: after,
    summarized: covered.length,
    tokensBefore,
    tokensAfter,
  };
}

/** The context's estimated tokens, as the model would be sent it (tool results cut). */
export function tokensOf(
  context: SessionContext,
  input: Pick<CompactionInput, 'budget' | 'multiUser'>,
): number {
  const messages = toModelMessages(context.entries, { multiUser: input.multiUser }).map((message) =>
    cutResult(message, input.budget.toolResultChars),
  );
  return messagesTokens(context.summary ? [summaryMessage(context.summary), ...messages] : messages);
}

/**
 * Where the verbatim part starts: the earliest user or system entry from which the rest fits in
 * KEEP_PERCENT of the context, no later than the last user message (and `keepFrom`); 0 when
 * nothing before it can be summarized or the whole history fits in KEEP_PERCENT already.
 */
function cutIndex(entries: readonly TranscriptEntry[], input: CompactionInput): number {
  const isStart = (entry: TranscriptEntry) => entry.role === 'user' || entry.role === 'system';
  const lastUser = entries.findLastIndex((entry) => entry.role === 'user');
  const keepFrom = input.keepFrom ?? Number.POSITIVE_INFINITY;
  const kept = entries.findIndex((entry) => entry.seq >= keepFrom);
  const lastStart = entries.findLastIndex(isStart);
  const latest = Math.min(...[lastUser, kept, lastStart].filter((index) => index >= 0));
  const keepTokens = (input.budget.contextTokens * KEEP_PERCENT) / 100;
  let tokens = 0;
  let cut = 0;
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const entry = entries[index] as TranscriptEntry;
    tokens += messageTokens(cutResult(toMessage(entry, input), input.budget.toolResultChars));
    if (index === 0 || index > latest || !isStart(entry)) continue;
    if (cut === 0 || tokens <= keepTokens) cut = index;
  }
  // Already short: nothing is worth a summary (a repeated /compact does nothing).
  return cut > 0 && tokens <= keepTokens ? 0 : cut;
}

function cutResult(message: ModelMessage, maxChars: number): ModelMessage {
  return message.role === 'tool'
    ? { ...message, content: truncateResult(message.content, maxChars) }
    : message;
}
