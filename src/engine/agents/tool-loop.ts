import type { NewTranscriptEntry, TranscriptEntry } from '../../records/sessions/index.js';
import type { ToolCallOutcome } from '../tools/index.js';
import { toMessage } from './model-context.js';
import type { ModelMessage, ModelProvider, ModelToolCall } from './providers/index.js';
import type { ToolLoopEvent } from './tool-loop-events.js';
import type { TurnTools } from './turn-tools.js';

/** Where the loop keeps its conversation: the session's transcript. */
export interface ToolLoopTranscript {
  /** Appends an entry; the loop goes on from the entry as written (secret values removed). */
  record(entry: NewTranscriptEntry): Promise<TranscriptEntry>;
  /** Steered messages to add before the next model call (they reset the burst counter). */
  takeSteered(): Promise<ModelMessage[]>;
}

export interface ToolLoopOptions {
  provider: ModelProvider;
  tools: TurnTools;
  system: string;
  /** The conversation so far (not changed: the loop works on a copy). */
  history: readonly ModelMessage[];
  /** The messages each model call is sent, from the whole conversation (the context budget); all of them without it. */
  fit?(messages: readonly ModelMessage[]): ModelMessage[];
  maxBurst: number;
  /** The run this loop records its entries under. */
  runId: string;
  signal: AbortSignal;
  transcript: ToolLoopTranscript;
  /** Everything the loop does that others see, in order; the loop awaits each call. */
  emit(event: ToolLoopEvent): void | Promise<void>;
}

export type ToolLoopEnd = 'answered' | 'boundary' | 'max_burst';

/**
 * Model → tool calls → results → model … until the model answers without tool calls, a boundary
 * tool ends the run, or the burst limit is reached. Throws only the signal's abort reason and
 * `ModelCallError`; tool failures become results the model reads.
 */
export async function runToolLoop(options: ToolLoopOptions): Promise<ToolLoopEnd> {
  const messages = [...options.history];
  let burst = 0;
  for (let round = 1; ; round += 1) {
    const steered = await options.transcript.takeSteered();
    if (steered.length > 0) {
      messages.push(...steered);
      burst = 0;
    }
    if (burst >= options.maxBurst) return 'max_burst';
    burst += 1;
    await options.emit({ type: 'round_start', round, burst });
    const calls = await callModel(options, messages);
    if (calls.length === 0) return 'answered';
    if (await runCalls(options, messages, calls)) return 'boundary';
  }
}

/** One model call, streamed; its answer is recorded, added to `messages` and sent. Returns its tool calls. */
async function callModel(options: ToolLoopOptions, messages: ModelMessage[]): Promise<ModelToolCall[]> {
  const replyId = crypto.randomUUID();
  await options.emit({ type: 'model_start', replyId });
  const response = await options.provider.complete({
    system: options.system,
    messages: options.fit ? options.fit(messages) : messages,
    tools: options.tools.specs,
    signal: options.signal,
    onTextDelta: (delta) => void options.emit({ type: 'text_delta', replyId, delta }),
  });
  const model = response.model ?? options.provider.name;
  await options.emit({ type: 'model_end', replyId, model, ...(response.usage && { usage: response.usage }) });
  const calls = response.toolCalls;
  // The model goes on from what was recorded: the record has secret values removed.
  const assistant = await options.transcript.record({
    role: 'assistant',
    text: response.text,
    runId: options.runId,
    model,
    ...(calls.length ? { toolCalls: calls } : {}),
  });
  messages.push(toMessage(assistant, { multiUser: false }));
  if (assistant.text.trim() !== '')
    await options.emit({ type: 'reply', message: { id: replyId, text: assistant.text } });
  return calls;
}

/** Runs one round's calls and records their results. Returns true when a boundary tool ended the run. */
async function runCalls(
  options: ToolLoopOptions,
  messages: ModelMessage[],
  calls: readonly ModelToolCall[],
): Promise<boolean> {
  await options.emit({ type: 'tool_start', calls });
  const outcomes = await executeCalls(options.tools, calls);
  let ended = false;
  for (const [index, call] of calls.entries()) {
    const outcome = outcomes[index] ?? skipped(call);
    await options.emit({ type: 'tool_end', call, outcome });
    const result = await options.transcript.record({
      role: 'tool',
      text: outcome.content,
      runId: options.runId,
      toolCallId: call.id,
      toolName: call.name,
      ...(outcome.isError ? { isError: true } : {}),
    });
    messages.push(toMessage(result, { multiUser: false }));
    if (outcome.post !== undefined)
      await options.emit({ type: 'reply', message: { id: crypto.randomUUID(), text: outcome.post } });
    ended ||= outcome.endsRun;
  }
  return ended;
}

/**
 * Runs the calls of one round in order; consecutive read-only calls run together. Calls after
 * a boundary tool are not run (they get a result saying so).
 */
async function executeCalls(tools: TurnTools, calls: readonly ModelToolCall[]): Promise<ToolCallOutcome[]> {
  const outcomes: ToolCallOutcome[] = [];
  let index = 0;
  while (index < calls.length) {
    const group: ModelToolCall[] = [];
    while (index < calls.length && tools.isReadOnly(calls[index]?.name ?? ''))
      group.push(calls[index++] as ModelToolCall);
    if (group.length === 0) group.push(calls[index++] as ModelToolCall);
    outcomes.push(...(await Promise.all(group.map((call) => tools.execute(call)))));
    if (outcomes.some((outcome) => outcome.endsRun)) break;
  }
  return outcomes;
}

function skipped(call: ModelToolCall): ToolCallOutcome {
  return {
    content: `Not run: an earlier call in this round ended the run before ${call.name}.`,
    isError: true,
    endsRun: false,
  };
}
