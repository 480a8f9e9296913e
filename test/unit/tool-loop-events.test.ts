import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logging/index.js';
import type { ModelMessage } from '../../src/engine/agents/providers/index.js';
import { runToolLoop } from '../../src/engine/agents/tool-loop.js';
import type { ToolLoopEvent } from '../../src/engine/agents/tool-loop-events.js';
import { turnTools } from '../../src/engine/agents/turn-tools.js';
import { createToolRegistry, GATEWAY_TOOLS } from '../../src/engine/tools/index.js';
import type { NewTranscriptEntry, TranscriptEntry } from '../../src/records/sessions/index.js';
import { answer, callTools, createScriptedProvider } from '../fakes/scripted-provider.js';
import { testToolContext } from '../helpers/tool-context.js';

/**
 * The tool loop alone, without the runner: the events it emits, in order, are its contract with
 * its caller (the runner's progress, the chat).
 */

const logger = createLogger({ level: 'silent' }).logger;

function rig() {
  const registry = createToolRegistry();
  for (const tool of GATEWAY_TOOLS) registry.register(tool, 'builtin');
  const context = testToolContext(logger);
  const tools = turnTools(registry, { allows: () => true, isOwner: true }, context);
  const recorded: TranscriptEntry[] = [];
  const record = async (entry: NewTranscriptEntry) => {
    const stored = { ...entry, seq: recorded.length, at: '2026-01-01T00:00:00.000Z' };
    recorded.push(stored);
    return stored;
  };
  const emitted: ToolLoopEvent[] = [];
  return { tools, context, recorded, record, emitted };
}

describe('the tool loop’s events', () => {
  it('tells each round, the streamed call, each tool outcome and each reply, in order', async () => {
    const { tools, context, record, emitted, recorded } = rig();
    const { provider } = createScriptedProvider([
      callTools(['ask_user', { question: 'Which?' }]),
      answer('unused'),
    ]);
    const history: ModelMessage[] = [{ role: 'user', content: 'hi' }];
    const end = await runToolLoop({
      provider,
      tools,
      system: 'You are a test.',
      history,
      maxBurst: 5,
      runId: context.runId,
      signal: context.signal,
      transcript: { record, takeSteered: async () => [] },
      emit: (event) => {
        emitted.push(event);
      },
    });
    expect(end).toBe('boundary');
    expect(emitted.map((event) => event.type)).toEqual([
      'round_start',
      'model_start',
      'model_end',
      'tool_start',
      'tool_end',
      'reply',
    ]);
    expect(emitted[0]).toEqual({ type: 'round_start', round: 1, burst: 1 });
    expect(emitted.at(-1)).toMatchObject({ type: 'reply', message: { text: 'Which?' } });
    expect(recorded.map((entry) => entry.role)).toEqual(['assistant', 'tool']);
    expect(history).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('streams deltas between model_start and model_end under one reply id, then sends the reply', async () => {
    const { tools, context, record, emitted } = rig();
    const { provider } = createScriptedProvider([answer('Hi there', ['Hi', ' there'])]);
    const end = await runToolLoop({
      provider,
      tools,
      system: 'You are a test.',
      history: [{ role: 'user', content: 'hi' }],
      maxBurst: 5,
      runId: context.runId,
      signal: context.signal,
      transcript: { record, takeSteered: async () => [] },
      emit: (event) => {
        emitted.push(event);
      },
    });
    expect(end).toBe('answered');
    const start = emitted[1];
    const replyId = start?.type === 'model_start' ? start.replyId : 'missing';
    expect(emitted.slice(1)).toEqual([
      { type: 'model_start', replyId },
      { type: 'text_delta', replyId, delta: 'Hi' },
      { type: 'text_delta', replyId, delta: ' there' },
      { type: 'model_end', replyId, model: provider.name },
      { type: 'reply', message: { id: replyId, text: 'Hi there' } },
    ]);
  });
});
