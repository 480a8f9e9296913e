// A transcript as the page shows it: user and system entries on their own, each assistant entry
// with the tool calls it made and their results (matched by call id) folded under it. A result
// whose call is on a page not loaded yet stands alone.
import type { TranscriptEntry, TranscriptToolCall } from './types.js';

export interface ToolRound {
  call: TranscriptToolCall;
  /** The tool entry answering the call, once it is there. */
  result?: TranscriptEntry;
}

export type TranscriptItem =
  | { kind: 'message'; entry: TranscriptEntry }
  | { kind: 'assistant'; entry: TranscriptEntry; rounds: ToolRound[] }
  | { kind: 'result'; entry: TranscriptEntry };

export function transcriptItems(entries: readonly TranscriptEntry[]): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  const byCall = new Map<string, ToolRound>();
  for (const entry of entries) {
    if (entry.role === 'assistant') {
      const rounds = (entry.toolCalls ?? []).map((call) => ({ call }));
      for (const round of rounds) byCall.set(round.call.id, round);
      items.push({ kind: 'assistant', entry, rounds });
      continue;
    }
    const round = entry.role === 'tool' && entry.toolCallId ? byCall.get(entry.toolCallId) : undefined;
    if (round && !round.result) round.result = entry;
    else items.push({ kind: entry.role === 'tool' ? 'result' : 'message', entry });
  }
  return items;
}

/** Entries in seq order without duplicates: a live entry may also come in a page read meanwhile. */
export function mergeEntries(
  current: readonly TranscriptEntry[],
  more: readonly TranscriptEntry[],
): TranscriptEntry[] {
  const bySeq = new Map<number, TranscriptEntry>();
  for (const entry of current) bySeq.set(entry.seq, entry);
  for (const entry of more) bySeq.set(entry.seq, entry);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}
