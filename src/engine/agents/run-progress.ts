import type { ToolLoopEvent } from './tool-loop-events.js';
import type { TurnRequest } from './types.js';

/** What a run's tool loop has done so far, kept from its events; read when the run ends. */
export interface RunProgress {
  rounds: number;
  toolCalls: number;
  /** The reply being streamed by the current model call, if any (for a clean end on abort). */
  streaming: { id: string; text: string } | undefined;
  /** The loop's event sink: counts, and forwards deltas and replies to the turn's chat. */
  emit(event: ToolLoopEvent): void | Promise<void>;
}

/**
 * `burst` is the turn's counter cell, read by `AgentRunner.activity` while the turn runs;
 * `modelEnded` counts a call's tokens (awaited: a call is counted before the loop goes on).
 */
export function createRunProgress(
  request: Pick<TurnRequest, 'onDelta' | 'onStatus' | 'reply'>,
  burst: { value: number },
  modelEnded?: (event: Extract<ToolLoopEvent, { type: 'model_end' }>) => Promise<void>,
): RunProgress {
  const progress: RunProgress = {
    rounds: 0,
    toolCalls: 0,
    streaming: undefined,
    emit(event) {
      switch (event.type) {
        case 'round_start':
          burst.value = event.burst;
          progress.rounds += 1;
          return;
        case 'model_start':
          progress.streaming = { id: event.replyId, text: '' };
          return;
        case 'text_delta':
          if (progress.streaming?.id === event.replyId) progress.streaming.text += event.delta;
          request.onDelta(event.replyId, event.delta);
          return;
        case 'model_end':
          progress.streaming = undefined;
          return modelEnded?.(event);
        case 'tool_start':
          request.onStatus?.(toolStatus(event.calls));
          return;
        case 'tool_end':
          progress.toolCalls += 1;
          return;
        case 'reply':
          return request.reply(event.message);
      }
    },
  };
  return progress;
}

/** The status line of a round's tool calls: "running schedule.once…", "running a, b…". */
export function toolStatus(calls: readonly { name: string }[]): string {
  const names = [...new Set(calls.map((call) => call.name))];
  return `running ${names.join(', ')}…`;
}
