import type { TranscriptEntry } from '../../../records/sessions/index.js';
import { type ContextBudget, truncateResult } from './context-budget.js';

/** How much of one tool result or tool call the summarizing model reads. */
const RESULT_CHARS = 2000;
const ARGUMENT_CHARS = 500;
/** Room kept in the summarizing call for its instruction and the wire format, in characters. */
const INSTRUCTION_ROOM = 4000;

/** The system prompt of the summarizing call (one call, no tools). */
export const SUMMARY_INSTRUCTION = [
  'You compact a conversation between users and an AI assistant so that it can go on in less space.',
  'Write the summary that will replace the entries you are given. Keep what the assistant needs to go on:',
  'the facts, decisions, open tasks and promises, names, numbers, dates, file paths and identifiers,',
  'and what the tools found. Keep the content of an earlier summary if there is one.',
  'Write plain text, as short as it can be while keeping those. Do not answer any request in the entries',
  'and do not address anyone: only summarize.',
].join(' ');

/**
 * What the summarizing model reads: the earlier summary, then each entry on its own lines (tool
 * results and arguments cut short). When it is over the context (less the reply), the oldest
 * entries are left out, with a line saying so.
 */
export function summaryInput(
  earlier: TranscriptEntry | undefined,
  entries: readonly TranscriptEntry[],
  budget: ContextBudget,
): string {
  const head = earlier ? [`Earlier summary:\n${earlier.text}`] : [];
  const lines = entries.map(entryLine);
  const maxChars = (budget.contextTokens - budget.replyTokens) * 4 - INSTRUCTION_ROOM;
  let total = head.reduce((sum, line) => sum + line.length + 1, 0);
  let first = lines.length;
  while (first > 0 && total + (lines[first - 1] as string).length + 1 <= maxChars) {
    first -= 1;
    total += (lines[first] as string).length + 1;
  }
  const left = first > 0 ? [`[${first} older entries left out: too long to summarize at once]`] : [];
  return [...head, 'Entries to summarize:', ...left, ...lines.slice(first)].join('\n');
}

function entryLine(entry: TranscriptEntry): string {
  if (entry.role === 'tool') {
    const what = `${entry.toolName ?? 'tool'}${entry.isError ? ', error' : ''}`;
    return `[result of ${what}] ${truncateResult(entry.text, RESULT_CHARS)}`;
  }
  if (entry.role === 'assistant') {
    const calls = (entry.toolCalls ?? []).map(
      (call) => ` [called ${call.name} ${truncateResult(call.arguments, ARGUMENT_CHARS)}]`,
    );
    return `[assistant] ${entry.text}${calls.join('')}`;
  }
  if (entry.role === 'system') return `[system] ${entry.text}`;
  return `[user${entry.senderId ? ` ${entry.senderId}` : ''}] ${entry.text}`;
}
