import type { OutboundMessage } from '../messages/index.js';
import type { NewTranscriptEntry, TranscriptEntry } from '../sessions/index.js';
import type { Tool, ToolCallOutcome, ToolContext, ToolPolicy, ToolRegistry } from '../tools/index.js';
import { toMessage } from './model-context.js';
import type { ModelMessage, ModelProvider, ModelToolCall } from './providers/index.js';

export interface ToolLoopProgress {
  rounds: number;
  toolCalls: number;
  /** The reply being streamed by the current model call, if any (for a clean end on abort). */
  streaming?: { id: string; text: string };
}

export interface ToolLoopOptions {
  provider: ModelProvider;
  registry: ToolRegistry;
  policy: ToolPolicy;
  /** The tools this turn may see (already filtered by `policy`). */
  tools: readonly Tool[];
  system: string;
  /** The conversation so far; the loop appends to it. */
  messages: ModelMessage[];
  maxBurst: number;
  /** The turn's burst counter: rounds since the turn started or last took a steered message. */
  burst: { value: number };
  signal: AbortSignal;
  toolContext: ToolContext;
  progress: ToolLoopProgress;
  onDelta(id: string, delta: string): void;
  reply(message: OutboundMessage): Promise<void>;
  record(entry: NewTranscriptEntry): Promise<TranscriptEntry>;
  /** Steered messages to add before the next model call (they reset the burst counter). */
  takeSteered(): Promise<ModelMessage[]>;
}

export type ToolLoopEnd = 'answered' | 'boundary' | 'max_burst';

/**
 * Model → tool calls → results → model … until the model answers without tool calls, a boundary
 * tool ends the run, or the burst limit is reached. Throws only the signal's abort reason and
 * `ModelCallError`; tool failures become results the model reads.
 */
export async function runToolLoop(options: ToolLoopOptions): Promise<ToolLoopEnd> {
  const { messages, progress, burst, toolContext } = options;
  const specs = options.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters as Record<string, unknown>,
  }));
  for (;;) {
    const steered = await options.takeSteered();
    if (steered.length > 0) {
      messages.push(...steered);
      burst.value = 0;
    }
    if (burst.value >= options.maxBurst) return 'max_burst';
    burst.value += 1;
    progress.rounds += 1;
    const streaming = { id: crypto.randomUUID(), text: '' };
    progress.streaming = streaming;
    const response = await options.provider.complete({
      system: options.system,
      messages,
      tools: specs,
      signal: options.signal,
      onTextDelta: (delta) => {
        streaming.text += delta;
        options.onDelta(streaming.id, delta);
      },
    });
    progress.streaming = undefined;
    const calls = response.toolCalls;
    // The model goes on from what was recorded: the record has secret values removed.
    const assistant = await options.record({
      role: 'assistant',
      text: response.text,
      runId: toolContext.runId,
      ...(calls.length ? { toolCalls: calls } : {}),
    });
    messages.push(toMessage(assistant, { multiUser: false }));
    if (assistant.text.trim() !== '') await options.reply({ id: streaming.id, text: assistant.text });
    if (calls.length === 0) return 'answered';

    const outcomes = await executeCalls(options, calls);
    let ended = false;
    for (const [index, call] of calls.entries()) {
      const outcome = outcomes[index] ?? skipped(call);
      progress.toolCalls += 1;
      const result = await options.record({
        role: 'tool',
        text: outcome.content,
        runId: toolContext.runId,
        toolCallId: call.id,
        toolName: call.name,
        ...(outcome.isError ? { isError: true } : {}),
      });
      messages.push(toMessage(result, { multiUser: false }));
      if (outcome.post !== undefined) await options.reply({ id: crypto.randomUUID(), text: outcome.post });
      ended ||= outcome.endsRun;
    }
    if (ended) return 'boundary';
  }
}

/**
 * Runs the calls of one round in order; consecutive read-only calls run together. Calls after
 * a boundary tool are not run (they get a result saying so).
 */
async function executeCalls(
  options: ToolLoopOptions,
  calls: readonly ModelToolCall[],
): Promise<ToolCallOutcome[]> {
  const outcomes: ToolCallOutcome[] = [];
  const run = (call: ModelToolCall) =>
    options.registry.execute(call.name, call.arguments, options.policy, options.toolContext);
  let index = 0;
  while (index < calls.length) {
    const group: ModelToolCall[] = [];
    while (index < calls.length && isReadOnly(options, calls[index]))
      group.push(calls[index++] as ModelToolCall);
    if (group.length === 0) group.push(calls[index++] as ModelToolCall);
    outcomes.push(...(await Promise.all(group.map(run))));
    if (outcomes.some((outcome) => outcome.endsRun)) break;
  }
  return outcomes;
}

function isReadOnly(options: ToolLoopOptions, call: ModelToolCall | undefined): boolean {
  return (
    call !== undefined && options.tools.some((tool) => tool.name === call.name && tool.readOnly === true)
  );
}

function skipped(call: ModelToolCall): ToolCallOutcome {
  return {
    content: `Not run: an earlier call in this round ended the run before ${call.name}.`,
    isError: true,
    endsRun: false,
  };
}
