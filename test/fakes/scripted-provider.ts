import type { ModelProvider } from '../../src/engine/agents/index.js';

type ModelRequest = Parameters<ModelProvider['complete']>[0];
type ModelResponse = Awaited<ReturnType<ModelProvider['complete']>>;

/** One model call of the script: it sees the request (and may stream through `onTextDelta`). */
export type ScriptStep = (request: ModelRequest) => ModelResponse | Promise<ModelResponse>;

/** A text answer, streamed in `pieces` (default: one piece). */
export function answer(text: string, pieces: readonly string[] = [text]): ScriptStep {
  return (request) => {
    for (const piece of pieces) request.onTextDelta?.(piece);
    return { text, toolCalls: [], stopReason: 'end' };
  };
}

/** Tool calls, each `[name, arguments]` (an object is written as JSON, a string is sent as it is). */
export function callTools(...calls: [name: string, input: unknown][]): ScriptStep {
  return () => ({
    text: '',
    toolCalls: calls.map(([name, input], index) => ({
      id: `call-${index}-${crypto.randomUUID().slice(0, 8)}`,
      name,
      arguments: typeof input === 'string' ? input : JSON.stringify(input),
    })),
    stopReason: 'tool_calls',
  });
}

/**
 * A model provider in this process that answers from a script, one step per call, and keeps
 * every request it was given (copies of the messages, as they were at the call). A call past
 * the end of the script repeats the last step.
 */
export function createScriptedProvider(steps: readonly ScriptStep[]) {
  const requests: ModelRequest[] = [];
  const provider: ModelProvider = {
    name: 'fake',
    description: 'scripted fake in this process',
    async complete(request) {
      requests.push({ ...request, messages: structuredClone(request.messages) });
      const step = steps[Math.min(requests.length, steps.length) - 1];
      if (!step) throw new Error('the script has no steps');
      return step(request);
    },
  };
  return { provider, requests };
}

/** A step that streams `text` and then waits until the call is aborted, rethrowing its reason. */
export function streamUntilAborted(text: string): ScriptStep {
  return (request) => {
    request.onTextDelta?.(text);
    return new Promise((_, reject) => {
      const abort = () => reject(request.signal.reason);
      if (request.signal.aborted) abort();
      else request.signal.addEventListener('abort', abort, { once: true });
    });
  };
}
