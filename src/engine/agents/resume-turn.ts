import type { NewTranscriptEntry, TranscriptEntry } from '../../records/sessions/index.js';
import type { ToolCallOutcome } from '../tools/index.js';
import type { ModelToolCall } from './providers/index.js';
import type { TurnTools } from './turn-tools.js';

/** Told in the chat, once, when a turn a restart cut short goes on (instead of a repeated answer). */
export const RESUMED_NOTICE = 'Resumed after a restart';

/** Starts that may die running one turn (or sub-agent run) before it is ended instead of resumed. */
export const MAX_ATTEMPTS = 3;

/** What the resume rule reads of work a restart cut short: a turn, or a sub-agent run's turn. */
export interface InterruptedWork {
  /** Starts that died while it ran, the last one included. */
  attempts: number;
  /** Its agent's `resume` (`agents.<id>.resume`). */
  resume: 'safe' | 'off' | undefined;
  /** How long ago it was last active (its transcript's last entry), in ms. */
  idleMs: number;
  /** `agentLoop.resumeWithinMs`. */
  resumeWithinMs: number;
}

/** Goes on, or is ended: at its third interruption, by `resume: "off"`, or past the age limit. */
export type ResumeVerdict = { kind: 'resume' } | { kind: 'end'; why: 'attempts' | 'off' | 'stale' };

/**
 * The resume rule (issue 32 §1), one for chat turns (`routing/intake.ts`) and sub-agent runs
 * (`subagents/resume.ts`), each of which words the end for its own reader. Pure.
 */
export function resumeVerdict(work: InterruptedWork): ResumeVerdict {
  if (work.attempts >= MAX_ATTEMPTS) return { kind: 'end', why: 'attempts' };
  if (work.resume === 'off') return { kind: 'end', why: 'off' };
  if (work.idleMs > work.resumeWithinMs) return { kind: 'end', why: 'stale' };
  return { kind: 'resume' };
}

/** The result a call gets when a restart cut it short and it is not safe to run again. */
export function unknownOutcome(name: string): string {
  return (
    `Outcome unknown: the gateway restarted while this ${name} call was running, before its result was recorded. ` +
    'It was not run again. Do not assume it succeeded or failed; check its effects before relying on them or repeating it.'
  );
}

/** What resuming did to the calls the last attempt left without a result. */
export interface ResumedCalls {
  /** The result entries recorded, in the order of the calls. */
  entries: TranscriptEntry[];
  /** Calls run again (restart-safe). */
  repeated: number;
  /** Calls whose outcome the model is told is unknown. */
  unknown: number;
}

/**
 * The tool calls of the turn's last model round that have no result: the history ends with the
 * assistant entry that made them, followed only by results of some of them. Calls cut short
 * anywhere else are closed by `toModelMessages` (no result).
 */
export function openCalls(history: readonly TranscriptEntry[]): ModelToolCall[] {
  let index = history.length - 1;
  while (index >= 0 && history[index]?.role === 'tool') index -= 1;
  const round = history[index];
  if (round?.role !== 'assistant' || !round.toolCalls?.length) return [];
  const done = new Set(history.slice(index + 1).map((entry) => entry.toolCallId));
  return round.toolCalls.filter((call) => !done.has(call.id));
}

/**
 * Gives each call the last attempt left without a result one: a restart-safe call runs again,
 * any other gets `unknownOutcome` (an error result). Each is recorded, in order, like the tool
 * loop records results. Throws only the turn's abort reason.
 */
export async function resumeOpenCalls(
  history: readonly TranscriptEntry[],
  tools: Pick<TurnTools, 'isRestartSafe' | 'execute'>,
  record: (entry: NewTranscriptEntry) => Promise<TranscriptEntry>,
  runId: string,
): Promise<ResumedCalls> {
  const resumed: ResumedCalls = { entries: [], repeated: 0, unknown: 0 };
  for (const call of openCalls(history)) {
    const safe = tools.isRestartSafe(call.name);
    const outcome: ToolCallOutcome = safe
      ? await tools.execute(call)
      : { content: unknownOutcome(call.name), isError: true, endsRun: false };
    if (safe) resumed.repeated += 1;
    else resumed.unknown += 1;
    resumed.entries.push(
      await record({
        role: 'tool',
        text: outcome.content,
        runId,
        toolCallId: call.id,
        toolName: call.name,
        ...(outcome.isError ? { isError: true } : {}),
      }),
    );
  }
  return resumed;
}
