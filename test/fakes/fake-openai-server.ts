import { encodeToolName } from '../../src/engine/agents/providers/tool-names.js';
import {
  argumentsText,
  type FakeDialect,
  type FakeModelServer,
  type FakeModelServerOptions,
  type FakeStep,
  splitText,
  startFakeModelServer,
} from './fake-model-server.js';

/**
 * How the fake reports usage: `when-asked` (the default, as OpenAI, vLLM and Ollama do) in every
 * plain answer and in a streamed one only when the request asks (`stream_options.include_usage`),
 * as a last chunk with no choices; `never` in no answer at all (a server that does not count).
 */
export type FakeUsageMode = 'when-asked' | 'never';

export interface FakeOpenAIServerOptions extends FakeModelServerOptions {
  usage?: FakeUsageMode;
}

/**
 * A fake OpenAI-compatible server: `POST /v1/chat/completions`, streaming (SSE chunks ending
 * in `data: [DONE]`) or plain JSON. Its `url` includes `/v1`, as OpenAI base URLs do.
 * Tool calls stream like OpenAI's: the first delta of an index carries id and name, then the
 * arguments follow in two pieces. Usage: see `FakeUsageMode`.
 */
export function startFakeOpenAIServer(options: FakeOpenAIServerOptions = {}): Promise<FakeModelServer> {
  return startFakeModelServer(openAIDialect(options.usage ?? 'when-asked'), '/v1', options);
}

const openAIDialect = (usageMode: FakeUsageMode): FakeDialect => ({
  path: '/v1/chat/completions',
  errorBody: (status, message) => ({
    error: { message, type: status === 429 ? 'rate_limit_exceeded' : 'server_error', code: null },
  }),
  reply(step, request) {
    const toolCalls = (step.toolCalls ?? []).map((toolCall, index) => ({
      id: toolCall.id ?? `call_${index}`,
      type: 'function',
      function: { name: encodeToolName(toolCall.name), arguments: argumentsText(toolCall) },
    }));
    return {
      ...envelope(request.body?.model, 'chat.completion'),
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: step.text ?? null,
            ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
          },
          finish_reason: finishReason(step),
        },
      ],
      ...(usageMode !== 'never' && { usage: usage(step) }),
    };
  },
  stream(step, request) {
    const chunk = (delta: object, finish: string | null = null) =>
      frame({
        ...envelope(request.body?.model, 'chat.completion.chunk'),
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
    const content = [chunk({ role: 'assistant', content: '' })];
    for (const piece of splitText(step.text ?? '', step.chunks)) content.push(chunk({ content: piece }));
    (step.toolCalls ?? []).forEach((toolCall, index) => {
      const id = toolCall.id ?? `call_${index}`;
      const name = encodeToolName(toolCall.name);
      content.push(
        chunk({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] }),
      );
      for (const piece of splitText(argumentsText(toolCall), 2)) {
        content.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
      }
    });
    const finish = [chunk({}, finishReason(step))];
    if (usageMode === 'when-asked' && request.body?.stream_options?.include_usage) {
      finish.push(
        frame({ ...envelope(request.body?.model, 'chat.completion.chunk'), choices: [], usage: usage(step) }),
      );
    }
    finish.push('data: [DONE]\n\n');
    return { content, finish };
  },
});

function envelope(model: unknown, object: string) {
  return {
    id: 'chatcmpl-fake',
    object,
    created: 1_700_000_000,
    model: typeof model === 'string' ? model : 'fake',
  };
}

function finishReason(step: FakeStep): string {
  return step.toolCalls?.length ? 'tool_calls' : 'stop';
}

function usage(step: FakeStep) {
  const { inputTokens = 10, outputTokens = 5 } = step.usage ?? {};
  return {
    prompt_tokens: inputTokens,
    completion_tokens: outputTokens,
    total_tokens: inputTokens + outputTokens,
  };
}

function frame(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/**
 * An OpenAI-compatible server that answers `text` to the API key `key` only and refuses any other
 * with 401 "Incorrect API key provided", as OpenAI does: what `switchboard setup` and the Setup
 * page prove a key against.
 */
export function startKeyCheckingOpenAIServer(key: string, text = 'OK'): Promise<FakeModelServer> {
  return startFakeOpenAIServer({
    defaultStep: (request) =>
      request.headers.authorization === `Bearer ${key}`
        ? { text }
        : { status: 401, errorMessage: 'Incorrect API key provided' },
  });
}
